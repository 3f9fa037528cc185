import Foundation
import XCTest

/// The built binary on a UDP port, fed by real senders on loopback (or in a network namespace this
/// test creates), stopped with SIGINT, its output checked with ffmpeg's framemd5.
final class LiveTests: XCTestCase {
    /// `rtprecv` listening in the background.
    final class Listener {
        let process = Process()
        let out: URL
        let errFile: URL
        private(set) var port: UInt16 = 0

        /// `writesOut`: whether it writes the elementary stream to `out` besides `arguments`' outputs.
        init(_ arguments: [String], prefix: [String] = [], name: String, outExtension: String = "h264", writesOut: Bool = true) throws {
            out = Harness.temporaryFile(name + "." + outExtension)
            errFile = Harness.temporaryFile(name + ".err")
            _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
            let arguments = (writesOut ? ["--out", out.path] : []) + arguments
            if prefix.isEmpty {
                process.executableURL = Harness.binary
                process.arguments = arguments
            } else {
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = prefix + [Harness.binary.path] + arguments
            }
            process.standardError = try FileHandle(forWritingTo: errFile)
            process.standardOutput = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                let text = stderr
                if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on udp ") }) {
                    let address = line.dropFirst("listening on udp ".count).split(separator: " ")[0]
                    port = UInt16(address.split(separator: ":").last!)!
                    return
                }
                if !process.isRunning { break }
                usleep(20_000)
            }
            XCTFail("rtprecv did not start listening: \(stderr)")
        }

        var stderr: String { (try? String(contentsOf: errFile, encoding: .utf8)) ?? "" }

        /// SIGINT, then the exit status.
        func stop() -> Int32 {
            if process.isRunning { process.interrupt() }
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    private func gstreamerSend(to host: String, port: UInt16, frames: Int = 60, source: URL,
                               prefix: [String] = [], extra: [String] = []) throws {
        let pipeline = ["-q", "videotestsrc", "is-live=true", "num-buffers=\(frames)", "pattern=ball",
                        "!", "video/x-raw,width=320,height=240,framerate=30/1,format=I420",
                        "!", "x264enc", "bitrate=600", "key-int-max=30", "bframes=0", "speed-preset=veryfast", "tune=zerolatency",
                        "!", "h264parse", "!", "video/x-h264,stream-format=byte-stream,alignment=au", "!", "tee", "name=t",
                        "t.", "!", "queue", "!", "filesink", "location=\(source.path)",
                        "t.", "!", "queue", "!", "rtph264pay", "config-interval=-1", "mtu=800", "pt=96",
                        "!", "udpsink", "host=\(host)", "port=\(port)"] + extra
        let result = try Harness.run(prefix.isEmpty ? "gst-launch-1.0" : "/usr/bin/env", prefix + ["gst-launch-1.0"].filter { _ in !prefix.isEmpty } + pipeline)
        XCTAssertEqual(result.status, 0, "gst-launch failed: \(result.stderr)")
    }

    private func assertOutput(_ listener: Listener, equals sources: [URL], file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(listener.stop(), 0, listener.stderr, file: file, line: line)
        var expected: [String] = []
        for source in sources { expected += try Harness.frameMD5(source) }
        XCTAssertFalse(expected.isEmpty, file: file, line: line)
        XCTAssertEqual(try Harness.frameMD5(listener.out), expected, listener.stderr, file: file, line: line)
    }

    /// Runs `body` in a network namespace of its own, set up by `commands` run inside it, with the
    /// prefix that runs a command there; skips where namespaces cannot be made.
    private func inNetworkNamespace(_ label: String, setup commands: [[String]], _ body: ([String]) throws -> Void) throws {
        try XCTSkipUnless(getuid() == 0, "creating a network namespace needs root")
        let namespace = "rtprecv-\(label)-\(getpid())"
        let add = try Harness.run("ip", ["netns", "add", namespace])
        try XCTSkipUnless(add.status == 0, "cannot create a network namespace here: \(add.stderr)")
        defer { _ = try? Harness.run("ip", ["netns", "delete", namespace]) }
        let inside = ["ip", "netns", "exec", namespace]
        for command in commands {
            let r = try Harness.run("/usr/bin/env", inside + command)
            XCTAssertEqual(r.status, 0, "\(command): \(r.stderr)")
        }
        try body(inside)
    }

    /// Loopback up and multicast on, with `routes` through it.
    private static func loopbackMulticast(routes: [String]) -> [[String]] {
        [["ip", "link", "set", "lo", "up"], ["ip", "link", "set", "lo", "multicast", "on"]]
            + routes.map { ["ip", "route", "add", $0, "dev", "lo"] }
    }

    func testGStreamerSenderOverIPv4() throws {
        let listener = try Listener(["--port", "0"], name: "gst4")
        let source = Harness.temporaryFile("gst4-source.h264")
        try gstreamerSend(to: "127.0.0.1", port: listener.port, source: source)
        try assertOutput(listener, equals: [source])
        XCTAssertTrue(listener.stderr.contains("stopped by SIGINT"), listener.stderr)
    }

    /// VP8 from GStreamer's rtpvp8pay, live with no SDP and no --codec: known by its keyframe, and
    /// every frame written to the IVF as the encoder made it.
    func testGStreamerVP8SenderIsFoundAndWrittenAsIVF() throws {
        let listener = try Listener(["--port", "0"], name: "gst-vp8-live", outExtension: "ivf")
        let source = Harness.temporaryFile("gst-vp8-live-source.webm")
        let result = try Harness.run("gst-launch-1.0", [
            "-q", "videotestsrc", "is-live=true", "num-buffers=60", "pattern=ball",
            "!", "video/x-raw,width=320,height=240,framerate=30/1", "!", "vp8enc", "deadline=1", "keyframe-max-dist=30",
            "!", "tee", "name=t", "t.", "!", "queue", "!", "webmmux", "!", "filesink", "location=\(source.path)",
            "t.", "!", "queue", "!", "rtpvp8pay", "picture-id-mode=15-bit", "mtu=600",
            "!", "udpsink", "host=127.0.0.1", "port=\(listener.port)"])
        XCTAssertEqual(result.status, 0, "gst-launch failed: \(result.stderr)")
        try assertOutput(listener, equals: [source])
        XCTAssertTrue(listener.stderr.contains("video      VP8 Profile 0, 320x240"), listener.stderr)
    }

    /// A datagram keeps the time the kernel took it in: a loop that gathers 100 ms a turn measures
    /// the jitter of a paced sender as it is (a millisecond or two), not its own waits (13 ms when
    /// every datagram of a turn was timed at the turn), and writes every frame.
    func testAGatheringLoopMeasuresTheSendersJitterNotItsOwn() throws {
        let stats = Harness.temporaryFile("gathered-live.json")
        let listener = try Listener(["--port", "0", "--batch-ms", "100", "--stats-json", stats.path], name: "gathered-live")
        let source = Harness.temporaryFile("gathered-live-source.h264")
        try gstreamerSend(to: "127.0.0.1", port: listener.port, frames: 90, source: source)
        try assertOutput(listener, equals: [source])
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        XCTAssertEqual(root["batch_ms"] as? Int, 100)
        let jitter = ((root["streams"] as? [[String: Any]])?.first?["jitter_ms"] as? Double) ?? .infinity
        XCTAssertLessThan(jitter, 6, listener.stderr)
        XCTAssertTrue(listener.stderr.contains("input gathered 100 ms a turn (--batch-ms), which the write latency includes"), listener.stderr)
    }

    func testGStreamerSenderOverIPv6Loopback() throws {
        let listener = try Listener(["--port", "0", "--bind", "::1"], name: "gst6")
        let source = Harness.temporaryFile("gst6-source.h264")
        try gstreamerSend(to: "::1", port: listener.port, source: source)
        try assertOutput(listener, equals: [source])
    }

    func testFFmpegSenderWithBFramesAndSDP() throws {
        let mkv = Harness.temporaryFile("ff.mkv"), source = Harness.temporaryFile("ff.h264"), sdp = Harness.temporaryFile("ff.sdp")
        var r = try Harness.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "2",
                                           "-c:v", "libx264", "-preset", "veryfast", "-bf", "2", "-g", "30",
                                           "-flags", "+global_header", mkv.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        r = try Harness.run("ffmpeg", ["-v", "error", "-y", "-i", mkv.path, "-c", "copy", "-bsf:v", "h264_mp4toannexb", source.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        // The SDP (with sprop-parameter-sets) comes from a first, tiny run to the discard port.
        r = try Harness.run("ffmpeg", ["-v", "error", "-y", "-i", mkv.path, "-c", "copy", "-frames:v", "1", "-f", "rtp",
                                       "-sdp_file", sdp.path, "rtp://127.0.0.1:9"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let listener = try Listener(["--port", "0", "--sdp", sdp.path], name: "ff")
        r = try Harness.run("ffmpeg", ["-v", "error", "-re", "-i", mkv.path, "-c", "copy", "-f", "rtp",
                                       "rtp://127.0.0.1:\(listener.port)"])
        XCTAssertEqual(r.status, 0, r.stderr)
        usleep(200_000)
        try assertOutput(listener, equals: [source])
    }

    /// FFmpeg with -c copy from a raw .h264 with B-frames: its demuxer gives no timestamps, so every
    /// frame goes out with one RTP timestamp. Times come from the SPS VUI instead.
    func testFFmpegCopyOfARawH264WithoutTimestampsIsTimedFromTheVUI() throws {
        let source = Harness.captures.appendingPathComponent("ffmpeg-bframes.h264")
        let flv = Harness.temporaryFile("stuck.flv"), y4m = Harness.temporaryFile("stuck.y4m")
        let ledger = Harness.temporaryFile("stuck.jsonl")
        let listener = try Listener(["--port", "0", "--bind", "127.0.0.1", "--flv", flv.path, "--y4m", y4m.path,
                                     "--frames-json", ledger.path], name: "stuck")
        let r = try Harness.run("ffmpeg", ["-v", "error", "-re", "-i", source.path, "-c", "copy", "-f", "rtp",
                                           "rtp://127.0.0.1:\(listener.port)"])
        XCTAssertEqual(r.status, 0, r.stderr)
        usleep(200_000)
        try assertOutput(listener, equals: [source])
        XCTAssertTrue(listener.stderr.contains("timing from the SPS VUI (30 frames/s)"), listener.stderr)
        try Harness.assertTagTimesStepByAFrame(flv, frames: 120)
        XCTAssertEqual(try Harness.frameMD5(flv), try Harness.frameMD5(source))
        XCTAssertTrue(try Harness.y4mHeader(y4m).hasPrefix("YUV4MPEG2 W320 H240 F30:1 "))
        // The ledger, written line by line live: every frame, in display order a frame apart.
        let records = try Harness.ledger(ledger)
        XCTAssertEqual(records.map(\.status), Array(repeating: "written", count: 120))
        XCTAssertEqual(records.map(\.pts_ms).sorted(), (0..<120).map { $0 * 100 / 3 })
    }

    /// FFmpeg sending its RTCP to the RTP port (rtcp-mux, RFC 5761): counted apart, the video intact.
    func testFFmpegSenderWithRTCPMultiplexedOnThePort() throws {
        let source = Harness.temporaryFile("mux-source.h264"), stats = Harness.temporaryFile("mux-stats.json")
        var r = try Harness.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "1",
                                           "-c:v", "libx264", "-preset", "veryfast", "-bf", "0", "-g", "15", source.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let listener = try Listener(["--port", "0", "--bind", "127.0.0.1", "--stats-json", stats.path], name: "mux")
        r = try Harness.run("ffmpeg", ["-v", "error", "-re", "-framerate", "30", "-i", source.path, "-c", "copy", "-f", "rtp",
                                       "rtp://127.0.0.1:\(listener.port)?rtcpport=\(listener.port)"])
        XCTAssertEqual(r.status, 0, r.stderr)
        usleep(200_000)
        try assertOutput(listener, equals: [source])
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        XCTAssertGreaterThanOrEqual(json["rtcp"] as! Int, 1, listener.stderr)
        XCTAssertFalse(listener.stderr.contains("other streams"), listener.stderr)
        // FFmpeg sends a sender report with the first packet: it reaches the stream.
        XCTAssertGreaterThanOrEqual((json["rtcp_packets"] as! [String: Int])["sender reports"]!, 1)
        let stream = (json["streams"] as! [[String: Any]])[0]
        XCTAssertGreaterThanOrEqual(stream["sender_reports"] as! Int, 1, listener.stderr)
    }

    func testSenderRestartMidStreamContinuesWithTheNewSender() throws {
        let listener = try Listener(["--port", "0"], name: "restart")
        let first = Harness.temporaryFile("restart-1.h264"), second = Harness.temporaryFile("restart-2.h264")
        try gstreamerSend(to: "127.0.0.1", port: listener.port, frames: 45, source: first)
        try gstreamerSend(to: "127.0.0.1", port: listener.port, frames: 45, source: second)
        try assertOutput(listener, equals: [first, second])
        XCTAssertTrue(listener.stderr.contains("1 ssrc changes"), listener.stderr)
    }

    func testSourceFilterDropsOtherSenders() throws {
        let listener = try Listener(["--port", "0", "--source", "127.0.0.2"], name: "filtered")
        try gstreamerSend(to: "127.0.0.1", port: listener.port, frames: 10, source: Harness.temporaryFile("filtered-source.h264"))
        XCTAssertEqual(listener.stop(), 3, "every packet was filtered: no RTP came")
        XCTAssertEqual(try Data(contentsOf: listener.out).count, 0)
        XCTAssertTrue(listener.stderr.contains("from other senders dropped (--source)"), listener.stderr)

        let accepting = try Listener(["--port", "0", "--source", "127.0.0.1"], name: "accepted")
        let source = Harness.temporaryFile("accepted-source.h264")
        try gstreamerSend(to: "127.0.0.1", port: accepting.port, frames: 10, source: source)
        try assertOutput(accepting, equals: [source])
    }

    func testFramesLimitStopsAfterExactlyThatMany() throws {
        let listener = try Listener(["--port", "0", "--frames", "10"], name: "frames")
        let source = Harness.temporaryFile("frames-source.h264")
        try gstreamerSend(to: "127.0.0.1", port: listener.port, frames: 40, source: source)
        listener.process.waitUntilExit()
        XCTAssertEqual(listener.process.terminationStatus, 0, listener.stderr)
        XCTAssertEqual(try Harness.frameMD5(listener.out), Array(try Harness.frameMD5(source).prefix(10)))
        XCTAssertTrue(listener.stderr.contains("stopped after 10 frames"), listener.stderr)
    }

    func testDurationStopsByItself() throws {
        let started = Date()
        let listener = try Listener(["--port", "0", "--duration", "0.5"], name: "duration")
        listener.process.waitUntilExit()
        XCTAssertEqual(listener.process.terminationStatus, 3, "nothing was sent: " + listener.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertTrue(listener.stderr.contains("stopped after 0.5 s"), listener.stderr)
    }

    func testTimeoutSaysSoAndExitsWhenAsked() throws {
        let listener = try Listener(["--port", "0", "--timeout", "0.3", "--exit-on-timeout"], name: "timeout")
        listener.process.waitUntilExit()
        XCTAssertEqual(listener.process.terminationStatus, 3, "nothing was sent: " + listener.stderr)
        XCTAssertTrue(listener.stderr.contains("no packets for 0.3 s"), listener.stderr)
        XCTAssertTrue(listener.stderr.contains("warning: no RTP packet came on udp [::]:"), listener.stderr)
    }

    /// A link-local IPv6 group needs its interface: here named as the address's zone, over a veth
    /// pair (the kernel does not loop IPv6 multicast back on lo).
    func testLinkLocalIPv6MulticastWithAZoneOverAVethPair() throws {
        let veth = [["sysctl", "-qw", "net.ipv6.conf.default.accept_dad=0"],
                    ["ip", "link", "add", "rtpa", "type", "veth", "peer", "name", "rtpb"],
                    ["ip", "link", "set", "rtpa", "up"], ["ip", "link", "set", "rtpb", "up"]]
        try inNetworkNamespace("ll", setup: veth) { inside in
            let unnamed = try Harness.run("/usr/bin/env", inside + [Harness.binary.path, "--port", "0", "--bind", "ff02::1234"])
            XCTAssertEqual(unnamed.status, 1)
            XCTAssertTrue(unnamed.stderr.contains("ff02::1234 is link-local: name its interface with --iface NAME"),
                          unnamed.stderr)

            let listener = try Listener(["--port", "0", "--bind", "ff02::1234%rtpb"], prefix: inside, name: "linklocal")
            XCTAssertTrue(listener.stderr.contains("joined multicast group [ff02::1234]"), listener.stderr)
            let source = Harness.temporaryFile("linklocal-source.h264")
            try gstreamerSend(to: "ff02::1234", port: listener.port, frames: 30, source: source, prefix: inside,
                              extra: ["multicast-iface=rtpa"])
            try assertOutput(listener, equals: [source])
        }
    }

    /// RFC 4607 source-specific multicast from an SDP's source-filter: the kernel itself drops the
    /// other sender, which an any-source listener on the same group and port does receive.
    func testSourceSpecificMulticastFromTheSDPInANetworkNamespace() throws {
        let setup = Self.loopbackMulticast(routes: ["232.0.0.0/8"]) + [["ip", "addr", "add", "10.9.9.9/32", "dev", "lo"]]
        try inNetworkNamespace("ssm", setup: setup) { inside in
            let sdp = Harness.temporaryFile("ssm.sdp")
            try """
            v=0
            o=- 0 0 IN IP4 127.0.0.1
            s=ssm
            c=IN IP4 232.7.7.7/1
            a=source-filter: incl IN IP4 232.7.7.7 127.0.0.1
            t=0 0
            m=video 0 RTP/AVP 96
            a=rtpmap:96 H264/90000

            """.write(to: sdp, atomically: true, encoding: .utf8)
            let specific = Harness.temporaryFile("ssm-specific.json"), any = Harness.temporaryFile("ssm-any.json")
            let ssm = try Listener(["--port", "0", "--sdp", sdp.path, "--iface", "lo", "--stats-json", specific.path],
                                   prefix: inside, name: "ssm")
            XCTAssertTrue(ssm.stderr.contains("joined multicast group 232.7.7.7:\(ssm.port), source-specific for 127.0.0.1"),
                          ssm.stderr)
            let asm = try Listener(["--port", "\(ssm.port)", "--bind", "232.7.7.7", "--iface", "lo", "--stats-json", any.path],
                                   prefix: inside, name: "asm")
            // The other sender: 40 RTP-looking datagrams from 10.9.9.9.
            let other = """
            import socket, struct
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind(("10.9.9.9", 0))
            s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("10.9.9.9"))
            for i in range(40):
                s.sendto(struct.pack(">BBHII", 0x80, 96, i, i * 3000, 0x0BAD) + bytes(100), ("232.7.7.7", \(ssm.port)))
            """
            let sent = try Harness.run("/usr/bin/env", inside + ["python3", "-c", other])
            XCTAssertEqual(sent.status, 0, sent.stderr)
            let source = Harness.temporaryFile("ssm-source.h264")
            try gstreamerSend(to: "232.7.7.7", port: ssm.port, frames: 30, source: source, prefix: inside,
                              extra: ["multicast-iface=lo", "bind-address=127.0.0.1"])
            try assertOutput(ssm, equals: [source])
            XCTAssertEqual(asm.stop(), 0, asm.stderr)
            func counts(_ url: URL) throws -> (datagrams: Int, otherSender: Int) {
                let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
                return (json["datagrams"] as! Int, json["other_sender"] as! Int)
            }
            let (specificCounts, anyCounts) = (try counts(specific), try counts(any))
            XCTAssertEqual(specificCounts.otherSender, 0, "the kernel, not rtprecv, should have dropped the other sender")
            XCTAssertEqual(anyCounts.datagrams, specificCounts.datagrams + 40, asm.stderr)
            XCTAssertGreaterThan(specificCounts.datagrams, 30)
        }
    }

    func testPortInUseIsAOneLineErrorNamingIt() throws {
        let first = try Listener(["--port", "0", "--bind", "127.0.0.1"], name: "busy")
        defer { _ = first.stop() }
        let result = try Harness.rtprecv(["--port", "\(first.port)", "--bind", "127.0.0.1"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("127.0.0.1:\(first.port)"), result.stderr)
        XCTAssertTrue(result.stderr.contains("Address already in use"), result.stderr)
    }

    func testMulticastGroupInANetworkNamespace() throws {
        try inNetworkNamespace("mcast", setup: Self.loopbackMulticast(routes: ["239.0.0.0/8"])) { inside in
            let listener = try Listener(["--port", "0", "--bind", "239.7.7.7", "--iface", "lo"], prefix: inside, name: "mcast")
            XCTAssertTrue(listener.stderr.contains("joined multicast group 239.7.7.7"), listener.stderr)
            let source = Harness.temporaryFile("mcast-source.h264")
            try gstreamerSend(to: "239.7.7.7", port: listener.port, frames: 30, source: source, prefix: inside,
                              extra: ["multicast-iface=lo", "auto-multicast=true"])
            try assertOutput(listener, equals: [source])
        }
    }
}
