import Foundation
import XCTest

/// Cameras' quirks, scripted (scripts/fake-camera serves a capture's RTP and its SDP the way real
/// cameras get it wrong): rtprecv must still write the capture's frames bit for bit, say each
/// quirk that fired once in the summary, and fall back to TCP within 3 s when UDP stays silent.
final class RTSPFakeCameraTests: XCTestCase {
    private let port = UInt16(40000 + Int(getpid() % 500) * 2)
    private let expected = Harness.captures.appendingPathComponent("ffmpeg-mode0.h264")

    private func camera(_ quirks: [String]) throws -> Process {
        try Harness.startServer("fake-camera", ["--port", "\(port)", "--pcap", Harness.captures.appendingPathComponent("ffmpeg-mode0.pcap").path,
                                                "--sdp", Harness.captures.appendingPathComponent("ffmpeg-mode0.sdp").path]
                                    + quirks.flatMap { ["--quirk", $0] })
    }

    private func pull(_ quirks: [String], _ extra: [String] = [], seconds: String = "5", name: String) throws -> (Harness.Result, [String: Any]) {
        let c = try camera(quirks)
        defer { c.terminate(); c.waitUntilExit() }
        let out = Harness.temporaryFile(name + ".h264"), stats = Harness.temporaryFile(name + ".json")
        let r = try Harness.rtprecv(["rtsp://user:secret@127.0.0.1:\(port)/cam", "--out", out.path, "--stats-json", stats.path,
                                     "--duration", seconds] + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        let got = try Harness.frameMD5(out), want = try Harness.frameMD5(expected)
        XCTAssertEqual(got.count, want.count, "every frame through \(quirks)")
        XCTAssertTrue(got == want, "bit-exact through \(quirks)")
        return (r, try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any])
    }

    /// Everything at once: a redirect, Digest whose first answer is told stale, a Content-Base
    /// without its scheme, Transport parameters out of order, a wrong SSRC in SETUP, a session
    /// timeout, no RTP-Info, a junk sprop item, UDP that never comes, and garbage between frames.
    func testEveryQuirkAtOnce() throws {
        let (r, stats) = try pull(["redirect", "digest-stale", "no-scheme-base", "odd-transport", "ssrc-mismatch", "session-timeout",
                                   "no-rtp-info", "junk-sprop", "udp-silent", "garbage"], seconds: "7", name: "fake-all")
        let rtsp = try XCTUnwrap(stats["rtsp"] as? [String: Any])
        XCTAssertEqual(rtsp["transport"] as? String, "tcp")
        XCTAssertEqual(rtsp["session_timeout_s"] as? Int, 20)
        let said = (rtsp["worked_around"] as? [String] ?? []).joined(separator: " | ")
        for quirk in ["no RTP over UDP within 2 s of PLAY", "redirected to rtsp://127.0.0.1:\(port)/real", "Content-Base without a scheme",
                      "no RTP-Info", "SETUP named SSRC 0xdeadbeef", "bytes of garbage", "not base64"] {
            XCTAssertTrue(said.contains(quirk), "'\(quirk)' in: \(said)")
        }
        // Each said once, in the summary too.
        let line = try XCTUnwrap(r.stderr.split(separator: "\n").first { $0.hasPrefix("rtsp       ") })
        XCTAssertEqual(line.components(separatedBy: "Content-Base without a scheme").count, 2, String(line))
        XCTAssertFalse(r.stderr.contains("secret"))
    }

    /// A camera still down when rtprecv starts (a power cut, all of them booting): with --reconnect
    /// it is tried again until it answers, and then every frame is written. Without --reconnect
    /// the run ends at once, exit 1, naming the URL.
    func testACameraDownAtTheStartIsWaitedForWithReconnect() throws {
        let refused = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/cam", "--out", "/dev/null"])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("rtsp://127.0.0.1:\(port)/cam"), refused.stderr)
        let out = Harness.temporaryFile("late-camera.h264")
        let pull = Process()
        pull.executableURL = Harness.binary
        pull.arguments = ["rtsp://user:secret@127.0.0.1:\(port)/cam", "--reconnect", "--duration", "5", "--out", out.path,
                          "--metrics", "\(port + 1)"]
        let log = Harness.temporaryFile("late-camera.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        pull.standardError = try FileHandle(forWritingTo: log)
        try pull.run()
        // Meanwhile the run answers, saying what it waits for and why (no password).
        var served: [String] = []
        for _ in 0..<30 where served.first?.contains("failed") != true {
            usleep(100_000)
            served = try ["/healthz", "/metrics", "/"].map { path in
                let r = try Harness.run("curl", ["-s", "--max-time", "2", "-w", "%{http_code}", "http://127.0.0.1:\(port + 1)\(path)"])
                return String(decoding: r.stdout, as: UTF8.self)
            }
        }
        XCTAssertNotNil(served[0].range(of: #"^setting up rtsp://127\.0\.0\.1:\d+/cam: (1 try|\d+ tries) failed, the last: 127\.0\.0\.1:\d+: Connection refused\n503$"#,
                                         options: .regularExpression), served[0])
        XCTAssertNotNil(served[1].range(of: #"rtprecv_rtsp_setting_up 1\n(.|\n)*rtprecv_rtsp_setup_failures_total [1-9]"#, options: .regularExpression), served[1])
        XCTAssertTrue(served[2].contains("<p class=\"silent\">setting up rtsp://127.0.0.1:\(port)/cam: ") && served[2].hasSuffix("200"), served[2])
        XCTAssertFalse(served.joined().contains("secret"))
        // Log rotation meanwhile does not end the run.
        kill(pull.processIdentifier, SIGHUP)
        let c = try camera([])
        defer { c.terminate(); c.waitUntilExit() }
        pull.waitUntilExit()
        let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(pull.terminationStatus, 0, said)
        XCTAssertTrue(said.contains("Connection refused; trying again in "), said)
        XCTAssertFalse(said.contains("secret"), said)
        XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(expected), "every frame, once the camera is up")
        // Stopped before the camera ever answers: an error naming what failed last.
        let never = try Harness.rtprecv(["rtsp://127.0.0.1:\(port + 1)/cam", "--reconnect", "--duration", "2", "--out", "/dev/null"])
        XCTAssertEqual(never.status, 1, never.stderr)
        XCTAssertTrue(never.stderr.contains("stopped after 2.0 s before the session could be set up"), never.stderr)
    }

    /// UDP that never comes costs 2 s, not a whole --timeout: the first frame within 3 s.
    func testSilentUDPMovesToTCPWithinThreeSeconds() throws {
        let c = try camera(["udp-silent"])
        defer { c.terminate(); c.waitUntilExit() }
        let started = Date()
        let r = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/cam", "--out", "/dev/null", "--frames", "1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 3.5, r.stderr)
        XCTAssertTrue(r.stderr.contains("over TCP (interleaved)"), r.stderr)
    }

    /// UDP refused (461) with Basic; a=control:* on the session and none on the media line.
    func testRefusedUDPWithBasicAndAStarControl() throws {
        let (_, stats) = try pull(["udp-refused", "basic", "star-control"], name: "fake-basic")
        XCTAssertEqual((stats["rtsp"] as? [String: Any])?["transport"] as? String, "tcp")
    }

    /// An absolute a=control over UDP, and the SDP's sprop-parameter-sets (the stream has none in-band).
    func testAbsoluteControlOverUDP() throws {
        let (_, stats) = try pull(["absolute-control"], ["--rtsp-transport", "udp"], name: "fake-absolute")
        XCTAssertEqual((stats["rtsp"] as? [String: Any])?["transport"] as? String, "udp")
    }

    /// A server that closes the connection after every reply gets each request on a new one, and
    /// the keep-alives too, while the media goes on over UDP.
    func testAServerThatClosesAfterEveryReply() throws {
        let (_, stats) = try pull(["close-after-reply", "short-timeout"], ["--rtsp-transport", "udp"], name: "fake-close")
        let rtsp = try XCTUnwrap(stats["rtsp"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(rtsp["keep_alives"] as? Int ?? 0, 3, "\(rtsp)")
        XCTAssertTrue((rtsp["worked_around"] as? [String] ?? []).contains("the server closes the connection after each reply"), "\(rtsp)")
    }

    /// A new SSRC at every IDR (Uniview): each takes over from the one before, and no frame is lost.
    func testAnSSRCPerGOP() throws {
        let (r, stats) = try pull(["ssrc-per-gop"], name: "fake-ssrc")
        let keyframes = try SyncProbe.lines("ffprobe", ["-v", "error", "-show_entries", "frame=key_frame", "-of", "csv=p=0",
                                                        expected.path]).filter { $0.hasPrefix("1") }.count
        XCTAssertGreaterThanOrEqual(keyframes, 3)
        XCTAssertEqual(stats["ssrc_changes"] as? Int, keyframes - 1, r.stderr)
        XCTAssertEqual((stats["streams"] as? [Any])?.count, keyframes, r.stderr)
    }

    /// The camera's client limit, said as such.
    func testABusyCameraIsSaidAsSuch() throws {
        let c = try camera(["busy"])
        defer { c.terminate(); c.waitUntilExit() }
        let r = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/cam", "--out", "/dev/null"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("453 Not Enough Bandwidth: the camera serves no more clients"), r.stderr)
    }

    /// A broken or hostile server: each answer rtprecv cannot use ends the pull in one line that
    /// names it, exit 1, never a trap; empty Transport parameters are only skipped.
    func testHostileRepliesEndInOneLineNamingWhatWasWrong() throws {
        _ = try pull(["empty-parameter"], ["--rtsp-transport", "udp"], name: "fake-empty")
        for (quirk, extra, said) in [("absurd-ports", [], "Transport parameter 'server_port=0-70000': expected a port"),
                                     ("absurd-channels", ["--rtsp-transport", "tcp"], "Transport parameter 'interleaved=300-301'"),
                                     ("multicast-65535", ["--rtsp-transport", "multicast"], "Transport port 65535 leaves no port for RTCP"),
                                     ("wrong-cseq", [], "the reply names CSeq"),
                                     ("454-describe", [], "DESCRIBE: 454 Session Not Found"),
                                     ("454-setup", [], "SETUP: 454 Session Not Found"),
                                     ("454-play", [], "PLAY: 454 Session Not Found")] {
            let c = try camera([quirk])
            defer { c.terminate(); c.waitUntilExit() }
            let r = try Harness.rtprecv(["rtsp://user:secret@127.0.0.1:\(port)/cam", "--out", "/dev/null", "--duration", "5"] + extra)
            XCTAssertEqual(r.status, 1, "\(quirk): \(r.stderr)")
            let errors = r.stderr.split(separator: "\n").filter { $0.contains("error") }
            XCTAssertEqual(errors.count, 1, "\(quirk): \(r.stderr)")
            XCTAssertTrue(errors.first?.contains(said) == true, "\(quirk): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("secret"))
        }
    }

    /// A keep-alive answered 454 (the session expired): without --reconnect the run ends, exit 1,
    /// saying so; with it, a fresh session each time, and the run ends as asked.
    func testAnExpiredSessionEndsTheRunOrIsSetUpAgain() throws {
        let c = try camera(["454-keepalive", "short-timeout"])
        defer { c.terminate(); c.waitUntilExit() }
        let ended = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/cam", "--out", "/dev/null", "--duration", "6"])
        XCTAssertEqual(ended.status, 1, ended.stderr)
        XCTAssertTrue(ended.stderr.contains("error: the session ended: keep-alive GET_PARAMETER: 454 Session Not Found"), ended.stderr)
        XCTAssertTrue(ended.stderr.contains("stopped: the session ended"), ended.stderr)
        let resumed = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/cam", "--out", "/dev/null", "--duration", "6", "--reconnect"])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("rtsp: reconnected over UDP"), resumed.stderr)
    }

    /// A server that resets the TCP connection mid-stream (a camera rebooting): the run ends with the
    /// reason, or, with --reconnect, sets the session up again and goes on.
    func testAConnectionResetMidStreamEndsTheRunOrIsSetUpAgain() throws {
        var c = try camera(["reset-once"])
        let ended = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/cam", "--rtsp-transport", "tcp", "--out", "/dev/null", "--duration", "4"])
        c.terminate()
        c.waitUntilExit()
        XCTAssertEqual(ended.status, 1, ended.stderr)
        XCTAssertTrue(ended.stderr.contains("the connection was lost (Connection reset by peer)"), ended.stderr)
        XCTAssertFalse(ended.stderr.contains("cannot write"), ended.stderr)
        c = try camera(["reset-once"])
        defer { c.terminate(); c.waitUntilExit() }
        let stats = Harness.temporaryFile("fake-reset.json")
        let resumed = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/cam", "--rtsp-transport", "tcp", "--out", "/dev/null", "--reconnect",
                                           "--duration", "5", "--stats-json", stats.path])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("rtsp: reconnected over TCP"), resumed.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        XCTAssertEqual((json["rtsp"] as? [String: Any])?["reconnects"] as? Int, 1, "\(json)")
    }

    /// A server that answers PLAY and sends nothing: a warning naming what was set up within 5 s,
    /// and the run ends with the exit status of a run that received no RTP (3).
    func testAStallAfterPlayIsSaidAndExitsThree() throws {
        let c = try camera(["stall-after-play"])
        defer { c.terminate(); c.waitUntilExit() }
        let r = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/cam", "--out", "/dev/null", "--duration", "6.5", "--rtsp-transport", "udp"])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("warning: no media in 5 s from rtsp://127.0.0.1:\(port)/cam (video over UDP ports"), r.stderr)
        XCTAssertTrue(r.stderr.contains("warning: no RTP packet came from rtsp://"), r.stderr)
    }

    /// Digest with SHA-256 and qop=auth offered beside MD5 (RFC 7616 §3.7): SHA-256 is answered.
    func testDigestSHA256IsPreferred() throws {
        let (_, stats) = try pull(["digest-sha256"], ["--rtsp-transport", "tcp"], name: "fake-sha256")
        XCTAssertEqual((stats["rtsp"] as? [String: Any])?["transport"] as? String, "tcp")
    }
}
