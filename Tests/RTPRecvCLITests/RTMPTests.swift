import Foundation
import XCTest

/// `--rtmp` against a real server: nginx with Debian's libnginx-mod-rtmp, recording every stream it
/// is sent, started by the test on a free loopback port. The recordings are read back with ffmpeg.
final class RTMPTests: XCTestCase {
    private func capture(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    /// One nginx with an `rtmp {}` block: application `live` records every publish into `directory`.
    final class Server {
        let directory: URL
        let port: UInt16
        private var process: Process?

        init(name: String) throws {
            try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/lib/nginx/modules/ngx_rtmp_module.so"),
                              "libnginx-mod-rtmp is not installed (scripts/setup installs it)")
            directory = Harness.temporaryFile("nginx-\(name)")
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            port = UInt16(41000 + Int(getpid() % 4000) * 2)
            try """
            load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
            daemon off;
            master_process off;
            error_log \(directory.path)/error.log info;
            pid \(directory.path)/nginx.pid;
            events { worker_connections 64; }
            rtmp {
                server {
                    listen 127.0.0.1:\(port);
                    application live {
                        live on;
                        record all;
                        record_path \(directory.path);
                        record_unique on;
                    }
                }
            }

            """.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            try start()
        }

        func start() throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            p.arguments = ["-p", directory.path, "-e", directory.appendingPathComponent("error.log").path,
                           "-c", directory.appendingPathComponent("nginx.conf").path]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            process = p
            for _ in 0..<100 {
                if Server.accepts(port) { return }
                usleep(50_000)
            }
            XCTFail("nginx did not listen on \(port): \((try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? "")")
        }

        /// Kills the server at once, as a crash would.
        func kill() {
            guard let process, process.isRunning else { return }
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        func signal(_ number: Int32) { if let process { Glibc.kill(process.processIdentifier, number) } }

        deinit { kill() }

        static func accepts(_ port: UInt16) -> Bool {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            return Harness.withLoopback(port: port) { connect(fd, $0, $1) } == 0
        }

        /// The recordings of stream `key`, oldest first, once nginx has closed them.
        func recordings(_ key: String) throws -> [URL] {
            try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
                .filter { $0.lastPathComponent.hasPrefix(key + "-") && $0.pathExtension == "flv" }
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
        }
    }

    private func statistics(_ url: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    }

    /// The MD5 of each decoded video frame (ffmpeg's framemd5, times left out: the server's start at 0).
    private func videoMD5(_ url: URL) throws -> [String] {
        try SyncProbe.lines("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v", "-f", "framemd5", "-"])
            .filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { String($0.trimmingCharacters(in: .whitespaces)) } }
    }

    /// Packets of an FLV as (video?, decode time in ms).
    private func packets(_ flv: URL) throws -> [(video: Bool, dts: Int)] {
        try SyncProbe.lines("ffprobe", ["-v", "error", "-show_entries", "packet=codec_type,dts", "-of", "csv=p=0", flv.path])
            .compactMap { line in
                let f = line.split(separator: ",")
                guard f.count == 2, let dts = Int(f[1]) else { return nil }
                return (f[0] == "video", dts)
            }
    }

    private func videoDTS(_ flv: URL) throws -> [Int] {
        try SyncProbe.lines("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=dts", "-of", "csv=p=0", flv.path])
            .compactMap { Int($0) }
    }

    func testReplayedCaptureIsRecordedFrameForFrame() throws {
        let server = try Server(name: "replay")
        let stats = Harness.temporaryFile("rtmp-replay.json")
        let r = try Harness.rtprecv(["--pcap", capture("gst-stapa-fua.pcap").path, "--rtmp", "rtmp://127.0.0.1:\(server.port)/live/secretkey1",
                                     "--no-realtime", "--stats-json", stats.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stderr.contains("secretkey1"), "the stream key shows: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("rtmp://127.0.0.1:\(server.port)/live/****"), r.stderr)
        usleep(300_000)
        let recording = try XCTUnwrap(try server.recordings("secretkey1").first, "no recording")
        XCTAssertEqual(try Harness.frameMD5(recording), try Harness.frameMD5(capture("gst-stapa-fua.h264")))
        let dts = try videoDTS(recording)
        XCTAssertEqual(dts, dts.sorted(), "no decode time goes back")
        XCTAssertEqual(dts.first, 0, "times start at 0")
        let rtmp = try XCTUnwrap(try statistics(stats)["rtmp"] as? [String: Any])
        XCTAssertEqual(rtmp["frames_sent"] as? Int, 150)
        XCTAssertEqual(rtmp["url"] as? String, "rtmp://127.0.0.1:\(server.port)/live/****")
    }

    /// Video and AAC from a session capture, paced in real time as the default is, beside --flv.
    func testSessionWithAudioIsRecordedBesideTheFLVFile() throws {
        let server = try Server(name: "session")
        let flv = Harness.temporaryFile("rtmp-session.flv")
        let r = try Harness.rtprecv(["--pcap", capture("gst-h264-aac.pcap").path, "--sdp", capture("gst-h264-aac.sdp").path,
                                     "--rtmp", "rtmp://127.0.0.1:\(server.port)/live/session", "--flv", flv.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        usleep(300_000)
        let recording = try XCTUnwrap(try server.recordings("session").first, "no recording")
        XCTAssertEqual(Set(try SyncProbe.lines("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
                                                            recording.path])), ["h264", "aac"])
        XCTAssertEqual(try videoMD5(recording), try videoMD5(flv), "the recording has the FLV file's video")
        // The server gets nothing before the first keyframe: the file's audio from there on.
        let file = try packets(flv), recorded = try packets(recording)
        let firstKeyframe = try XCTUnwrap(file.first { $0.video }).dts
        XCTAssertEqual(recorded.filter { !$0.video }.count, file.filter { !$0.video && $0.dts >= firstKeyframe }.count)
        XCTAssertEqual(recorded.first?.dts, 0, "times start at 0")
        try SyncProbe.assertInSync(recording, "RTMP recording")
    }

    func testLiveStreamIsRecordedFrameForFrame() throws {
        let server = try Server(name: "live")
        let source = Harness.temporaryFile("rtmp-live-source.h264")
        let stats = Harness.temporaryFile("rtmp-live.json")
        let listener = try LiveTests.Listener(["--port", "0", "--bind", "127.0.0.1", "--rtmp", "rtmp://127.0.0.1:\(server.port)/live/cam",
                                               "--no-audio", "--stats-json", stats.path], name: "rtmp-live")
        // (the Listener writes --out too: its write latency is the baseline)
        let g = try Harness.run("gst-launch-1.0", [
            "-q", "videotestsrc", "num-buffers=90", "pattern=ball", "!", "video/x-raw,width=320,height=240,framerate=30/1",
            "!", "x264enc", "bitrate=600", "key-int-max=30", "bframes=0", "speed-preset=veryfast", "tune=zerolatency", "!", "h264parse",
            "!", "video/x-h264,stream-format=byte-stream,alignment=au", "!", "tee", "name=t",
            "t.", "!", "queue", "!", "filesink", "location=\(source.path)",
            "t.", "!", "queue", "!", "rtph264pay", "config-interval=-1", "pt=96", "!", "udpsink", "host=127.0.0.1", "port=\(listener.port)"])
        XCTAssertEqual(g.status, 0, g.stderr)
        usleep(300_000)
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        usleep(300_000)
        let recording = try XCTUnwrap(try server.recordings("cam").first, "no recording")
        XCTAssertEqual(try Harness.frameMD5(recording), try Harness.frameMD5(source))
        // What publishing adds to the receive path's own latency (--out's write, in the same run).
        let json = try statistics(stats)
        let rtmp = try XCTUnwrap(json["rtmp"] as? [String: Any]), written = try XCTUnwrap(json["write_latency_us"] as? [String: Any])
        let latency = try XCTUnwrap(rtmp["latency_us"] as? [String: Any])
        XCTAssertLessThan((latency["p99"] as? Int ?? .max) - (written["p99"] as? Int ?? 0), 10_000,
                          "p99 from the last packet to the RTMP write, beyond the write of --out: \(latency) \(written)")
    }

    /// The server dies mid-stream and comes back: with --reconnect the stream resumes at a keyframe in
    /// a new recording, and the FLV file beside it keeps every frame.
    func testServerRestartResumesAtAKeyframeWithReconnect() throws {
        let server = try Server(name: "restart")
        let flv = Harness.temporaryFile("rtmp-restart.flv"), stats = Harness.temporaryFile("rtmp-restart.json")
        let process = Process()
        process.executableURL = Harness.binary
        process.arguments = ["--pcap", capture("gst-h264-aac.pcap").path, "--sdp", capture("gst-h264-aac.sdp").path,
                             "--rtmp", "rtmp://127.0.0.1:\(server.port)/live/restart", "--reconnect", "--flv", flv.path,
                             "--stats-json", stats.path, "-q"]
        try process.run()
        usleep(800_000)
        server.kill()
        usleep(300_000)
        try server.start()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        usleep(300_000)
        let recordings = try server.recordings("restart")
        XCTAssertGreaterThanOrEqual(recordings.count, 2, "a recording before the restart and one after")
        let resumed = try XCTUnwrap(recordings.last)
        let flags = try SyncProbe.lines("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=flags",
                                                    "-of", "csv=p=0", resumed.path])
        XCTAssertEqual(flags.first?.hasPrefix("K"), true, "the stream resumes at a keyframe: \(flags.prefix(3))")
        XCTAssertGreaterThan(flags.count, 30)
        XCTAssertEqual(try Harness.decodeErrors(resumed), "", "the resumed recording decodes")
        let rtmp = try XCTUnwrap(try statistics(stats)["rtmp"] as? [String: Any])
        XCTAssertEqual(rtmp["reconnects"] as? Int, 1)
        // The file beside it is whole.
        let stream = try XCTUnwrap((try statistics(stats)["streams"] as? [[String: Any]])?.first)
        XCTAssertEqual(try videoMD5(flv).count, stream["frames_written"] as? Int)
    }

    /// A server that stops taking data (SIGSTOP) while 20 Mbit/s of 1080p come in: receiving keeps every
    /// frame, the queue stays within its bound, and what is dropped goes as whole frames up to a
    /// keyframe, so the recording still decodes.
    func testStalledServerNeverHoldsUpReceiving() throws {
        let server = try Server(name: "stall")
        let blast = Harness.temporaryFile("blast")
        let cc = try Harness.run("cc", ["-O2", "-o", blast.path, Harness.packageRoot.appendingPathComponent("scripts/benchmarks/blast.c").path])
        XCTAssertEqual(cc.status, 0, cc.stderr)
        let stats = Harness.temporaryFile("rtmp-stall.json")
        let listener = try LiveTests.Listener(["--port", "0", "--bind", "127.0.0.1", "--rtmp", "rtmp://127.0.0.1:\(server.port)/live/stall",
                                               "--rtmp-queue-ms", "500", "--no-audio", "--stats-json", stats.path], name: "rtmp-stall")
        server.signal(SIGSTOP)
        // The 1080p capture: 30 frames in 1,733 packets, at its real rate, six times over.
        let sent = try Harness.run(blast.path, [capture("ffmpeg-1080p.pcap").path, "127.0.0.1", "\(listener.port)", "1733", "6"])
        XCTAssertEqual(sent.status, 0, sent.stderr)
        server.signal(SIGCONT)
        usleep(500_000)
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        XCTAssertEqual(try Harness.frameMD5(listener.out).count, 180, "receiving kept every frame")
        let rtmp = try XCTUnwrap(try statistics(stats)["rtmp"] as? [String: Any])
        XCTAssertGreaterThan(rtmp["frames_dropped"] as? Int ?? 0, 0, "\(rtmp)")
        XCTAssertLessThanOrEqual(rtmp["queue_peak_ms"] as? Int ?? .max, 500 + 34, "\(rtmp)")
        XCTAssertEqual((rtmp["frames_sent"] as? Int ?? 0) + (rtmp["frames_dropped"] as? Int ?? 0), 180, "\(rtmp)")
        XCTAssertTrue(listener.stderr.contains("whole frames are dropped up to the next keyframe"), listener.stderr)
        usleep(300_000)
        let recording = try XCTUnwrap(try server.recordings("stall").first, "no recording")
        XCTAssertEqual(try Harness.decodeErrors(recording), "", "what was sent decodes: nothing refers to a dropped frame")
    }

    func testLostConnectionWithoutReconnectEndsTheRunWithTheOtherOutputsWhole() throws {
        let server = try Server(name: "lost")
        let out = Harness.temporaryFile("rtmp-lost.h264")
        let process = Process(), errors = Harness.temporaryFile("rtmp-lost.err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.executableURL = Harness.binary
        process.arguments = ["--pcap", capture("gst-h264-aac.pcap").path, "--sdp", capture("gst-h264-aac.sdp").path,
                             "--rtmp", "rtmp://127.0.0.1:\(server.port)/live/lost", "--out", out.path]
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        usleep(1_500_000)
        server.kill()
        process.waitUntilExit()
        let stderr = try String(contentsOf: errors, encoding: .utf8)
        XCTAssertEqual(process.terminationStatus, 1, stderr)
        XCTAssertTrue(stderr.contains("rtmp://127.0.0.1:\(server.port)/live/****: the connection failed"), stderr)
        XCTAssertFalse(stderr.contains("/live/lost"), stderr)
        XCTAssertEqual(try Harness.decodeErrors(out), "", "the Annex-B output was finished as usual")
        XCTAssertGreaterThan(try Harness.frameMD5(out).count, 10)
    }

    func testRefusedAndUnknownServersFailInOneLineWithTheKeyMasked() throws {
        let server = try Server(name: "refused")
        for (url, expected) in [("rtmp://127.0.0.1:\(server.port &+ 1)/live/hidden", "cannot publish to rtmp://127.0.0.1:\(server.port &+ 1)/live/****"),
                                ("rtmp://127.0.0.1:\(server.port)/nosuchapp/hidden", "rtmp://127.0.0.1:\(server.port)/nosuchapp/****")] {
            let r = try Harness.rtprecv(["--pcap", capture("gst-stapa-fua.pcap").path, "--rtmp", url, "--no-realtime"])
            XCTAssertEqual(r.status, 1, r.stderr)
            let lines = r.stderr.split(separator: "\n")
            XCTAssertTrue(lines.contains { $0.contains(expected) }, r.stderr)
            XCTAssertFalse(r.stderr.contains("hidden"), "the stream key shows: \(r.stderr)")
        }
        let usage = try Harness.rtprecv(["--pcap", capture("gst-stapa-fua.pcap").path, "--rtmp", "http://host/app/key"])
        XCTAssertEqual(usage.status, 64, usage.stderr)
        XCTAssertTrue(usage.stderr.contains("is not an RTMP URL"), usage.stderr)
    }
}
