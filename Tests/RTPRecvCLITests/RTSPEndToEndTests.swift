import Foundation
import XCTest

/// `rtprecv rtsp://…` against a real RTSP server: gst-rtsp-server (scripts/rtsp-server) serving an
/// H.264 file paced as a camera would. The frames must be the file's, bit for bit, over UDP and
/// over TCP, with Basic and Digest, and the password must show up nowhere.
final class RTSPEndToEndTests: XCTestCase {
    private let port = UInt16(38000 + Int(getpid() % 1000) * 2)
    private let source = Harness.captures.appendingPathComponent("ffmpeg-inband.h264")

    /// The server, listening until the returned process is stopped.
    private func server(_ arguments: [String]) throws -> Process {
        try Harness.startServer("rtsp-server", ["--port", "\(port)", "--h264", source.path] + arguments)
    }

    private func pull(_ url: String, _ extra: [String], name: String) throws -> (Harness.Result, URL, String) {
        try Self.pull(url, extra, name: name)
    }

    /// `url` pulled for 4.5 s into an Annex-B file: the run, the file and the statistics JSON.
    static func pull(_ url: String, _ extra: [String], name: String) throws -> (Harness.Result, URL, String) {
        let out = Harness.temporaryFile(name + ".h264"), stats = Harness.temporaryFile(name + ".json")
        let r = try Harness.rtprecv([url, "--out", out.path, "--stats-json", stats.path, "--duration", "4.5"] + extra)
        return (r, out, (try? String(contentsOf: stats, encoding: .utf8)) ?? "")
    }

    private func assertSourceFrames(_ out: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        try Self.assertFrames(of: out, are: source, file: file, line: line)
    }

    /// `out` holds every frame of `source`, bit-exact.
    static func assertFrames(of out: URL, are source: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let expected = try Harness.frameMD5(source), got = try Harness.frameMD5(out)
        XCTAssertEqual(got.count, expected.count, "every frame of the file", file: file, line: line)
        XCTAssertEqual(got, expected, "bit-exact", file: file, line: line)
    }

    /// An RTSP pull takes {ssrc} templates as every other input does, over UDP and TCP: the file
    /// named by the stream's SSRC holds the source's frames.
    func testStreamTemplatesNameTheFileByItsSSRC() throws {
        for transport in ["udp", "tcp"] {
            let s = try server([])
            defer { s.terminate(); s.waitUntilExit() }
            let directory = Harness.temporaryFile("rtsp-streams-" + transport)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let r = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/test", "--rtsp-transport", transport,
                                         "--out", directory.path + "/{ssrc}.h264", "--duration", "4.5"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            XCTAssertEqual(files.count, 1, "\(transport): \(files) \(r.stderr)")
            XCTAssertTrue(files.first.map { $0.count == "01234567.h264".count } ?? false, "\(files)")
            if let name = files.first { try assertSourceFrames(directory.appendingPathComponent(name)) }
        }
    }

    func testUDPPullIsBitExact() throws {
        let s = try server([])
        defer { s.terminate(); s.waitUntilExit() }
        let (r, out, stats) = try pull("rtsp://127.0.0.1:\(port)/test", ["--rtsp-transport", "udp"], name: "rtsp-udp")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("over UDP"), r.stderr)
        XCTAssertTrue(stats.contains("\"transport\":\"udp\""), stats)
        try assertSourceFrames(out)
    }

    /// The server refuses UDP (461): the default `auto` moves to TCP, interleaved, with Digest, in the
    /// same session (a fresh one, on a fresh gst-rtsp-server, is answered 503), as FFmpeg does.
    func testDigestAndTheMoveToTCPWhenUDPIsRefused() throws {
        let s = try server(["--protocols", "tcp", "--auth", "digest", "--user", "viewer", "--password", "s3cr%t"])
        defer { s.terminate(); s.waitUntilExit() }
        let (r, out, stats) = try pull("rtsp://viewer:s3cr%25t@127.0.0.1:\(port)/test", ["-v"], name: "rtsp-tcp")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("461"), r.stderr)
        XCTAssertTrue(r.stderr.contains("TCP after UDP in the same session"), r.stderr)
        XCTAssertFalse(r.stderr.contains("trying TCP"), "no second connection: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("over TCP (interleaved)"), r.stderr)
        XCTAssertTrue(stats.contains("\"transport\":\"tcp\""), stats)
        XCTAssertFalse(r.stderr.contains("s3cr") || stats.contains("s3cr"), "no password in any output")
        try assertSourceFrames(out)
    }

    /// Basic, with the password from RTSP_PASSWORD; a wrong one is a clear error, not a hang.
    func testBasicWithThePasswordFromTheEnvironmentAndAWrongOne() throws {
        let s = try server(["--auth", "basic", "--user", "viewer", "--password", "letmein"])
        defer { s.terminate(); s.waitUntilExit() }
        setenv("RTSP_PASSWORD", "letmein", 1)
        let (r, out, _) = try pull("rtsp://viewer@127.0.0.1:\(port)/test", [], name: "rtsp-basic")
        unsetenv("RTSP_PASSWORD")
        XCTAssertEqual(r.status, 0, r.stderr)
        try assertSourceFrames(out)
        let wrong = try Harness.rtprecv(["rtsp://viewer:nope@127.0.0.1:\(port)/test", "--out", "/dev/null", "--duration", "2"])
        XCTAssertNotEqual(wrong.status, 0)
        XCTAssertTrue(wrong.stderr.contains("rejected the credentials of user 'viewer'"), wrong.stderr)
        XCTAssertFalse(wrong.stderr.contains("nope"), wrong.stderr)
        let none = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/test", "--out", "/dev/null", "--duration", "2"])
        XCTAssertNotEqual(none.status, 0)
        XCTAssertTrue(none.stderr.contains("RTSP_PASSWORD"), none.stderr)
    }

    func testNoServerAndNoStreamAreClearErrors() throws {
        let refused = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/test", "--out", "/dev/null"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("rtsp://127.0.0.1:\(port)/test") && refused.stderr.contains("refused"), refused.stderr)
        let s = try server([])
        defer { s.terminate(); s.waitUntilExit() }
        let missing = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/nothing", "--out", "/dev/null"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("404"), missing.stderr)
    }

    /// A live source and a session that times out after 3 s without a keep-alive: rtprecv keeps it
    /// (every 1.5 s, the method the server's OPTIONS listed), and without RTCP to keep it either.
    func testKeepAlivesHoldASessionWithAShortTimeout() throws {
        let s = try server(["--live", "--timeout", "3"])
        defer { s.terminate(); s.waitUntilExit() }
        let (r, out, stats) = try pull("rtsp://127.0.0.1:\(port)/test", ["--rtsp-transport", "udp", "--no-rtcp", "--duration", "8"],
                                       name: "rtsp-keepalive")
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(stats.utf8)) as! [String: Any]
        let rtsp = try XCTUnwrap(json["rtsp"] as? [String: Any])
        XCTAssertEqual(rtsp["session_timeout_s"] as? Int, 3, stats)
        XCTAssertGreaterThanOrEqual(rtsp["keep_alives"] as? Int ?? 0, 4, stats)
        XCTAssertEqual(rtsp["keep_alive_method"] as? String, "GET_PARAMETER")
        // Frames to the end: 30 a second for the 8 s, less the start.
        XCTAssertGreaterThanOrEqual(try Harness.frameMD5(out).count, 200)
    }

    /// The server stops and comes back on the same port: with --reconnect the pull resumes, in
    /// the same file, and what it wrote decodes without an error.
    func testReconnectSurvivesTheServerRestarting() throws {
        var s = try server(["--live"])
        let out = Harness.temporaryFile("rtsp-reconnect.h264"), stats = Harness.temporaryFile("rtsp-reconnect.json")
        let pull = Process()
        pull.executableURL = Harness.binary
        let flv = Harness.temporaryFile("rtsp-reconnect.flv")
        pull.arguments = ["rtsp://127.0.0.1:\(port)/test", "--rtsp-transport", "tcp", "--reconnect", "--timeout", "2",
                          "--duration", "11", "--out", out.path, "--flv", flv.path, "--stats-json", stats.path, "-q"]
        let log = Harness.temporaryFile("rtsp-reconnect.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        pull.standardError = try FileHandle(forWritingTo: log)
        try pull.run()
        sleep(4)
        s.terminate()
        s.waitUntilExit()
        sleep(1)
        s = try server(["--live"])
        defer { s.terminate(); s.waitUntilExit() }
        pull.waitUntilExit()
        XCTAssertEqual(pull.terminationStatus, 0, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        let rtsp = try XCTUnwrap(json["rtsp"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(rtsp["reconnects"] as? Int ?? 0, 1, "\(rtsp)")
        XCTAssertGreaterThan(rtsp["lost_ms"] as? Int ?? 0, 500)
        // Before the stop about 4 s of frames; after it at least 3 s more.
        XCTAssertGreaterThanOrEqual(try Harness.frameMD5(out).count, 7 * 30 - 30)
        XCTAssertEqual(try Harness.decodeErrors(out), "")
        // The FLV goes on in the same file: it decodes, and its times run on across the restart.
        XCTAssertEqual(try Harness.decodeErrors(flv), "")
        let times = try Harness.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=dts_time",
                                                "-of", "csv=p=0", flv.path])
        let dts = String(decoding: times.stdout, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }
        XCTAssertEqual(dts, dts.sorted(), "FLV times never go back")
        XCTAssertGreaterThan((dts.last ?? 0) - (dts.first ?? 0), 6, "the time lost is in the FLV's clock too: \(dts.first ?? 0)…\(dts.last ?? 0)")
    }

    /// The server goes, and in its place a listener that accepts and never answers (a camera hung
    /// mid-boot): while rtprecv tries to set the session up again, its loop goes on. /metrics and
    /// /healthz answer at once and say it is reconnecting, and --duration ends the run on time,
    /// not after the 10 s a reply is waited for.
    func testReconnectingKeepsTheLoopTurning() throws {
        var s: Process? = try server(["--live"])
        let metricsPort = port + 1
        let out = Harness.temporaryFile("rtsp-reconnecting.h264"), stats = Harness.temporaryFile("rtsp-reconnecting.json")
        let pull = Process()
        pull.executableURL = Harness.binary
        pull.arguments = ["rtsp://127.0.0.1:\(port)/test", "--rtsp-transport", "tcp", "--reconnect", "--metrics", "\(metricsPort)",
                          "--duration", "9", "--out", out.path, "--stats-json", stats.path, "-q"]
        pull.standardError = FileHandle.nullDevice
        let started = Date()
        try pull.run()
        sleep(3)
        s?.terminate()
        s?.waitUntilExit()
        s = nil
        let mute = Process()
        mute.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        mute.arguments = ["-c", "import socket, time; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
                          + "s.bind(('127.0.0.1', \(port))); s.listen(8); print('ready', flush=True); time.sleep(30)"]
        let ready = Pipe()
        mute.standardOutput = ready
        try mute.run()
        defer { mute.terminate(); mute.waitUntilExit() }
        XCTAssertTrue(String(decoding: ready.fileHandleForReading.availableData, as: UTF8.self).contains("ready"))
        // The first try starts within about a second and then waits on the mute listener.
        usleep(2_500_000)
        for _ in 0..<3 {
            let asked = Date()
            let r = try Harness.run("curl", ["-s", "--max-time", "3", "http://127.0.0.1:\(metricsPort)/metrics"])
            let body = String(decoding: r.stdout, as: UTF8.self)
            XCTAssertLessThan(Date().timeIntervalSince(asked), 1, "/metrics answered at once")
            XCTAssertTrue(body.contains("rtprecv_rtsp_reconnecting 1"), body)
            XCTAssertTrue(body.contains("rtprecv_frames_written_total{"), "the streams' counts stay while reconnecting")
            usleep(500_000)
        }
        let health = try Harness.run("curl", ["-s", "--max-time", "3", "-w", "\n%{http_code}", "http://127.0.0.1:\(metricsPort)/healthz"])
        let healthText = String(decoding: health.stdout, as: UTF8.self)
        XCTAssertTrue(healthText.hasSuffix("503") && healthText.contains("(reconnecting)"), healthText)
        pull.waitUntilExit()
        XCTAssertLessThan(Date().timeIntervalSince(started), 11, "--duration 9 ends the run while a try waits for a reply")
        XCTAssertEqual(pull.terminationStatus, 0)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        let rtsp = try XCTUnwrap(json["rtsp"] as? [String: Any])
        XCTAssertEqual(rtsp["reconnects"] as? Int, 0, "\(rtsp)")
        XCTAssertEqual(try Harness.decodeErrors(out), "")
        XCTAssertGreaterThanOrEqual(try Harness.frameMD5(out).count, 60, "the frames before the server went")
    }

    /// Multicast: the server (in a network namespace of its own, joined to the client's by a veth
    /// pair) hands out a group and ports from its pool; rtprecv joins them and gets every frame.
    func testMulticastGroupTheServerNames() throws {
        try XCTSkipUnless(getuid() == 0, "network namespaces need root")
        let serverNS = "rtprecv-rs-\(getpid())", clientNS = "rtprecv-rc-\(getpid())"
        let made = try Harness.run("ip", ["netns", "add", serverNS])
        try XCTSkipUnless(made.status == 0, "cannot create a network namespace here: \(made.stderr)")
        defer { _ = try? Harness.run("ip", ["netns", "delete", serverNS]) }
        XCTAssertEqual(try Harness.run("ip", ["netns", "add", clientNS]).status, 0)
        defer { _ = try? Harness.run("ip", ["netns", "delete", clientNS]) }
        let setup: [[String]] = [
            ["ip", "link", "add", "rs\(getpid() % 10000)", "netns", serverNS, "type", "veth", "peer", "name", "rc\(getpid() % 10000)",
             "netns", clientNS],
            ["ip", "netns", "exec", serverNS, "ip", "addr", "add", "10.9.0.1/24", "dev", "rs\(getpid() % 10000)"],
            ["ip", "netns", "exec", serverNS, "ip", "link", "set", "rs\(getpid() % 10000)", "up"],
            ["ip", "netns", "exec", serverNS, "ip", "link", "set", "lo", "up"],
            ["ip", "netns", "exec", serverNS, "ip", "route", "add", "224.0.0.0/4", "dev", "rs\(getpid() % 10000)"],
            ["ip", "netns", "exec", clientNS, "ip", "addr", "add", "10.9.0.2/24", "dev", "rc\(getpid() % 10000)"],
            ["ip", "netns", "exec", clientNS, "ip", "link", "set", "rc\(getpid() % 10000)", "up"],
            ["ip", "netns", "exec", clientNS, "ip", "route", "add", "224.0.0.0/4", "dev", "rc\(getpid() % 10000)"],
        ]
        for command in setup {
            let r = try Harness.run(command[0], Array(command.dropFirst()))
            XCTAssertEqual(r.status, 0, "\(command): \(r.stderr)")
        }
        let server = try Harness.startServer("rtsp-server", ["--address", "10.9.0.1", "--port", "\(port)", "--h264", source.path,
                                                             "--protocols", "multicast"], prefix: ["ip", "netns", "exec", serverNS])
        defer { server.terminate(); server.waitUntilExit() }
        let out = Harness.temporaryFile("rtsp-multicast.h264")
        let r = try Harness.run("ip", ["netns", "exec", clientNS, Harness.binary.path, "rtsp://10.9.0.1:\(port)/test",
                                       "--rtsp-transport", "multicast", "--out", out.path, "--duration", "4.5"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("joined multicast group 224.3.0."), r.stderr)
        XCTAssertTrue(r.stderr.contains("over UDP multicast"), r.stderr)
        try assertSourceFrames(out)
    }

    /// VLC as a second real server (`cvlc --sout '#rtp{sdp=rtsp://…}'`, broadcasting from when it
    /// starts, video and AAC both on PT 96): what rtprecv writes is the source's frames, and a TCP
    /// SETUP, which VLC answers 461, is a clear error when TCP alone is asked for.
    func testVLCServesVideoAndAACOverUDPAndRefusesTCP() throws {
        let source = Harness.temporaryFile("vlc-source.mkv")
        try? FileManager.default.removeItem(at: source)
        try FileManager.default.copyItem(at: Harness.captures.appendingPathComponent("sync-source.mkv"), to: source)
        // VLC will not run as root: as nobody, then, with the source readable to it.
        chmod(source.path, 0o644)
        let vlc = Process()
        vlc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        vlc.arguments = (getuid() == 0 ? ["runuser", "-u", "nobody", "--"] : [])
            + ["cvlc", "-I", "dummy", "--loop", source.path, "--sout", "#rtp{sdp=rtsp://127.0.0.1:\(port)/vlc}"]
        vlc.standardOutput = FileHandle.nullDevice
        vlc.standardError = FileHandle.nullDevice
        try vlc.run()
        defer { vlc.terminate(); vlc.waitUntilExit() }
        // VLC listens a moment after it starts, and answers DESCRIBE 500 until its stream is set up
        // (longer on a busy machine).
        var ready = false
        for _ in 0..<100 where !ready {
            usleep(100_000)
            ready = TCPProbe.describes(port: port, url: "rtsp://127.0.0.1:\(port)/vlc")
        }
        try XCTSkipUnless(ready, "VLC did not start serving")
        let out = Harness.temporaryFile("vlc.h264"), audio = Harness.temporaryFile("vlc.aac"), stats = Harness.temporaryFile("vlc.json")
        let r = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/vlc", "--out", out.path, "--audio", audio.path, "--stats-json", stats.path,
                                     "--duration", "4"])
        XCTAssertEqual(r.status, 0, r.stderr)
        // A live broadcast joined midway: every frame written is one of the source's.
        let written = try Harness.videoMD5(out)
        XCTAssertGreaterThan(written.count, 30, r.stderr)
        let sourceVideo = Harness.temporaryFile("vlc-source.h264")
        XCTAssertEqual(try Harness.run("ffmpeg", ["-v", "error", "-y", "-i", source.path, "-map", "0:v", "-c", "copy", "-bsf:v", "h264_mp4toannexb",
                                                  sourceVideo.path]).status, 0)
        XCTAssertTrue(Set(written).isSubset(of: Set(try Harness.videoMD5(sourceVideo))))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        XCTAssertEqual(((json["audio_streams"] as? [[String: Any]])?.first)?["codec"] as? String, "AAC")
        XCTAssertTrue(try Harness.probe(audio, "stream=codec_name").contains("aac"))

        let tcp = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/vlc", "--rtsp-transport", "tcp", "--out", "/dev/null", "--duration", "2"])
        XCTAssertEqual(tcp.status, 1)
        XCTAssertTrue(tcp.stderr.contains("461"), tcp.stderr)
    }

    /// A session of H.264 and AAC (mpeg4-generic) from the start of a Matroska file: both
    /// bit-exact, and in sync in the FLV.
    func testVideoAndAACSessionIsBitExact() throws {
        let mkv = Harness.captures.appendingPathComponent("sync-source.mkv")
        let s = try Harness.startServer("rtsp-server", ["--port", "\(port)", "--mkv", mkv.path])
        defer { s.terminate(); s.waitUntilExit() }
        let out = Harness.temporaryFile("rtsp-av.h264"), audio = Harness.temporaryFile("rtsp-av.aac"), flv = Harness.temporaryFile("rtsp-av.flv")
        let r = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/test", "--out", out.path, "--audio", audio.path, "--flv", flv.path,
                                     "--duration", "5.5"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try Harness.videoMD5(out), try Harness.videoMD5(mkv), "every picture")
        XCTAssertEqual(try Harness.packetMD5(audio, adts: true), try Harness.packetMD5(mkv), "every AAC frame")
        try SyncProbe.assertInSync(flv, "RTSP")
    }

    /// A camera's session as newer cameras send it: H.265 and G.711 A-law, here over TCP.
    func testH265AndPCMAOverTCPAreTheSource() throws {
        let video = Harness.captures.appendingPathComponent("gst-h265-none.h265")
        let alaw = Harness.captures.appendingPathComponent("sync-source-alaw.wav")
        let s = try Harness.startServer("rtsp-server", ["--port", "\(port)", "--h265", video.path, "--alaw", alaw.path])
        defer { s.terminate(); s.waitUntilExit() }
        let out = Harness.temporaryFile("rtsp-h265.h265"), audio = Harness.temporaryFile("rtsp-h265.wav")
        let r = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/test", "--rtsp-transport", "tcp", "--out", out.path,
                                     "--audio", audio.path, "--duration", "5.5"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("over TCP (interleaved)") && r.stderr.contains("H.265 Main"), r.stderr)
        XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(video), "every picture")
        let samples = { (url: URL) in try Harness.run("ffmpeg", ["-v", "error", "-i", url.path, "-f", "s16le", "-"]).stdout }
        let got = try samples(audio), sent = try samples(alaw)
        XCTAssertGreaterThan(got.count, 60000)
        XCTAssertTrue(got == sent, "the A-law samples as sent: \(got.count) of \(sent.count) bytes")
    }
}

/// Whether something listens on a loopback TCP port.
enum TCPProbe {
    static func connects(port: UInt16) throws -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        return Harness.withLoopback(port: port) { connect(fd, $0, $1) } == 0
    }

    /// Whether a DESCRIBE of `url` on `port` is answered 200 within a second.
    static func describes(port: UInt16, url: String) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard Harness.withLoopback(port: port, { connect(fd, $0, $1) }) == 0 else { return false }
        let request = Array("DESCRIBE \(url) RTSP/1.0\r\nCSeq: 1\r\nAccept: application/sdp\r\n\r\n".utf8)
        guard send(fd, request, request.count, 0) == request.count else { return false }
        var reply = [UInt8](repeating: 0, count: 64)
        let n = recv(fd, &reply, reply.count, 0)
        return n > 0 && String(decoding: reply[0..<n], as: UTF8.self).hasPrefix("RTSP/1.0 200")
    }
}
