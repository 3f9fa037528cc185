import Foundation
import XCTest

/// A fleet of three members recording six cameras, with a three-node nats-server cluster (with
/// JetStream, a user and a password), all real and on loopback. The files on disk are read with
/// ffprobe and the events with nats-py, not with rtprecv.
final class FleetTests: XCTestCase {
    private struct Recording {
        let camera: String, member: String
        let start: Double, duration: Double, frames: Int, path: String
        var end: Double { start + duration }
    }

    func testSixCamerasThreeMembersAKillAndANodeLost() throws {
        let cluster = try NATSCluster(nodes: 3, name: "fleet", user: "rtprecv", password: "s3cret-nats")
        defer { cluster.stop() }
        let rtspPort = cluster.sparePort
        var cameras = try Harness.startServer("rtsp-server", ["--port", "\(rtspPort)", "--live", "--mounts", "6"])
        defer { cameras.terminate(); cameras.waitUntilExit() }
        let directory = try Harness.emptyDirectory("fleet-recordings")
        let members = try (0..<3).map { try member("m\($0)", cluster: cluster, rtspPort: rtspPort, directory: directory, index: true) }
        defer { for m in members where m.process.isRunning { m.process.terminate(); m.process.waitUntilExit() } }

        Thread.sleep(forTimeInterval: 10)
        // Settled (a member that joined late has been handed its share): the last 4 s's files.
        let settled = Date().timeIntervalSince1970 - 4
        let before = try recordings(in: directory).filter { $0.start > settled }
        for camera in (0..<6).map({ "cam\($0)" }) {
            XCTAssertEqual(Set(before.filter { $0.camera == camera }.map(\.member)).count, 1, "\(camera): one member records it")
        }
        XCTAssertEqual(Dictionary(grouping: Set(before.map { "\($0.camera) \($0.member)" }).map { $0.split(separator: " ")[1] }) { $0 }
            .mapValues(\.count), ["m0": 2, "m1": 2, "m2": 2], "two cameras a member")

        let killed = Date().timeIntervalSince1970
        kill(members[0].process.processIdentifier, SIGKILL)
        members[0].process.waitUntilExit()
        // Its last file of each camera it recorded since the fleet settled, left open by the kill.
        let itsCameras = Set(before.filter { $0.member == "m0" }.map(\.camera))
        let leftOpen = Dictionary(grouping: try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".mp4") && $0.contains("-m0-") && itsCameras.contains(String($0.prefix { $0 != "-" })) }) {
                $0.prefix { $0 != "-" }
            }.values.map { directory.appendingPathComponent($0.max()!).path }
        Thread.sleep(forTimeInterval: 12)
        cluster.kill(2)
        let nodeLost = Date().timeIntervalSince1970
        Thread.sleep(forTimeInterval: 4)
        // The cameras restart: each member reconnects, and says so in events.
        cameras.terminate()
        cameras.waitUntilExit()
        cameras = try Harness.startServer("rtsp-server", ["--port", "\(rtspPort)", "--live", "--mounts", "6"])
        Thread.sleep(forTimeInterval: 8)
        for m in members.dropFirst() {
            m.process.terminate()
            m.process.waitUntilExit()
            XCTAssertEqual(m.process.terminationStatus, 0, (try? String(contentsOf: m.log, encoding: .utf8)) ?? "")
        }

        let all = try recordings(in: directory)
        for camera in (0..<6).map({ "cam\($0)" }) {
            let files = all.filter { $0.camera == camera }.sorted { $0.start < $1.start }
            // Recorded again soon after the kill (5 s TTL), and on after a NATS node was lost. Unloaded,
            // a member's cameras play on another 4.7 s after its kill -9; this test's own load (a
            // three-node cluster, six live encoders, three debug builds on two cores) makes it 9 to
            // 10.5 s, so the bound here is 12 s (the file names' second, plus one). One
            // writer at a time until then; a member cut off from NATS while the node's clients move
            // (longer than the TTL on a loaded machine) may be joined by another, as in a partition.
            for (earlier, later) in zip(files, files.dropFirst()) {
                XCTAssertLessThanOrEqual(later.start - earlier.end, 12, "\(camera): a gap from \(earlier.path) to \(later.path)")
                if later.start < nodeLost {
                    XCTAssertGreaterThan(later.start - earlier.end, -1.5, "\(camera): \(earlier.path) and \(later.path) overlap")
                }
            }
            XCTAssertGreaterThan(files.last?.end ?? 0, nodeLost + 10, "\(camera) still recorded after a NATS node was lost")
            XCTAssertTrue(files.contains { $0.member != "m0" && $0.start > killed }, "\(camera) recorded by a survivor")
            // A camera m0 had: its next file begins within 12 s of the kill.
            if files.contains(where: { $0.member == "m0" }), let next = files.first(where: { $0.member != "m0" && $0.start > killed - 1 }) {
                XCTAssertLessThanOrEqual(next.start + 1 - killed, 12, "\(camera) recorded again by \(next.path), killed at \(killed)")
            }
        }
        try assertEventsMatchTheFiles(all, cluster: cluster, leftOpen: leftOpen, by: "m0", takers: members.dropFirst().map(\.log))
        for m in members {
            let log = try String(contentsOf: m.log, encoding: .utf8)
            XCTAssertFalse(log.contains("s3cret-nats"), "no password in \(m.log.path)")
        }
    }

    /// Every file has exactly one segment event naming its frames. The files the killed member left
    /// open get theirs from the members that took its cameras over, with `closed_cleanly` false
    /// (with no frames when the kill came before a new file's first fragment).
    private func assertEventsMatchTheFiles(_ files: [Recording], cluster: NATSCluster, leftOpen: [String], by killed: String,
                                           takers: [URL]) throws {
        let events = try fleetEvents("nats://rtprecv:s3cret-nats@127.0.0.1:\(cluster.clientPorts[0])")
        let segments = Dictionary(grouping: events.filter { $0["event"] as? String == "segment" }) { $0["path"] as? String ?? "" }
        for file in files {
            let found = segments[file.path] ?? []
            XCTAssertEqual(found.count, 1, "one event for \(file.path)")
            XCTAssertEqual(found.first?["frames"] as? Int, file.frames, "\(file.path): the event's frames are ffprobe's")
        }
        XCTAssertEqual(leftOpen.count, 2, "the killed member recorded two cameras")
        let logs = try takers.map { try String(contentsOf: $0, encoding: .utf8) }.joined()
        for path in leftOpen {
            let event = segments[path]?.first
            XCTAssertEqual(event?["closed_cleanly"] as? Bool, false, path)
            XCTAssertEqual(event?["left_by"] as? String, killed, path)
            XCTAssertNotEqual(event?["member"] as? String, killed, "\(path): announced by the member that took it over")
            XCTAssertTrue(logs.contains("\(path) was left open by member '\(killed)', whose claim expired"), logs)
        }
        XCTAssertTrue(Set(segments.keys).isSubset(of: Set(files.map(\.path))), "no event without its file")
        for kind in ["claimed", "started", "stopped", "reconnecting", "reconnected"] {
            XCTAssertTrue(events.contains { $0["event"] as? String == kind }, "a '\(kind)' event")
        }
    }

    private struct Member { let name: String; let process: Process; let log: URL }

    /// The events the fleet published, read with nats-py from the server at `url`.
    /// The stream's events, read from `url`. A cluster whose node has just come back (SIGCONT) may
    /// answer with none while its stream's leader is chosen again: asked again, for up to 20 s.
    private func fleetEvents(_ url: String) throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(20)
        while true {
            let r = try Harness.run(Harness.venvPython, [Harness.packageRoot.appendingPathComponent("scripts/fleet-events").path, url])
            let events = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            if (r.status == 0 && !events.isEmpty) || Date() >= deadline {
                XCTAssertEqual(r.status, 0, r.stderr)
                return events
            }
            Thread.sleep(forTimeInterval: 1)
        }
    }

    /// A member cut off from NATS (the one node it knows paused) keeps recording; the others take
    /// its cameras after the TTL, so they are recorded twice meanwhile, never by no one; once the
    /// node is back, the cut-off member gives them up and one writer remains.
    func testAPartitionedMemberKeepsRecordingAndGivesUpWhenItHeals() throws {
        let cluster = try NATSCluster(nodes: 3, name: "partition", advertises: false)
        defer { cluster.stop() }
        let rtspPort = cluster.sparePort
        let cameras = try Harness.startServer("rtsp-server", ["--port", "\(rtspPort)", "--live", "--mounts", "2"])
        defer { cameras.terminate(); cameras.waitUntilExit() }
        let directory = try Harness.emptyDirectory("partition-recordings")
        let members = try [("p0", [cluster.urls[2]]), ("p1", Array(cluster.urls.prefix(2)))].map {
            try member($0.0, cluster: cluster, rtspPort: rtspPort, directory: directory, cameras: 2, servers: $0.1, secret: false,
                       index: true)
        }
        defer { for m in members where m.process.isRunning { m.process.terminate(); m.process.waitUntilExit() } }
        // Settled: each member's share, one camera (a member that joined late is handed its own
        // within a few rounds), seen in the files begun in the last 3 s.
        var held: Set<String> = []
        let deadline = Date().addingTimeInterval(25)
        repeat {
            Thread.sleep(forTimeInterval: 2)
            let recent = Date().timeIntervalSince1970 - 3
            let files = try recordings(in: directory).filter { $0.start > recent }
            held = Set(files.filter { $0.member == "p0" }.map(\.camera))
            if held.count == 1 && Set(files.filter { $0.member == "p1" }.map(\.camera)).count == 1 { break }
        } while Date() < deadline
        XCTAssertEqual(held.count, 1, "p0 records its share")

        // The paused node may lead the bucket's stream: the others take p0's camera after the TTL and
        // the cluster's election of a new leader, which on a loaded machine can be 10 s more.
        cluster.pause(2, true)
        // Files begun since the pause (named to the second): p1 may have held the camera before p0 was given it.
        let paused = Date().timeIntervalSince1970.rounded(.down)
        var during: [Recording] = []
        // When the files were listed: probing them all takes seconds on a loaded machine, and a
        // file begun just before (no fragment yet) ends, for ffprobe, where it starts.
        var listed = 0.0
        let cutOff = Date().addingTimeInterval(30)
        repeat {
            Thread.sleep(forTimeInterval: 2)
            listed = Date().timeIntervalSince1970.rounded(.down)
            during = try recordings(in: directory).filter { $0.start >= paused }
        } while Date() < cutOff && !held.allSatisfy { camera in during.contains { $0.camera == camera && $0.member == "p1" } }
        for camera in held {
            let p0 = during.filter { $0.camera == camera && $0.member == "p0" }.map(\.end).max() ?? 0
            XCTAssertGreaterThan(p0, listed - 4, "\(camera): p0 records on, cut off")
            XCTAssertTrue(during.contains { $0.camera == camera && $0.member == "p1" }, "\(camera): p1 took it after the TTL")
        }
        cluster.pause(2, false)
        Thread.sleep(forTimeInterval: 20)
        let healed = Date().timeIntervalSince1970
        Thread.sleep(forTimeInterval: 4)
        for m in members {
            m.process.terminate()
            m.process.waitUntilExit()
        }
        let after = try recordings(in: directory).filter { $0.end > healed }
        for camera in ["cam0", "cam1"] {
            XCTAssertEqual(Set(after.filter { $0.camera == camera }.map(\.member)).count, 1, "\(camera): one writer once healed")
        }
        // Whichever kept it (NATS itself may be disturbed as the node returns), the other said it
        // stopped, at a keyframe.
        let logs = try members.map { try String(contentsOf: $0.log, encoding: .utf8) }
        var gaveUp = 0
        for log in logs {
            for camera in ["cam0", "cam1"] where log.contains("'\(camera)' is recorded by member") {
                gaveUp += 1
                XCTAssertTrue(log.contains("[\(camera)] stopped at a keyframe: recorded by member"), log)
            }
        }
        XCTAssertGreaterThan(gaveUp, 0, "\(logs)")
        // Runs the fleet stopped (lost, or handed over) end before a keyframe, as segments are cut:
        // every file but a run's last at SIGTERM ends with a whole group of pictures (the cameras'
        // key-int-max is 30). A run stopped at once would end mid-group 29 times in 30.
        let all = try recordings(in: directory)
        for m in members {
            for camera in ["cam0", "cam1"] {
                let files = all.filter { $0.camera == camera && $0.member == m.name }.sorted { $0.start < $1.start }.dropLast()
                for file in files {
                    XCTAssertEqual(try framesAfterLastKeyframe(file.path), 29, "\(file.path) ends before a keyframe")
                }
            }
        }
        // p1 took p0's camera after its claim expired, and looked for files p0 left open: the one p0
        // was still writing is left to p0, which closed it itself. One event a file, none left open.
        let segments = Dictionary(grouping: try fleetEvents(cluster.urls[0]).filter { $0["event"] as? String == "segment" }) {
            $0["path"] as? String ?? ""
        }
        for file in all {
            XCTAssertEqual(segments[file.path]?.count, 1, "one event for \(file.path)")
            XCTAssertEqual(segments[file.path]?.first?["closed_cleanly"] as? Bool, true, file.path)
        }
        XCTAssertTrue(Set(segments.keys).isSubset(of: Set(all.map(\.path))), "no event without its file")
    }

    /// The frames after the last keyframe of `path`'s video, by ffprobe's packet flags.
    private func framesAfterLastKeyframe(_ path: String) throws -> Int {
        let r = try Harness.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=flags", "-of", "csv=p=0", path])
        let flags = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n")
        return flags.count - 1 - (flags.lastIndex { $0.hasPrefix("K") } ?? -1)
    }

    /// A member killed and started again within the TTL takes its cameras back at once (nobody else
    /// records them meanwhile), publishes the segment its killed process left open, and a second
    /// process with a running member's name is refused.
    func testARestartedMemberTakesBackItsCamerasAndANameInUseIsRefused() throws {
        let cluster = try NATSCluster(nodes: 1, name: "restart")
        defer { cluster.stop() }
        let rtspPort = cluster.sparePort
        let cameras = try Harness.startServer("rtsp-server", ["--port", "\(rtspPort)", "--live", "--mounts", "2"])
        defer { cameras.terminate(); cameras.waitUntilExit() }
        let directory = try Harness.emptyDirectory("restart-recordings")
        let start = { (name: String, tag: String) in
            try self.member(name, cluster: cluster, rtspPort: rtspPort, directory: directory, cameras: 2, secret: false, ttl: 10, tag: tag,
                            index: true)
        }
        var members = try [start("r0", ""), start("r1", "")]
        defer { for m in members where m.process.isRunning { m.process.terminate(); m.process.waitUntilExit() } }
        var mine: Set<String> = []
        let deadline = Date().addingTimeInterval(25)
        repeat {
            Thread.sleep(forTimeInterval: 2)
            let recent = try recordings(in: directory).filter { $0.start > Date().timeIntervalSince1970 - 3 }
            mine = Set(recent.filter { $0.member == "r0" }.map(\.camera))
            if mine.count == 1 && Set(recent.filter { $0.member == "r1" }.map(\.camera)).count == 1 { break }
        } while Date() < deadline
        XCTAssertEqual(mine.count, 1, "r0 records its share")

        let killed = Date().timeIntervalSince1970
        kill(members[0].process.processIdentifier, SIGKILL)
        members[0].process.waitUntilExit()
        let leftOpen = try recordings(in: directory).filter { mine.contains($0.camera) && $0.member == "r0" }.max { $0.start < $1.start }
        members[0] = try start("r0", "-again")
        var back: Recording?
        let resumed = Date().addingTimeInterval(15)
        repeat {
            Thread.sleep(forTimeInterval: 1)
            back = try recordings(in: directory).first { mine.contains($0.camera) && $0.member == "r0" && $0.start > killed }
        } while back == nil && Date() < resumed
        let log = (try? String(contentsOf: members[0].log, encoding: .utf8)) ?? ""
        // Well within the 10 s TTL: three of the old process's rounds (3.75 s) to see it is gone, then the camera's setup.
        XCTAssertLessThanOrEqual((back?.start ?? .infinity) - killed, 8, "taken back by the restarted r0: \(log)")
        XCTAssertTrue(log.contains("taken back"), log)

        let twin = try start("r1", "-twin")
        let refusedBy = Date().addingTimeInterval(15)
        while twin.process.isRunning && Date() < refusedBy { Thread.sleep(forTimeInterval: 0.2) }
        if twin.process.isRunning { twin.process.terminate() }
        twin.process.waitUntilExit()
        let twinLog = try String(contentsOf: twin.log, encoding: .utf8)
        XCTAssertEqual(twin.process.terminationStatus, 1, twinLog)
        XCTAssertTrue(twinLog.contains("member 'r1' is already running"), twinLog)
        for m in members {
            m.process.terminate()
            m.process.waitUntilExit()
        }
        let stolen = try recordings(in: directory).filter { mine.contains($0.camera) && $0.member == "r1" }
        XCTAssertEqual(stolen.map(\.path), [], "r1 never recorded r0's camera")

        // The file the kill left open: one segment event, closed_cleanly false, with ffprobe's
        // frames; or, when the kill came before its first fragment, removed.
        let events = try fleetEvents(cluster.urls[0])
        let forIt = events.filter { $0["event"] as? String == "segment" && $0["path"] as? String == leftOpen?.path }
        if let leftOpen, leftOpen.frames == 0 {
            XCTAssertFalse(FileManager.default.fileExists(atPath: leftOpen.path), "\(leftOpen.path) holds no frame")
            XCTAssertTrue(log.contains("\(leftOpen.path), left open by a process that ended, holds no frame: removed"), log)
            XCTAssertEqual(forIt.count, 0)
        } else {
            XCTAssertEqual(forIt.count, 1, "one event for \(leftOpen?.path ?? "r0's last file")")
            XCTAssertEqual(forIt.first?["closed_cleanly"] as? Bool, false)
            XCTAssertEqual(forIt.first?["frames"] as? Int, leftOpen?.frames, "the event's frames are ffprobe's")
        }
    }

    /// A claim is written about three times a TTL, not at every round (each write is a JetStream
    /// message, replicated): 40 sources held by one member with a 2 s TTL, a round every 250 ms,
    /// cost the bucket about 57 writes a second with the heartbeat (164 when every round renewed
    /// every claim), and enough that none lapses.
    func testClaimsAreRenewedAFewTimesATTLNotEveryRound() throws {
        let cluster = try NATSCluster(nodes: 1, name: "renewals")
        defer { cluster.stop() }
        let directory = try Harness.emptyDirectory("renewals")
        let base = 47000 + Int(getpid() % 100) * 100
        let config = Harness.temporaryFile("fleet-renewals.yml")
        try """
            nats:
              servers: [\(cluster.urls[0])]
              member: w0
              ttl-seconds: 2
            defaults:
              out: \(directory.path)/{source}.h264
            sources:

            """.appending((0..<40).map { "  - {name: s\($0), port: \(base + 2 * $0)}\n" }.joined())
            .write(to: config, atomically: true, encoding: .utf8)
        let m = try launch(config, member: "w0", log: "fleet-renewals.log")
        defer { if m.process.isRunning { m.process.terminate(); m.process.waitUntilExit() } }
        let writes = { () throws -> Int in
            let r = try Harness.run("curl", ["-s", "http://127.0.0.1:\(cluster.monitorPorts[0])/jsz?streams=true"])
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
            let streams = (json["account_details"] as? [[String: Any]] ?? []).flatMap { $0["stream_detail"] as? [[String: Any]] ?? [] }
            let bucket = try XCTUnwrap(streams.first { $0["name"] as? String == "KV_rtprecv" }, "\(json)")
            return try XCTUnwrap((bucket["state"] as? [String: Any])?["last_seq"] as? Int)
        }
        Thread.sleep(forTimeInterval: 4)
        let (before, began) = (try writes(), Date())
        Thread.sleep(forTimeInterval: 4)
        let perSecond = Double(try writes() - before) / Date().timeIntervalSince(began)
        let said = (try? String(contentsOf: m.log, encoding: .utf8)) ?? ""
        // At least a write a claim every 1.6 s, within the 2 s TTL, on a busy machine too.
        XCTAssertGreaterThanOrEqual(perSecond, 25, said)
        XCTAssertLessThanOrEqual(perSecond, 80, said)
        XCTAssertFalse(said.contains("is recorded by member"), said)
    }

    /// An operator rotates the NATS password: the server takes the new one (keeping the connections
    /// it has), and a SIGHUP with the new password in the member's file makes the member connect
    /// with it, holding its claim, its camera's run untouched. The server restarted then, the member
    /// connects again by itself, which it could not with the old password: every segment, those
    /// closed after the restart too, has its event.
    func testARotatedNATSPasswordIsTakenAtAReload() throws {
        let cluster = try NATSCluster(nodes: 1, name: "rotate", user: "rtprecv", password: "first-s3cret", reloadable: true)
        defer { cluster.stop() }
        let rtspPort = cluster.sparePort
        let cameras = try Harness.startServer("rtsp-server", ["--port", "\(rtspPort)", "--live", "--mounts", "1"])
        defer { cameras.terminate(); cameras.waitUntilExit() }
        let directory = try Harness.emptyDirectory("rotate-recordings")
        let passwordFile = Harness.temporaryFile("rotate-password")
        try "first-s3cret\n".write(to: passwordFile, atomically: true, encoding: .utf8)
        let m = try member("q0", cluster: cluster, rtspPort: rtspPort, directory: directory, cameras: 1, passwordFile: passwordFile,
                           index: true)
        defer { if m.process.isRunning { m.process.terminate(); m.process.waitUntilExit() } }
        let log = { (try? String(contentsOf: m.log, encoding: .utf8)) ?? "" }
        let waitFor = { (what: String, seconds: Double) in
            let deadline = Date().addingTimeInterval(seconds)
            while !log().contains(what) && Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        }
        waitFor("rtsp: playing", 20)
        Thread.sleep(forTimeInterval: 3)

        try cluster.rotatePassword(user: "rtprecv", to: "second-s3cret")
        try "second-s3cret\n".write(to: passwordFile, atomically: true, encoding: .utf8)
        kill(m.process.processIdentifier, SIGHUP)
        waitFor("connected again", 10)
        cluster.kill(0)
        try cluster.start(0)
        try cluster.awaitMetaLeader()
        Thread.sleep(forTimeInterval: 8)
        m.process.terminate()
        m.process.waitUntilExit()

        let said = log()
        XCTAssertEqual(m.process.terminationStatus, 0, said)
        XCTAssertTrue(said.contains("the fleet connects to NATS again with the new servers or credentials"), said)
        XCTAssertTrue(said.contains("connected again, through"), said)
        XCTAssertEqual(said.components(separatedBy: "rtsp: playing").count, 2, "one run of the camera throughout: \(said)")
        XCTAssertFalse(said.contains("s3cret"), "no password in the log")
        let files = try recordings(in: directory)
        let segments = Dictionary(grouping: try fleetEvents("nats://rtprecv:second-s3cret@127.0.0.1:\(cluster.clientPorts[0])")
            .filter { $0["event"] as? String == "segment" }) { $0["path"] as? String ?? "" }
        XCTAssertGreaterThan(files.count, 6)
        for file in files {
            XCTAssertEqual(segments[file.path]?.count, 1, "one event for \(file.path)")
        }
    }

    private func member(_ name: String, cluster: NATSCluster, rtspPort: UInt16, directory: URL, cameras: Int = 6,
                        servers: [String]? = nil, secret: Bool = true, passwordFile: URL? = nil, ttl: Int = 5, tag: String = "",
                        index: Bool = false) throws -> Member {
        let config = Harness.temporaryFile("fleet-\(name)\(tag).yml")
        try """
        nats:
          servers: [\((servers ?? cluster.urls).joined(separator: ", "))]
          member: \(name)
          ttl-seconds: \(ttl)
          replicas: \(min(3, cluster.urls.count))

        """.appending(!secret ? "" : "  user: rtprecv\n" + (passwordFile.map { "  password-file: \($0.path)\n" }
                                                          ?? "  password-env: FLEET_TEST_NATS_PASSWORD\n")).appending("""
        defaults:
          mp4: \(directory.path)/{source}-{member}-{start}.mp4
          segment-seconds: 2
        \(index ? "  segment-index: \(directory.path)/{source}-{member}-index.jsonl\n" : "")
          rtsp-transport: tcp
          reconnect: true
        sources:

        """).appending((0..<cameras).map { "  - {name: cam\($0), rtsp: 'rtsp://127.0.0.1:\(rtspPort)/cam\($0)'}\n" }.joined())
            .write(to: config, atomically: true, encoding: .utf8)
        return try launch(config, member: name, log: "fleet-\(name)\(tag).log")
    }

    /// rtprecv running `config`, its messages in the file `log`.
    private func launch(_ config: URL, member name: String, log: String) throws -> Member {
        let log = Harness.temporaryFile(log)
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let p = Process()
        p.executableURL = Harness.binary
        p.arguments = ["--config", config.path]
        p.environment = ProcessInfo.processInfo.environment.merging(["FLEET_TEST_NATS_PASSWORD": "s3cret-nats"]) { $1 }
        p.standardError = try FileHandle(forWritingTo: log)
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        return Member(name: name, process: p, log: log)
    }

    /// The MP4s in `directory`, each with its camera, member, start (from its name, in seconds) and
    /// ffprobe's duration and frame count.
    private func recordings(in directory: URL) throws -> [Recording] {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().compactMap { name in
            let parts = name.replacingOccurrences(of: ".mp4", with: "").split(separator: "-")
            guard parts.count == 3, let start = formatter.date(from: String(parts[2])) else { return nil }
            let path = directory.appendingPathComponent(name).path
            let probe = try Harness.run("ffprobe", ["-v", "error", "-select_streams", "v", "-count_frames", "-show_entries",
                                                    "stream=nb_read_frames:format=duration", "-of", "default=noprint_wrappers=1", path])
            let fields = Dictionary(String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n").compactMap { line -> (String, String)? in
                let kv = line.split(separator: "=", maxSplits: 1)
                return kv.count == 2 ? (String(kv[0]), String(kv[1])) : nil
            }, uniquingKeysWith: { a, _ in a })
            return Recording(camera: String(parts[0]), member: String(parts[1]), start: start.timeIntervalSince1970,
                             duration: Double(fields["duration"] ?? "") ?? 0, frames: Int(fields["nb_read_frames"] ?? "") ?? 0, path: path)
        }
    }
}
