import Foundation
import XCTest

/// `--config FILE`: sources named in YAML, checked by the command line's own parser, every error
/// at its file, line and column with exit status 64, secrets never shown; and several sources run
/// side by side in one process, each as it would run alone.
final class ConfigTests: XCTestCase {
    private func config(_ name: String, _ text: String) throws -> URL {
        let url = Harness.temporaryFile(name + ".yml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Malformed YAML, wrong types and wrong names: an error naming the line and column of the fault,
    /// exit status 64, and no crash (aliases that repeat without end included).
    func testEveryErrorNamesItsLineAndColumn() throws {
        let cases: [(text: String, at: String, says: String)] = [
            ("sources:\n  - name: x\n    port: [5004\n", ":4:1:", "flow sequence"),
            ("sources:\n  - name: x\n    port: 5004\n    segment-seconds: soon\n", ":4:22:", "invalid value 'soon' for '--segment-seconds'"),
            ("sources:\n  - name: x\n    port: 5004\n    decode: 3\n", ":4:13:", "'decode' is on or off"),
            ("sources:\n  - name: x\n    port: 5004\n    colour: red\n", ":4:5:", "unknown setting 'colour'"),
            ("sources:\n  - name: x\n    port: 5004\n    out: [a, [b]]\n", ":4:14:", "'out' takes one value"),
            ("sources:\n  - name: a b\n    port: 5004\n", ":2:11:", "invalid source name 'a b'"),
            ("sources:\n  - port: 5004\n", ":2:5:", "without a name"),
            ("sources:\n  - name: x\n    out: x.h264\n", ":2:5:", "nothing to receive"),
            ("sources:\n  - name: x\n    port: 5004\n  - name: x\n    port: 5006\n", ":4:5:", "a second source named 'x'"),
            ("sources:\n  - name: x\n    port: 5004\n    port: 5006\n", ":4:5:", "'port' a second time"),
            ("sources:\n  - {name: x, port: 5004, out: same.h264}\n  - {name: y, port: 5006, out: same.h264}\n", ":3:5:",
             "would both write 'same.h264'"),
            ("sources:\n  - {name: x, port: 5004}\n  - {name: y, port: 5000-5010}\n", ":3:5:", "both listen on port 5004"),
            ("sources:\n  - name: x\n    rtsp: rtsp://admin:hunter22@127.0.0.1/x\n", ":3:11:", "keep the password out of the config"),
            ("sources:\n  - name: x\n    rtsp: rtsp://127.0.0.1/x\n    password: hunter22\n", ":4:5:", "keep secrets out of the config"),
            ("sources:\n  - name: x\n    rtsp: rtsp://127.0.0.1/x\n    password-env: RTPRECV_TEST_UNSET\n", ":4:19:",
             "the environment has no RTPRECV_TEST_UNSET"),
            ("sources:\n  - name: x\n    port: 5004\n    segment-seconds: 60\n    out: x.h264\n", ":2:5:", "source 'x': '--segment-seconds'"),
            ("a: &a [*a, *a]\n", ":1:", "nested deeper than 64"),
            ("a: &a [1, 2]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b]\n"
             + "d: &d [*c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e]\n",
             ":", "more than 100000 nodes"),
            ("sources: 3\n", ":1:10:", "'sources' is a list"),
            ("sources:\n  - name: x\n    sdp: /nonexistent/cam.sdp\n", ":3:10:", "/nonexistent/cam.sdp: no such file"),
            ("sources:\n  - {name: x, port: 5004, metrics: 9464}\n", ":2:27:", "put it at the top of the config"),
            ("metrics: 70000\nsources:\n  - {name: x, port: 5004}\n", ":1:10:", "invalid value '70000' for '--metrics'"),
            ("- 1\n", ":1:1:", "the config is a mapping"),
            ("sources:\n  - name: x\n    port: 5004\n---\nsources: []\n", ":5:1:", "a second YAML document"),
            ("defaults:\n  pcap: x.pcap\nsources:\n  - {name: x, port: 5004}\n", ":2:3:", "'pcap' is for the command line"),
            ("sources:\n  - name: x\n    port: 5004\n    out: \u{1}\n", ":4:10:", "control characters are not allowed"),
            ("nats:\n  servers: nats://rtprecv:hunter22@127.0.0.1:4222\nsources:\n  - {name: x, port: 5004}\n", ":2:12:",
             "keep credentials out of the server's URL"),
            ("nats:\n  servers: http://127.0.0.1:4222\nsources:\n  - {name: x, port: 5004}\n", ":2:12:", "is no NATS server"),
            ("nats:\n  ttl-seconds: 0\nsources:\n  - {name: x, port: 5004}\n", ":2:16:", "'ttl-seconds' is a whole number from 1 to 300"),
            ("nats:\n  ttl: 5\nsources:\n  - {name: x, port: 5004}\n", ":2:3:", "unknown setting 'ttl' of 'nats'"),
            ("nats:\n  token: hunter22\nsources:\n  - {name: x, port: 5004}\n", ":2:3:", "keep secrets out of the config"),
            ("nats:\n  member: 'a/b'\n  servers: nats://h:4222\nsources:\n  - {name: x, port: 5004}\n", ":2:11:",
             "invalid a member's name 'a/b'"),
            ("nats:\n  member: a\nsources:\n  - {name: x, port: 5004}\n", ":2:3:", "'nats' without 'servers'"),
            ("sources:\n  - {name: x, port: 5004, out: '{member}.h264'}\n", ":2:32:", "{member} is a fleet member's name"),
            ("sources:\n  - {name: x, port: 5004, nats: {servers: nats://h:4222}}\n", ":2:27:", "put it at the top of the config"),
        ]
        for (i, c) in cases.enumerated() {
            let url = try config("config-error-\(i)", c.text)
            let r = try Harness.rtprecv(["--config", url.path, "--check"])
            XCTAssertEqual(r.status, 64, "case \(i): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(url.path + c.at), "case \(i) at \(c.at): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(c.says), "case \(i) says '\(c.says)': \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("hunter22"), "case \(i) shows the password: \(r.stderr)")
        }
        // Not UTF-8: where, by line and column, though libyaml's reader counts bytes.
        let url = Harness.temporaryFile("config-not-utf8.yml")
        try Data("sources:\n  - name: ".utf8 + [0xFF, 0xFE]).write(to: url)
        let r = try Harness.rtprecv(["--config", url.path, "--check"])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains(url.path + ":2:11: invalid leading UTF-8 octet"), r.stderr)
        // One file by two spellings is one file; /dev/null is no file to share.
        let twice = try config("config-one-file", "sources:\n  - {name: x, port: 5004, out: a.h264}\n  - {name: y, port: 5006, out: ./a.h264}\n")
        XCTAssertTrue(try Harness.rtprecv(["--config", twice.path, "--check"]).stderr.contains("would both write './a.h264'"))
        let null = try config("config-dev-null", "sources:\n  - {name: x, port: 5004, out: /dev/null}\n  - {name: y, port: 5006, out: /dev/null}\n")
        let shared = try Harness.rtprecv(["--config", null.path, "--check"])
        XCTAssertEqual(shared.status, 0, shared.stderr)
    }

    /// --check lists each source with what it receives and writes, its secrets read and never shown.
    func testCheckListsTheSourcesWithoutTheirSecrets() throws {
        let password = Harness.temporaryFile("config-password")
        try "s3cret-door\n".write(to: password, atomically: true, encoding: .utf8)
        let keys = Harness.temporaryFile("config-keys")
        try "AES_CM_128_HMAC_SHA1_80:WbTBosdVUZqEb6Htqhn+m3z7wUh4RJVR8nE15GbN\n".write(to: keys, atomically: true, encoding: .utf8)
        setenv("RTPRECV_TEST_PASSWORD", "s3cret-yard", 1)
        let url = try config("config-check", """
            defaults:
              mp4: rec/{source}-{start}.mp4
              segment-seconds: 60
            sources:
              - name: door
                rtsp: rtsp://127.0.0.1:8554/door
                reconnect: true
                user: admin
                password-file: \(password.path)
              - name: yard
                rtsp: rtsp://127.0.0.1:8554/yard
                user: admin
                password-env: RTPRECV_TEST_PASSWORD
                reconnect: false
              - name: call
                port: 5004
                codec: h264
                srtp-key-file: \(keys.path)
                mp4: call-{n}.mp4
                segment-seconds: 3600
                fragment-ms: 500

            """)
        let r = try Harness.rtprecv(["--config", url.path, "--check"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let text = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(text.contains("3 sources, valid"), text)
        XCTAssertTrue(text.contains("door: rtsp rtsp://127.0.0.1:8554/door; --mp4 rec/door-{start}.mp4"), text)
        XCTAssertTrue(text.contains("yard: rtsp rtsp://127.0.0.1:8554/yard; --mp4 rec/yard-{start}.mp4"), text)
        XCTAssertTrue(text.contains("call: port 5004; --mp4 call-{n}.mp4"), text)
        for secret in ["s3cret", "WbTBosdVUZqEb6Htqhn"] { XCTAssertFalse(text.contains(secret) || r.stderr.contains(secret), secret) }
        // Beside --config, only --check.
        let beside = try Harness.rtprecv(["--config", url.path, "--out", "x.h264"])
        XCTAssertEqual(beside.status, 64)
        XCTAssertTrue(beside.stderr.contains("with --config, settings go in the file"), beside.stderr)
        // A service's unit passes -q.
        XCTAssertEqual(try Harness.rtprecv(["-q", "--config", url.path, "--check"]).status, 0)
    }

    /// Two RTSP cameras, a camera that refuses, one not up yet (waited for with reconnect), and an
    /// SDP session on UDP, in one process: each source's file is the capture's frames bit for bit,
    /// the refused one fails alone (exit 1), and every line says whose it is (a try's own thread's
    /// too, under verbose). The process's one metrics endpoint serves every source, as promtool
    /// reads it, and a live page with a section a source and their pictures; the camera not up yet
    /// is said to be set up, with why its last try failed.
    func testSourcesRunSideBySideInOneProcess() throws {
        let base = UInt16(41000 + Int(getpid() % 400) * 10)
        let capture = Harness.captures.appendingPathComponent("ffmpeg-mode0")
        let cameras = try [base, base + 2].map { port in
            try Harness.startServer("fake-camera", ["--port", "\(port)", "--pcap", capture.path + ".pcap", "--sdp", capture.path + ".sdp"]
                                    + (port == base ? [] : ["--quirk", "basic"]))
        }
        defer { for c in cameras { c.terminate(); c.waitUntilExit() } }
        let sdp = Harness.temporaryFile("config-lab.sdp")
        try String(contentsOf: URL(fileURLWithPath: capture.path + ".sdp"), encoding: .utf8)
            .replacingOccurrences(of: "m=video 5008", with: "m=video \(base + 6)").write(to: sdp, atomically: true, encoding: .utf8)
        let password = Harness.temporaryFile("config-yard-password")
        try "secret\n".write(to: password, atomically: true, encoding: .utf8)
        let directory = try Harness.emptyDirectory("config-run")
        let url = try config("config-run", """
            metrics: 127.0.0.1:\(base + 8)
            defaults:
              out: \(directory.path)/{source}.h264
              stats-json: \(directory.path)/{source}.json
              duration: 6
              batch-ms: 40
            sources:
              - name: door
                rtsp: rtsp://127.0.0.1:\(base)/cam
                verbose: on
              - name: yard
                rtsp: rtsp://127.0.0.1:\(base + 2)/cam
                user: user
                password-file: \(password.path)
              - name: refused
                rtsp: rtsp://127.0.0.1:\(base + 4)/cam
              - name: booting
                rtsp: rtsp://127.0.0.1:\(base + 5)/cam
                reconnect: on
              - name: lab
                sdp: \(sdp.path)

            """)
        let sender = try CaptureSender.start(base: base + 6, count: 1, capture: "ffmpeg-mode0.pcap")
        defer { sender.waitUntilExit() }
        final class Served: @unchecked Sendable { var pages: [String: (status: String, body: Data)] = [:] }
        let served = Served()
        let fetched = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 3) {
            for path in ["/metrics", "/healthz", "/", "/snapshot/door/45399443.jpg"] {
                let r = try? Harness.run("curl", ["-s", "-o", "-", "-w", "%{http_code}", "http://127.0.0.1:\(base + 8)\(path)"])
                let out = r?.stdout ?? Data()
                served.pages[path] = (String(decoding: out.suffix(3), as: UTF8.self), out.dropLast(3))
            }
            fetched.signal()
        }
        let r = try Harness.rtprecv(["--config", url.path])
        fetched.wait()
        try checkServed(served.pages)
        XCTAssertEqual(r.status, 1, "the refused camera fails the run, alone: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("[refused] rtprecv: error: rtsp://127.0.0.1:\(base + 4)/cam"), r.stderr)
        XCTAssertTrue(r.stderr.contains("[booting] rtprecv: error: stopped after 6.0 s before the session could be set up: "), r.stderr)
        XCTAssertTrue(r.stderr.contains("[door] rtsp: > DESCRIBE rtsp://127.0.0.1:\(base)/cam"), "a try's thread speaks as its source: \(r.stderr)")
        XCTAssertTrue(r.stderr.hasSuffix("rtprecv: 5 sources: door, yard, lab: ended as asked; refused, booting: failed\n"), r.stderr)
        let want = try Harness.frameMD5(Harness.captures.appendingPathComponent("ffmpeg-mode0.h264"))
        for name in ["door", "yard", "lab"] {
            XCTAssertEqual(try Harness.frameMD5(directory.appendingPathComponent(name + ".h264")), want, "\(name): every frame, bit for bit")
            XCTAssertTrue(r.stderr.contains("[\(name)]   frames     120 written"), "\(name)'s report, said as its own: \(r.stderr)")
        }
        for line in r.stderr.split(separator: "\n") {
            XCTAssertTrue(["door", "yard", "refused", "booting", "lab"].contains { line.hasPrefix("[\($0)] ") } || line.hasPrefix("rtprecv: metrics on") || line.hasPrefix("rtprecv: 5 sources"),
                          "a line of no source: \(line)")
        }
        XCTAssertFalse(r.stderr.contains("secret"), r.stderr)
    }

    /// A config's camera over TCP into files gathers its input for 100 ms a turn unless told
    /// otherwise: a tenth of the wake-ups of one taken packet by packet (`batch-ms: 0`), and every
    /// frame of both bit for bit. One over UDP gathers too where the kernel granted a receive
    /// buffer of 2 MiB (as root), its jitter the sender's.
    func testACameraOverTCPIntoFilesWakesTenTimesASecond() throws {
        let base = UInt16(45000 + Int(getpid() % 400) * 8)
        let capture = Harness.captures.appendingPathComponent("ffmpeg-mode0")
        let cameras = try [base, base + 2, base + 4].map { port in
            try Harness.startServer("fake-camera", ["--port", "\(port)", "--pcap", capture.path + ".pcap", "--sdp", capture.path + ".sdp"])
        }
        defer { for c in cameras { c.terminate(); c.waitUntilExit() } }
        let directory = try Harness.emptyDirectory("config-gather")
        let url = try config("config-gather", """
            defaults:
              out: \(directory.path)/{source}.h264
              stats-json: \(directory.path)/{source}.json
              rtsp-transport: tcp
              duration: 6
            sources:
              - {name: gathered, rtsp: 'rtsp://127.0.0.1:\(base)/cam'}
              - {name: eager, rtsp: 'rtsp://127.0.0.1:\(base + 2)/cam', batch-ms: 0}
              - {name: overudp, rtsp: 'rtsp://127.0.0.1:\(base + 4)/cam', rtsp-transport: udp}

            """)
        let r = try Harness.rtprecv(["--config", url.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let want = try Harness.frameMD5(capture.appendingPathExtension("h264"))
        var turns: [String: Int] = [:]
        for name in ["gathered", "eager", "overudp"] {
            XCTAssertEqual(try Harness.frameMD5(directory.appendingPathComponent(name + ".h264")), want, "\(name): every frame, bit for bit")
            let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent(name + ".json"))) as! [String: Any]
            if name == "overudp" {
                let buffer = stats["receive_buffer_bytes"] as? Int ?? 0
                XCTAssertEqual(stats["batch_ms"] as? Int, buffer >= 2 << 20 ? 100 : 0, "a UDP camera gathers with a buffer of \(buffer) bytes")
                let jitter = ((stats["streams"] as? [[String: Any]])?.first?["jitter_ms"] as? Double) ?? .infinity
                XCTAssertLessThan(jitter, 6, "the sender's jitter, not the loop's waits")
                continue
            }
            XCTAssertEqual(stats["batch_ms"] as? Int, name == "gathered" ? 100 : 0, name)
            turns[name] = stats["turns"] as? Int
            if name == "gathered", let seconds = stats["seconds"] as? Double {
                XCTAssertLessThanOrEqual(Double(turns[name] ?? .max), seconds * 12, "ten turns a second, and the few RTCP asks for")
            }
        }
        XCTAssertLessThan(2 * (turns["gathered"] ?? .max), turns["eager"] ?? 0, "\(turns)")
        let said = r.stderr.split(separator: "\n").filter { $0.contains("input gathered 100 ms a turn (--batch-ms), which the jitter") }
        XCTAssertEqual(said.count, 1, "the summary says what the jitter includes: \(r.stderr)")
        XCTAssertTrue(said.first?.hasPrefix("[gathered] rtsp rtsp://127.0.0.1:\(base)/cam over TCP") == true, r.stderr)
    }

    /// SIGHUP reloads the config: a source removed stops, one changed starts again, one added
    /// starts, and the one untouched keeps every frame of the stream it is receiving meanwhile.
    func testAReloadLeavesTheUntouchedSourceWhole() throws {
        let base = UInt16(41000 + Int(getpid() % 400) * 10)
        let capture = Harness.captures.appendingPathComponent("ffmpeg-mode0")
        let sdp = Harness.temporaryFile("config-keep.sdp")
        try String(contentsOf: URL(fileURLWithPath: capture.path + ".sdp"), encoding: .utf8)
            .replacingOccurrences(of: "m=video 5008", with: "m=video \(base)").write(to: sdp, atomically: true, encoding: .utf8)
        let directory = try Harness.emptyDirectory("config-reload")
        let head = "defaults:\n  out: \(directory.path)/{source}.h264\n  stats-json: \(directory.path)/{source}.json\nsources:\n"
            + "  - {name: keep, sdp: \(sdp.path)}\n"
        let url = try config("config-reload", head + "  - {name: gone, port: \(base + 2), codec: h264}\n"
                             + "  - {name: changed, port: \(base + 4), codec: h264}\n")
        let errors = Harness.temporaryFile("config-reload.stderr")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let process = Process()
        process.executableURL = Harness.binary
        process.arguments = ["--config", url.path]
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        Thread.sleep(forTimeInterval: 0.7)
        let sender = try CaptureSender.start(base: base, count: 1, capture: "ffmpeg-mode0.pcap")
        Thread.sleep(forTimeInterval: 1.5)
        _ = try config("config-reload", head + "  - {name: changed, port: \(base + 4), codec: h264, out: \(directory.path)/changed-2.h264}\n"
                       + "  - {name: added, port: \(base + 6), codec: h264}\n")
        kill(process.processIdentifier, SIGHUP)
        sender.waitUntilExit()
        Thread.sleep(forTimeInterval: 0.5)
        process.terminate()
        process.waitUntilExit()
        let said = try String(contentsOf: errors, encoding: .utf8)
        // The sources that received nothing make the exit status 3; those stopped by the reload do not count.
        XCTAssertEqual(process.terminationStatus, 3, said)
        XCTAssertTrue(said.contains("reloaded: 'gone' removed, 'changed' changed, 'added' added"), said)
        XCTAssertTrue(said.contains("[gone] stopped: removed from the config"), said)
        XCTAssertTrue(said.contains("[changed] stopped: changed in the config"), said)
        XCTAssertEqual(said.components(separatedBy: "[keep] listening on udp [::]:\(base) (video RTP)").count, 2, "keep was not restarted: \(said)")
        XCTAssertEqual(try Harness.frameMD5(directory.appendingPathComponent("keep.h264")),
                       try Harness.frameMD5(Harness.captures.appendingPathComponent("ffmpeg-mode0.h264")), "keep lost no frame: \(said)")
        for name in ["keep", "gone", "changed", "added"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent(name + ".json").path),
                          "\(name) finished with its statistics")
        }
        // A config that no longer loads leaves the sources as they were.
        XCTAssertFalse(said.contains("did not reload"), said)
    }

    /// What the side-by-side run's endpoint served, 3 s in.
    private func checkServed(_ served: [String: (status: String, body: Data)]) throws {
        let metrics = try XCTUnwrap(served["/metrics"])
        XCTAssertEqual(metrics.status, "200")
        let text = String(decoding: metrics.body, as: UTF8.self)
        for name in ["door", "yard", "lab"] {
            XCTAssertTrue(text.contains("rtprecv_frames_written_total{source=\"\(name)\",ssrc=\"0x45399443\""), "\(name): \(text)")
            XCTAssertTrue(text.contains("rtprecv_source_up{source=\"\(name)\"} 1"), text)
        }
        XCTAssertTrue(text.contains("rtprecv_source_up{source=\"refused\"} 0"), text)
        XCTAssertTrue(text.contains("rtprecv_source_up{source=\"booting\"} 0"), text)
        XCTAssertTrue(text.contains("rtprecv_rtsp_setting_up{source=\"booting\"} 1"), text)
        XCTAssertTrue(text.contains("rtprecv_rtsp_setting_up{source=\"door\"} 0"), text)
        let file = Harness.temporaryFile("config-metrics.txt")
        try metrics.body.write(to: file)
        let check = try Harness.run("/bin/sh", ["-c", "promtool check metrics < \(file.path)"])
        XCTAssertEqual(check.status, 0, "promtool: \(check.stderr)\(String(decoding: check.stdout, as: UTF8.self))")
        let health = try XCTUnwrap(served["/healthz"])
        XCTAssertEqual(health.status, "503")
        let healthText = String(decoding: health.body, as: UTF8.self)
        let booting = try XCTUnwrap(healthText.range(of: #"booting: setting up rtsp://127\.0\.0\.1:\d+/cam: \d+ tries failed, the last: 127\.0\.0\.1:\d+: Connection refused\n"#,
                                                      options: .regularExpression), healthText)
        XCTAssertEqual(healthText.replacingCharacters(in: booting, with: ""), "refused: not receiving\n")
        let page = String(decoding: try XCTUnwrap(served["/"]).body, as: UTF8.self)
        for name in ["door", "yard", "refused", "booting", "lab"] { XCTAssertTrue(page.contains("data-source=\"\(name)\""), page) }
        XCTAssertTrue(page.contains("<p class=\"silent\">setting up rtsp://127.0.0.1:"), page)
        XCTAssertTrue(page.contains("src=\"/snapshot/door/45399443.jpg?k="), page)
        let picture = try XCTUnwrap(served["/snapshot/door/45399443.jpg"])
        XCTAssertEqual(picture.status, "200")
        XCTAssertEqual(Array(picture.body.prefix(2)), [0xFF, 0xD8], "a JPEG")
    }

    /// The README's config, as a new user copies it (its directories made here): --check takes it.
    /// The fleet configs of the README and of the Kubernetes manifest (its ConfigMap, read with
    /// PyYAML) pass --check, which names the member and where its claims go.
    func testTheFleetConfigsOfTheREADMEAndTheKubernetesManifestCheck() throws {
        let readme = try String(contentsOf: Harness.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "```yaml\n# fleet.yml"))
        let end = try XCTUnwrap(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let manifest = Harness.packageRoot.appendingPathComponent("contrib/kubernetes/rtprecv-fleet.yaml").path
        let extract = try Harness.run("/usr/bin/python3", ["-c", """
            import sys, yaml
            docs = list(yaml.safe_load_all(open(sys.argv[1])))
            assert [d["kind"] for d in docs] == ["ConfigMap", "Secret", "PersistentVolumeClaim", "Deployment"], docs
            print(docs[0]["data"]["fleet.yml"])
            """, manifest])
        XCTAssertEqual(extract.status, 0, extract.stderr)
        setenv("NATS_PASSWORD", "from-the-environment", 1)
        let texts = [String(readme[readme.index(start.lowerBound, offsetBy: 8)..<end.lowerBound]), String(decoding: extract.stdout, as: UTF8.self)]
        for (i, text) in texts.enumerated() {
            let r = try Harness.rtprecv(["--config", try config("config-fleet-\(i)", text).path, "--check"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let said = String(decoding: r.stdout, as: UTF8.self)
            XCTAssertTrue(said.contains("fleet: member '"), said)
            XCTAssertTrue(said.contains("(TTL 5 s, 3 replicas), events in RTPRECV_EVENTS"), said)
            XCTAssertFalse(said.contains("from-the-environment"), said)
        }
    }

    func testTheREADMEsConfigChecks() throws {
        let readme = try String(contentsOf: Harness.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "```yaml\n# cameras.yml"))
        let end = try XCTUnwrap(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let body = readme.index(start.lowerBound, offsetBy: "```yaml\n".count)
        let directory = try Harness.emptyDirectory("config-readme")
        try "AES_CM_128_HMAC_SHA1_80:WbTBosdVUZqEb6Htqhn+m3z7wUh4RJVR8nE15GbN\n"
            .write(to: directory.appendingPathComponent("call.key"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: Harness.captures.appendingPathComponent("ffmpeg-mode0.sdp"),
                                         to: directory.appendingPathComponent("call.sdp"))
        let text = String(readme[body..<end.lowerBound])
            .replacingOccurrences(of: "/etc/rtprecv/", with: directory.path + "/").replacingOccurrences(of: "/var/lib/rtprecv/", with: directory.path + "/")
        let url = try config("config-readme", text)
        setenv("DOOR_PASSWORD", "from-the-environment", 1)
        let r = try Harness.rtprecv(["--config", url.path, "--check"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(String(decoding: r.stdout, as: UTF8.self).contains("3 sources, valid"), r.stderr)
    }
}
