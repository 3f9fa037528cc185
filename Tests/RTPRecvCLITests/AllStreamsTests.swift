import Foundation
import XCTest

/// `--all-streams` on a capture of several senders at once, and live: every video stream gets its
/// own files, each frame-identical to the source it was sent from, whatever its codec.
final class AllStreamsTests: XCTestCase {
    private func capture(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    /// GStreamer sending `frames` of 320x240 test video live to `port` (`encode` ending in caps,
    /// `pay` the payloader with its properties), and writing what it encoded to `source`.
    private static func gstreamerSend(pattern: String, frames: Int, encode: String, pay: String, source: URL, port: UInt16) {
        let pipeline = "videotestsrc num-buffers=\(frames) pattern=\(pattern) is-live=true "
            + "! video/x-raw,width=320,height=240,framerate=30/1,format=I420 ! \(encode),stream-format=byte-stream,alignment=au "
            + "! tee name=t t. ! queue ! filesink location=\(source.path) "
            + "t. ! queue ! \(pay) config-interval=-1 ! udpsink host=127.0.0.1 port=\(port) sync=true"
        try? Harness.runSender(["-q"] + pipeline.split(separator: " ").map(String.init), seconds: 3)
    }

    func testEveryStreamOfFourSendersIsRecordedApartAndIdentical() throws {
        // Two H.264 and two H.265 senders on their own ports, and an Opus stream that is no video.
        let sources = [(pcap: "gst-stapa-fua.pcap", port: 5004, es: "gst-stapa-fua.h264", ext: "h264"),
                       (pcap: "ffmpeg-inband.pcap", port: 5014, es: "ffmpeg-inband.h264", ext: "h264"),
                       (pcap: "gst-h265-none.pcap", port: 5190, es: "gst-h265-none.h265", ext: "h265"),
                       (pcap: "ffmpeg-h265-inband.pcap", port: 5196, es: "ffmpeg-h265-inband.h265", ext: "h265")]
        let pcap = try TestPcap.merged(sources.map(\.pcap) + ["ffmpeg-opus.pcap"], name: "all-streams")
        let dir = try Harness.emptyDirectory("all-streams")
        // {codec}: no SDP tells it, so each stream's files are named once it proves its codec.
        let result = try Harness.rtprecv(["--pcap", pcap.path, "--out", dir.path + "/{port}-{ssrc}.{codec}",
                                          "--frames-json", dir.path + "/{port}-{ssrc}-{codec}.ndjson", "--stats-json", dir.path + "/stats.json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("all streams: 4 video of 5 streams followed"), result.stderr)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertEqual(files.filter { !$0.hasSuffix(".ndjson") && $0 != "stats.json" }.count, 4,
                       "one file a video stream, none for the Opus one: \(files)")
        XCTAssertFalse(files.contains { $0.contains("{codec}") }, "\(files)")
        for source in sources {
            let written = try XCTUnwrap(files.first { $0.hasPrefix("\(source.port)-") && $0.hasSuffix("." + source.ext) }, "\(files)")
            XCTAssertEqual(try Harness.frameMD5(dir.appendingPathComponent(written)), try Harness.frameMD5(capture(source.es)), source.pcap)
            let ledger = try Harness.ledger(dir.appendingPathComponent(written.replacingOccurrences(of: "." + source.ext,
                                                                                                   with: "-\(source.ext).ndjson")))
            XCTAssertTrue(!ledger.isEmpty && ledger.allSatisfy { $0.status == "written" }, source.pcap)
        }
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("stats.json"))) as? [String: Any]
        let streams = try XCTUnwrap(stats?["all_streams"] as? [[String: Any]])
        XCTAssertEqual(streams.count, 4)
        let codecs = streams.compactMap { ($0["streams"] as? [[String: Any]])?.first?["codec"] as? String }.sorted()
        XCTAssertEqual(codecs, ["h264", "h264", "h265", "h265"])
        // Segmented, the Opus stream leaves no segment either.
        let segments = Harness.temporaryFile("all-streams-segments")
        try? FileManager.default.removeItem(at: segments)
        try FileManager.default.createDirectory(at: segments, withIntermediateDirectories: true)
        let cut = try Harness.rtprecv(["--pcap", pcap.path, "--out", segments.path + "/{port}-{n}.{codec}", "--segment-seconds", "1", "-q"])
        XCTAssertEqual(cut.status, 0, cut.stderr)
        let cutFiles = try FileManager.default.contentsOfDirectory(atPath: segments.path)
        XCTAssertEqual(Set(cutFiles.map { $0.split(separator: "-")[0] }), ["5004", "5014", "5190", "5196"], "\(cutFiles)")
    }

    /// With --audio, each audio stream of a static payload type (G.711 of two senders here, no SDP)
    /// gets its own file, byte-identical to what one run of that sender's SDP writes.
    func testAudioStreamsAreRecordedApartBesideTheVideo() throws {
        let names = ["gst-h264-pcmu", "ffmpeg-h264-pcma"]
        let pcap = try TestPcap.merged(names.map { $0 + ".pcap" }, name: "all-streams-audio")
        let dir = try Harness.emptyDirectory("all-streams-audio")
        let r = try Harness.rtprecv(["--pcap", pcap.path, "--out", dir.path + "/{port}.h264", "--audio", dir.path + "/{port}.wav"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("all streams: 2 video and 2 audio of 4 streams followed"), r.stderr)
        for (name, port) in zip(names, [5132, 5162]) {
            let alone = Harness.temporaryFile("all-streams-audio-\(name).wav")
            let one = try Harness.rtprecv(["--pcap", capture(name + ".pcap").path, "--sdp", capture(name + ".sdp").path,
                                           "--audio", alone.path, "-q"])
            XCTAssertEqual(one.status, 0, one.stderr)
            let written = dir.appendingPathComponent("\(port).wav")
            XCTAssertEqual(try Data(contentsOf: written), try Data(contentsOf: alone), name)
            XCTAssertEqual(try Harness.decodeErrors(written), "", name)
            XCTAssertEqual(try Harness.packetMD5(written).count, try Harness.packetMD5(alone).count)
        }
        // The video beside the audio: GStreamer's, with its parameter sets in band, whole.
        let video = Harness.temporaryFile("all-streams-audio-video.h264")
        XCTAssertEqual(try Harness.rtprecv(["--pcap", capture("gst-h264-pcmu.pcap").path, "--out", video.path, "-q"]).status, 0)
        let frames = try Harness.frameMD5(dir.appendingPathComponent("5130.h264"))
        XCTAssertEqual(frames.count, 120)
        XCTAssertEqual(frames, try Harness.frameMD5(video))
    }

    /// One stream's output directory is missing: that stream is stopped and said, the others are
    /// written whole, and the run ends with exit status 1.
    func testAStreamWhoseOutputFailsStopsAloneAndTheOthersGoOn() throws {
        let sources = [(pcap: "gst-stapa-fua.pcap", port: 5004, es: "gst-stapa-fua.h264"),
                       (pcap: "ffmpeg-inband.pcap", port: 5014, es: "ffmpeg-inband.h264"),
                       (pcap: "gst-h265-none.pcap", port: 5190, es: "gst-h265-none.h265")]
        let pcap = try TestPcap.merged(sources.map(\.pcap), name: "all-streams-failing")
        let dir = Harness.temporaryFile("all-streams-failing")
        try? FileManager.default.removeItem(at: dir)
        // Port 5014's directory cannot be: a file is in its place.
        for port in [5004, 5190] {
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("\(port)"), withIntermediateDirectories: true)
        }
        try Data().write(to: dir.appendingPathComponent("5014"))
        let result = try Harness.rtprecv(["--pcap", pcap.path, "--out", dir.path + "/{port}/{ssrc}.es"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("stopped, the others go on"), result.stderr)
        XCTAssertTrue(result.stderr.contains("5014"), "the path that failed is named: \(result.stderr)")
        for source in sources where source.port != 5014 {
            let folder = dir.appendingPathComponent("\(source.port)")
            let written = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
            let typed = Harness.temporaryFile("all-streams-failing-\(source.port)." + (source.es as NSString).pathExtension)
            try? FileManager.default.removeItem(at: typed)
            try FileManager.default.copyItem(at: folder.appendingPathComponent(written), to: typed)
            XCTAssertEqual(try Harness.frameMD5(typed), try Harness.frameMD5(capture(source.es)), source.pcap)
        }
    }

    /// Live, one stream's output directory is made read-only mid-run: at its next segment that
    /// stream is stopped and said, what it wrote before stays, and the others are written whole.
    func testAStreamWhoseDirectoryTurnsReadOnlyMidRunStopsAlone() throws {
        let base = UInt16(44000 + Int(getpid() % 400) * 4)
        let dir = Harness.temporaryFile("read-only-mid-run")
        try? FileManager.default.removeItem(at: dir)
        let ports = Array(base..<(base + 3))
        for port in ports {
            let sub = dir.appendingPathComponent("\(port)")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            chmod(sub.path, 0o777)
        }
        chmod(dir.path, 0o755)
        // Root writes through any mode: rtprecv runs as nobody then, for the directory's mode to count
        // (setpriv execs it, so SIGINT reaches it).
        let listener = try LiveTests.Listener(["--port", "\(base)-\(base + 2)", "--bind", "127.0.0.1", "--segment-seconds", "1",
                                               "--out", dir.path + "/{port}/{n}.h264"],
                                              prefix: getuid() == 0 ? ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] : [],
                                              name: "read-only-mid-run")
        let sender = try CaptureSender.start(base: base, count: 3, capture: "ffmpeg-inband.pcap")
        // Keyframes 0.3, 1.3 and 2.3 s after the sender starts (it waits 0.3 s, then one a second):
        // between the second segment's start (its file appears) and the third's. A busy machine
        // starts the sender late, so the second segment is waited for rather than a fixed time.
        let second = dir.appendingPathComponent("\(base)/1.h264").path, deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: second) && Date() < deadline { usleep(20_000) }
        usleep(300_000)
        chmod(dir.appendingPathComponent("\(base)").path, 0o555)
        sender.waitUntilExit()
        XCTAssertEqual(sender.terminationStatus, 0)
        usleep(300_000)
        XCTAssertEqual(listener.stop(), 1, "a stream failed: " + listener.stderr)
        XCTAssertTrue(listener.stderr.contains("stream "), listener.stderr)
        let stopped = listener.stderr.split(separator: "\n").filter { $0.contains("stopped, the others go on") }
        XCTAssertEqual(stopped.count, 1, listener.stderr)
        XCTAssertTrue(stopped.first?.contains("on port \(base)") == true && stopped.first?.contains("\(base)/2.h264") == true,
                      listener.stderr)
        let source = try Harness.frameMD5(capture("ffmpeg-inband.h264"))
        func frames(_ port: UInt16) throws -> [String] {
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("\(port)").path)
                .sorted { Int($0.dropLast(5))! < Int($1.dropLast(5))! }
            return try names.flatMap { try Harness.frameMD5(dir.appendingPathComponent("\(port)/\($0)")) }
        }
        XCTAssertEqual(try frames(base), Array(source.prefix(60)), "the stopped stream keeps what it wrote")
        for port in ports.dropFirst() { XCTAssertEqual(try frames(port), source, "port \(port)") }
    }

    /// Three live senders on one port at once, two H.264 and one H.265, each its own SSRC.
    func testThreeLiveSendersOnOnePortAreRecordedApart() throws {
        let dir = try Harness.emptyDirectory("live-all-streams")
        let listener = try LiveTests.Listener(["--port", "0", "--out", dir.path + "/{ssrc}.es"], name: "live-all-streams")
        let senders: [(ssrc: UInt32, pattern: String, encode: String, pay: String, source: URL)] = [
            (0x1111, "ball", "x264enc key-int-max=30 tune=zerolatency speed-preset=ultrafast ! h264parse ! video/x-h264",
             "rtph264pay", Harness.temporaryFile("live-all-1111.h264")),
            (0x2222, "smpte", "x264enc key-int-max=30 tune=zerolatency speed-preset=ultrafast ! h264parse ! video/x-h264",
             "rtph264pay", Harness.temporaryFile("live-all-2222.h264")),
            (0x3333, "snow", "x265enc key-int-max=30 speed-preset=ultrafast option-string=bframes=0 ! h265parse ! video/x-h265",
             "rtph265pay", Harness.temporaryFile("live-all-3333.h265")),
        ]
        let port = listener.port
        DispatchQueue.concurrentPerform(iterations: senders.count) { i in
            let s = senders[i]
            Self.gstreamerSend(pattern: s.pattern, frames: 90, encode: s.encode, pay: "\(s.pay) ssrc=\(s.ssrc)", source: s.source, port: port)
        }
        usleep(300_000)
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        XCTAssertTrue(listener.stderr.contains("all streams: 3 video of 3 streams followed"), listener.stderr)
        for s in senders {
            let digits = String(s.ssrc, radix: 16)
            let written = dir.appendingPathComponent(String(repeating: "0", count: 8 - digits.count) + digits + ".es")
            let typed = Harness.temporaryFile("live-all-\(digits)-out." + s.source.pathExtension)
            try? FileManager.default.removeItem(at: typed)
            try FileManager.default.copyItem(at: written, to: typed)
            let expected = try Harness.frameMD5(s.source)
            XCTAssertEqual(expected.count, 90)
            XCTAssertEqual(try Harness.frameMD5(typed), expected, "SSRC \(digits)")
        }
    }

    /// Twenty live streams at once on twenty ports, ten of FFmpeg's H.264 and ten of GStreamer's
    /// H.265 (their captures sent at their own pace, an SSRC each): every file is its source's frames.
    func testTwentyLiveStreamsOfTwoCodecsAreEachTheirSource() throws {
        let base = UInt16(30000 + Int(getpid() % 100) * 40)
        let dir = try Harness.emptyDirectory("twenty-streams")
        let listener = try LiveTests.Listener(["--port", "\(base)-\(base + 19)", "--bind", "127.0.0.1",
                                               "--out", dir.path + "/{port}.{codec}"], name: "twenty-streams")
        let sources = [(capture: "ffmpeg-inband.pcap", es: "ffmpeg-inband.h264", first: base),
                       (capture: "gst-h265-none.pcap", es: "gst-h265-none.h265", first: base + 10)]
        let senders = try sources.map { try CaptureSender.start(base: $0.first, count: 10, capture: $0.capture) }
        for sender in senders {
            sender.waitUntilExit()
            XCTAssertEqual(sender.terminationStatus, 0)
        }
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        XCTAssertTrue(listener.stderr.contains("all streams: 20 video of 20 streams followed"), listener.stderr)
        for source in sources {
            let expected = try Harness.frameMD5(capture(source.es))
            XCTAssertFalse(expected.isEmpty)
            let ext = (source.es as NSString).pathExtension
            for port in source.first..<(source.first + 10) {
                XCTAssertEqual(try Harness.frameMD5(dir.appendingPathComponent("\(port).\(ext)")), expected, "port \(port)")
            }
        }
    }

    /// `--port LOW-HIGH`: senders on two ports of a range, each recorded apart by its port.
    func testAPortRangeListensOnEveryPortOfIt() throws {
        let base = UInt16(42000 + Int(getpid() % 500) * 4)
        let dir = try Harness.emptyDirectory("port-range")
        let listener = try LiveTests.Listener(["--port", "\(base)-\(base + 3)", "--out", dir.path + "/{port}.h264"], name: "port-range")
        XCTAssertTrue(listener.stderr.contains("(4 ports)"), listener.stderr)
        let sources = [(port: base, source: Harness.temporaryFile("port-range-a.h264")), (port: base + 2, source: Harness.temporaryFile("port-range-b.h264"))]
        DispatchQueue.concurrentPerform(iterations: sources.count) { i in
            Self.gstreamerSend(pattern: i == 0 ? "ball" : "smpte", frames: 60,
                               encode: "x264enc key-int-max=30 tune=zerolatency speed-preset=ultrafast ! h264parse ! video/x-h264",
                               pay: "rtph264pay", source: sources[i].source, port: sources[i].port)
        }
        usleep(300_000)
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        for s in sources {
            XCTAssertEqual(try Harness.frameMD5(dir.appendingPathComponent("\(s.port).h264")), try Harness.frameMD5(s.source), "port \(s.port)")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        XCTAssertEqual(files.count, 2, "nothing for the ports nobody sent to: \(files)")
    }

    /// A range of more ports than a shell's soft limit of open files: rtprecv raises it to the hard one.
    func testARangeOfMorePortsThanTheSoftFileLimitListens() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        try XCTSkipUnless(limit.rlim_max >= 1024, "the hard limit of open files is \(limit.rlim_max)")
        // Below the ephemeral ports (32768 on), which other sockets of the run take at random.
        let base = 24000 + Int(getpid() % 20) * 300
        let r = try Harness.run("/bin/sh", ["-c", "ulimit -Sn 128 && exec \(Harness.binary.path) --port \(base)-\(base + 299) "
                                            + "--bind 127.0.0.1 --out '/tmp/{port}.h264' --duration 0.3"])
        XCTAssertEqual(r.status, 3, "listened to the end, and no RTP came: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("to \(base + 299) (300 ports)"), r.stderr)
    }

    func testOutputsThatEveryStreamWouldShareAreRefused() throws {
        let result = try Harness.rtprecv(["--pcap", capture("gst-stapa-fua.pcap").path, "--all-streams", "--out", "/tmp/one.h264"])
        XCTAssertEqual(result.status, 64)
        XCTAssertTrue(result.stderr.contains("{ssrc}"), result.stderr)
        let rtsp = try Harness.rtprecv(["rtsp://127.0.0.1:9/x", "--all-streams", "--out", "/tmp/one.h264"])
        XCTAssertEqual(rtsp.status, 64)
        XCTAssertTrue(rtsp.stderr.contains("{ssrc}"), rtsp.stderr)
    }
}
