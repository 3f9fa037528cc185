import Foundation
import XCTest

/// Live RTCP back to a real AVPF sender: GStreamer's rtpsession, whose encoder keyframes only every
/// 1000 frames, answers a PLI with an IDR. A receiver joining mid-GOP gets its first frame at once;
/// without RTCP it gets none. What rtprecv sends is read back by tshark's RTCP dissector.
final class RTCPFeedbackTests: XCTestCase {
    /// Ports apart from other test processes': the sender's RTP to us at `base`, its RTCP in at `base + 10`.
    private let base = UInt16(34000 + Int(getpid() % 1000) * 2)

    /// gst-launch's arguments for the sender: `frames` at 30 frames/s, listening for RTCP on
    /// `base + 10`; with `lossy`, RTX from rtprtxsend (payload type 97, SSRC 0x2222 for 0x1111) and 3%
    /// of the packets dropped before the session.
    private func sender(frames: Int, lossy: Bool = false) -> [String] {
        let retransmission = lossy ? ["!", "rtprtxsend", "payload-type-map=application/x-rtp-pt-map,96=(uint)97",
                                      "ssrc-map=application/x-rtp-ssrc-map,4369=(uint)8738", "max-size-packets=1000",
                                      "!", "identity", "drop-probability=0.03"] : []
        return ["-q", "rtpsession", "name=s", "rtp-profile=avpf",
                "videotestsrc", "is-live=true", "num-buffers=\(frames)", "!", "video/x-raw,width=320,height=240,framerate=30/1",
                "!", "x264enc", "key-int-max=1000", "tune=zerolatency", "speed-preset=ultrafast", "bframes=0",
                "!", "rtph264pay", "pt=96", "config-interval=-1", "ssrc=4369"] + retransmission + ["!", "s.send_rtp_sink",
                "s.send_rtp_src", "!", "udpsink", "host=127.0.0.1", "port=\(base)",
                "s.send_rtcp_src", "!", "udpsink", "host=127.0.0.1", "port=\(base + 1)", "sync=false", "async=false",
                "udpsrc", "address=127.0.0.1", "port=\(base + 10)", "!", "s.recv_rtcp_sink"]
    }

    /// The sender, running for `seconds`, in the background.
    private func startSender(seconds: Int) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["gst-launch-1.0"] + sender(frames: seconds * 30)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// The session as an AVPF SDP offering NACK, PLI and FIR; with `retransmission`, RTX on 97.
    private func sdp(retransmission: Bool = false) throws -> URL {
        let url = Harness.temporaryFile(retransmission ? "rtx.sdp" : "avpf.sdp")
        let rtx = retransmission ? "a=rtpmap:97 rtx/90000\na=fmtp:97 apt=96\n" : ""
        try """
        v=0
        o=- 1 1 IN IP4 127.0.0.1
        s=AVPF
        c=IN IP4 127.0.0.1
        t=0 0
        m=video \(base) RTP/AVPF 96\(retransmission ? " 97" : "")
        a=rtpmap:96 H264/90000
        \(rtx)a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtcp-fb:96 ccm fir

        """.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// rtprecv joining 1.5 s into the sender's first GOP, for `seconds`.
    private func join(_ extra: [String], seconds: String, name: String) throws -> (Harness.Result, [String: Any]) {
        let sender = try startSender(seconds: 4)
        defer { sender.terminate(); sender.waitUntilExit() }
        usleep(1_500_000)
        let stats = Harness.temporaryFile(name + ".json")
        let to = extra.contains("--no-rtcp") ? [] : ["--rtcp-to", "127.0.0.1:\(base + 10)"]
        let r = try Harness.rtprecv(["--sdp", try sdp().path, "--bind", "127.0.0.1", "--duration", seconds, "--out", "/dev/null",
                                     "--stats-json", stats.path] + to + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        return (r, try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any])
    }

    private func framesWritten(_ stats: [String: Any]) -> Int {
        ((stats["streams"] as? [[String: Any]])?.first?["frames_written"] as? Int) ?? 0
    }

    func testJoiningMidGOPAsksForAKeyframeAndGetsOneAtOnce() throws {
        let (r, stats) = try join([], seconds: "0.5", name: "pli")
        XCTAssertGreaterThan(framesWritten(stats), 0, "a keyframe within 0.5 s: \(r.stderr)")
        let rtcp = try XCTUnwrap(stats["rtcp_sent"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(rtcp["pli_sent"] as? Int ?? 0, 1)
        XCTAssertEqual(rtcp["keyframe_requests_answered"] as? Int, 1)
        XCTAssertLessThan(rtcp["last_keyframe_answer_ms"] as? Int ?? .max, 500)
        XCTAssertEqual(rtcp["bye_sent"] as? Int, 1)
    }

    /// 3% of the sender's packets dropped before its session: NACKs bring them back in RTX
    /// (RFC 4588), unwrapped into the stream; without RTCP, --wait-keyframe loses the rest of the GOP.
    func testLossIsRepairedByNACKAndRetransmission() throws {
        func run(_ extra: [String], name: String) throws -> (frames: Int, stats: [String: Any]) {
            let stats = Harness.temporaryFile(name + ".json")
            let sdp = try self.sdp(retransmission: true)
            let listener = try LiveTests.Listener(["--sdp", sdp.path, "--bind", "127.0.0.1", "--wait-keyframe", "--latency-ms", "150",
                                                   "--stats-json", stats.path] + extra, name: name)
            let sender = try Harness.run("gst-launch-1.0", self.sender(frames: 150, lossy: true))
            XCTAssertEqual(sender.status, 0, sender.stderr)
            usleep(300_000)
            XCTAssertEqual(listener.stop(), 0, listener.stderr)
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
            return (framesWritten(json), json)
        }
        let repaired = try run(["--rtcp-to", "127.0.0.1:\(base + 10)"], name: "nack")
        let stream = try XCTUnwrap((repaired.stats["streams"] as? [[String: Any]])?.first)
        let rtx = try XCTUnwrap(stream["retransmissions"] as? [String: Any])
        XCTAssertGreaterThan(rtx["recovered"] as? Int ?? 0, 0, "\(rtx)")
        XCTAssertGreaterThan((repaired.stats["rtcp_sent"] as? [String: Any])?["nack_sent"] as? Int ?? 0, 0)
        XCTAssertGreaterThanOrEqual(repaired.frames, 147, "nearly every frame kept: \(stream)")
        let unrepaired = try run(["--no-rtcp"], name: "no-nack")
        XCTAssertLessThan(unrepaired.frames, 120, "without RTCP the GOP is lost from the first loss on")
    }

    func testWithoutRTCPAMidGOPJoinWaitsForTheNextKeyframe() throws {
        let (r, stats) = try join(["--no-rtcp"], seconds: "1", name: "no-rtcp")
        XCTAssertEqual(framesWritten(stats), 0, r.stderr)
        XCTAssertNil(stats["rtcp_sent"])
    }

    /// Every packet rtprecv sends, as tshark's RTCP dissector reads it: valid, with the report block
    /// naming the sender's SSRC and the highest sequence number rtprecv saw.
    func testWhatIsSentIsValidRTCPToTshark() throws {
        var joined: (Harness.Result, [String: Any])?
        let capture = try Harness.record("rtcp-sent", port: base + 10) { joined = try join([], seconds: "2", name: "tshark") }
        let (r, stats) = try XCTUnwrap(joined)
        let rtcp = try XCTUnwrap(stats["rtcp_sent"] as? [String: Any])
        let sent = try Harness.run("tshark", ["-r", capture.path, "-d", "udp.port==\(base + 10),rtcp", "-V"])
        XCTAssertEqual(sent.status, 0, sent.stderr)
        let text = String(decoding: sent.stdout, as: UTF8.self)
        XCTAssertFalse(text.contains("Malformed") || text.contains("[Expert Info (Error") || text.contains("Warning/Malformed"), text)
        let fields = try Harness.run("tshark", ["-r", capture.path, "-d", "udp.port==\(base + 10),rtcp", "-T", "fields",
                                                "-e", "rtcp.pt", "-e", "rtcp.ssrc.identifier", "-e", "rtcp.ssrc.high_seq",
                                                "-e", "rtcp.sdes.text", "-e", "rtcp.psfb.fmt"])
        let lines = String(decoding: fields.stdout, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, (rtcp["receiver_reports"] as? Int ?? 0) + (rtcp["bye_sent"] as? Int ?? 0),
                       "one datagram per compound: \(lines)")
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("201,202") }, "every compound starts RR, SDES: \(lines)")
        XCTAssertTrue(lines.contains { $0.contains("206") }, "a PLI: \(lines)")
        XCTAssertTrue(lines.last?.contains("203") ?? false, "BYE last: \(lines)")
        let stream = try XCTUnwrap((stats["streams"] as? [[String: Any]])?.first)
        let ssrc = String(format: "0x%08x", stream["ssrc"] as? Int ?? 0)
        XCTAssertTrue(lines.last?.contains(ssrc) ?? false, "the report block names the sender \(ssrc): \(lines.last ?? "")")
        XCTAssertFalse(r.stderr.contains("could not be sent"), r.stderr)
    }
}
