import Foundation
import XCTest

/// RTP over TCP in captures (RFC 2326 §10.12): tcpdump records FFmpeg pulling from a real RTSP
/// server over TCP, and rtprecv replays the capture to the served file's frames, also after a
/// script has put retransmissions, reordering and overlaps into it; a segment the capture missed
/// costs only the frames it held.
final class RTSPCaptureTests: XCTestCase {
    private let port = UInt16(39000 + Int(getpid() % 500) * 2)
    private let source = Harness.captures.appendingPathComponent("ffmpeg-inband.h264")

    /// A capture of `ffmpeg -rtsp_transport tcp` pulling the file from gst-rtsp-server.
    private func recordPull() throws -> URL {
        let server = try Harness.startServer("rtsp-server", ["--port", "\(port)", "--h264", source.path])
        defer { server.terminate(); server.waitUntilExit() }
        return try Harness.record("rtsp-tcp", filter: "tcp port \(port)") {
            let pull = try Harness.run("ffmpeg", ["-v", "error", "-rtsp_transport", "tcp", "-i", "rtsp://127.0.0.1:\(port)/test",
                                                  "-t", "3.5", "-c", "copy", "-f", "null", "-"])
            XCTAssertEqual(pull.status, 0, pull.stderr)
        }
    }

    private func replay(_ capture: URL, name: String, _ extra: [String] = []) throws -> (Harness.Result, URL) {
        let out = Harness.temporaryFile(name + ".h264")
        let r = try Harness.rtprecv(["--pcap", capture.path, "--out", out.path] + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        return (r, out)
    }

    func testACaptureOfAnRTSPPullOverTCPReplaysToTheServedFrames() throws {
        let capture = try recordPull()
        let expected = try Harness.frameMD5(source)
        let (r, out) = try replay(capture, name: "tcp-replay")
        XCTAssertTrue(r.stderr.contains("RTSP interleaved"), r.stderr)
        XCTAssertTrue(r.stderr.contains("session description from the capture: RTSP DESCRIBE reply"), r.stderr)
        XCTAssertEqual(try Harness.frameMD5(out), expected, "every frame, bit-exact")
        let list = try Harness.rtprecv(["--pcap", capture.path, "--list"])
        let listed = String(decoding: list.stdout, as: UTF8.self)
        XCTAssertTrue(listed.contains("H264 320x240"), listed)
        XCTAssertTrue(listed.contains("session from the capture's signalling (RTSP DESCRIBE reply"), listed)

        // Retransmitted, reordered and overlapping segments change nothing.
        let mangled = Harness.temporaryFile("tcp-mangled.pcap")
        let m = try Harness.run(Harness.packageRoot.appendingPathComponent("scripts/tcp-mangle").path,
                                [capture.path, mangled.path, "--port", "\(port)", "--every", "5"])
        XCTAssertEqual(m.status, 0, m.stderr)
        let stats = Harness.temporaryFile("tcp-mangled.json")
        let (_, again) = try replay(mangled, name: "tcp-mangled", ["--stats-json", stats.path])
        XCTAssertEqual(try Harness.frameMD5(again), expected, "the same frames from the mangled capture")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        let tcp = try XCTUnwrap(json["tcp"] as? [String: Any])
        XCTAssertGreaterThan(tcp["retransmitted_bytes"] as? Int ?? 0, 0, "\(tcp)")
        XCTAssertGreaterThan(tcp["out_of_order"] as? Int ?? 0, 0, "\(tcp)")
        XCTAssertEqual(tcp["gaps"] as? Int, 0)

        // A segment the capture missed: a gap, resynchronized after; the frames it held are lost, no others.
        let gapped = Harness.temporaryFile("tcp-gap.pcap")
        XCTAssertEqual(try Harness.run(Harness.packageRoot.appendingPathComponent("scripts/tcp-mangle").path,
                                       [capture.path, gapped.path, "--port", "\(port)", "--every", "1000000", "--drop", "40"]).status, 0)
        let ledger = Harness.temporaryFile("tcp-gap.jsonl")
        let (g, lossy) = try replay(gapped, name: "tcp-gap", ["--frames-json", ledger.path, "--wait-keyframe"])
        XCTAssertTrue(g.stderr.contains("1 gaps"), g.stderr)
        let written = try Harness.videoMD5(lossy)
        XCTAssertGreaterThan(written.count, 0, g.stderr)
        XCTAssertLessThan(written.count, expected.count)
        // Every frame written is one of the source's: none corrupted by the resync, none decoded
        // from a lost reference.
        XCTAssertTrue(Set(written).isSubset(of: Set(try Harness.videoMD5(source))))
        let lines = try String(contentsOf: ledger, encoding: .utf8).split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.contains("\"status\":\"dropped\"") })
    }

    /// A SIP INVITE in the capture names the codec of a dynamic payload type: the Opus of PT 97 is
    /// taken as the SDP says, without --sdp, where it would otherwise be an unknown stream.
    func testASIPInviteInTheCaptureNamesTheCodecs() throws {
        let opus = Harness.captures.appendingPathComponent("ffmpeg-opus.pcap")
        let header = [UInt8](try Data(contentsOf: opus).prefix(24))
        XCTAssertEqual(header[20], 1, "an Ethernet capture")
        let sdp = try String(contentsOf: Harness.captures.appendingPathComponent("ffmpeg-opus.sdp"), encoding: .utf8)
            .replacingOccurrences(of: "\n", with: "\r\n")
        let invite = "INVITE sip:bob@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 10.0.0.1:5060\r\nCSeq: 1 INVITE\r\n"
            + "Content-Type: application/sdp\r\nContent-Length: \(sdp.utf8.count)\r\n\r\n" + sdp
        let records = try TestPcap.records(of: opus)
        let first = records.first!.microseconds * 1000
        let file = Harness.temporaryFile("sip-opus.pcap")
        try TestPcap.data(linkType: 1, records: [(first - 1_000_000, TestPcap.udpFrame(Array(invite.utf8), ethernet: true))]
                          + records.map { ($0.microseconds * 1000, $0.frame) }).write(to: file)
        let list = try Harness.rtprecv(["--pcap", file.path, "--list"])
        let listed = String(decoding: list.stdout, as: UTF8.self)
        XCTAssertTrue(listed.contains("opus/48000/2"), listed)
        XCTAssertTrue(listed.contains("SIP INVITE from 10.0.0.1:40000"), listed)
        let stats = Harness.temporaryFile("sip-opus.json"), wav = Harness.temporaryFile("sip-opus.wav")
        let r = try Harness.rtprecv(["--pcap", file.path, "--wav", wav.path, "--stats-json", stats.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        let audio = try XCTUnwrap((json["audio_streams"] as? [[String: Any]])?.first)
        XCTAssertEqual(audio["codec"] as? String, "Opus")
        XCTAssertEqual(audio["frames_written"] as? Int, audio["packets"] as? Int)
        XCTAssertTrue(try Harness.probe(wav, "stream=codec_name").contains("pcm_s16le"))
    }

    /// A tcpdump (`filter`) of rtprecv pulling ffmpeg-mode0 from the scripted camera over `transport`.
    private func recordCameraPull(transport: String, filter: String) throws -> URL {
        let camera = try Harness.startServer("fake-camera", ["--port", "\(port + 1)",
                                                             "--pcap", Harness.captures.appendingPathComponent("ffmpeg-mode0.pcap").path,
                                                             "--sdp", Harness.captures.appendingPathComponent("ffmpeg-mode0.sdp").path])
        defer { camera.terminate(); camera.waitUntilExit() }
        return try Harness.record("mode0-" + transport, filter: filter) {
            let pull = try Harness.rtprecv(["rtsp://127.0.0.1:\(port + 1)/cam", "--rtsp-transport", transport, "--out", "/dev/null",
                                            "--duration", "5"])
            XCTAssertEqual(pull.status, 0, pull.stderr)
        }
    }

    /// SPS and PPS that only the DESCRIBE's SDP carries: a tcpdump of rtprecv pulling from the
    /// scripted camera over TCP, replayed without --sdp, gives every frame of the stream.
    func testSPSAndPPSFromTheCapturedDescribe() throws {
        let file = try recordCameraPull(transport: "tcp", filter: "tcp port \(port + 1)")
        // Without the SDP the capture's stream has no SPS or PPS: the DESCRIBE in it gives them.
        let (r, out) = try replay(file, name: "mode0-tcp")
        XCTAssertTrue(r.stderr.contains("session description from the capture"), r.stderr)
        XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(Harness.captures.appendingPathComponent("ffmpeg-mode0.h264")))
    }

    /// The DESCRIBE in a capture is the server's: what the server sends from the ports its SETUP
    /// reply named (server_port) is that media line's, whatever client port it goes to (a second
    /// client, or a session set up before the capture began). A pull over UDP from the scripted
    /// camera, whose datagrams are then made to come from the server port it named and to go to
    /// other client ports, replays without --sdp to every frame, SPS and PPS from the DESCRIBE.
    func testTheCapturedDescribeAppliesToTheServersStreamsOnOtherClientPorts() throws {
        let file = try recordCameraPull(transport: "udp", filter: "tcp port \(port + 1) or udp")
        // What the camera sent to the client's ports comes from its server_port (6970-6971), to client
        // ports 100 above.
        let elsewhere = try moveMedia(of: file, to: "mode0-elsewhere.pcap") { (6970 + $0 % 2, $0 + 100) }
        let (r, out) = try replay(elsewhere, name: "mode0-elsewhere")
        XCTAssertTrue(r.stderr.contains("datagrams from the described server's ports to other client ports"), r.stderr)
        XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(Harness.captures.appendingPathComponent("ffmpeg-mode0.h264")))
    }

    /// A described session that gives no keyframe, beside a stream of the same server to another
    /// port that has them (another session of the camera): the hint names that port, and that
    /// port replays to every frame.
    func testWithNoKeyframeOnTheDescribedPortTheHintNamesThePortThatHasThem() throws {
        let file = try recordCameraPull(transport: "udp", filter: "tcp port \(port + 1) or udp")
        // The camera's media comes from ports its SETUP reply did not name, to ports it did not set up.
        let elsewhere = try moveMedia(of: file, to: "mode0-other-session.pcap") { (7970 + $0 % 2, 10970 + $0 % 2) }
        let r = try Harness.rtprecv(["--pcap", elsewhere.path, "--out", Harness.temporaryFile("none.h264").path])
        XCTAssertTrue(r.stderr.contains("hint: no keyframe came to port "), r.stderr)
        XCTAssertTrue(r.stderr.contains(":7970 to port 10970 (PT 96, H264 "), r.stderr)
        XCTAssertTrue(r.stderr.contains("has keyframes: pass --port 10970"), r.stderr)
        let (followed, out) = try replay(elsewhere, name: "mode0-port-10970", ["--port", "10970"])
        XCTAssertFalse(followed.stderr.contains("hint:"), followed.stderr)
        XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(Harness.captures.appendingPathComponent("ffmpeg-mode0.h264")))
    }

    /// Rewrites the UDP ports of the datagrams the camera sent to the client (those not to the camera's
    /// 6970-6971): `ports` maps each one's destination port to its new source and destination ports.
    private func moveMedia(of file: URL, to name: String, ports: (UInt16) -> (UInt16, UInt16)) throws -> URL {
        // Ethernet, IPv4 (20 bytes), UDP: the ports at 34 and 36.
        var moved = 0
        let records = try TestPcap.records(of: file).map { record -> (nanoseconds: UInt64, frame: [UInt8]) in
            var frame = record.frame
            let destination = frame.count > 42 && frame[23] == 17 ? UInt16(frame[36]) << 8 | UInt16(frame[37]) : 0
            if destination > 0, destination != 6970, destination != 6971 {
                let (from, to) = ports(destination)
                frame.replaceSubrange(34..<38, with: [UInt8(from >> 8), UInt8(from & 0xFF), UInt8(to >> 8), UInt8(to & 0xFF)])
                frame[40] = 0
                frame[41] = 0  // no UDP checksum
                moved += 1
            }
            return (record.microseconds * 1000, frame)
        }
        XCTAssertGreaterThan(moved, 100)
        let out = Harness.temporaryFile(name)
        try TestPcap.data(linkType: 1, records: records).write(to: out)
        return out
    }

    /// Garbage on an interleaved RTCP channel (one whose first frame was RTCP), shaped as G.711 RTP:
    /// malformed RTCP, never a stream of its own; the video on channel 0 is the source's.
    func testGarbageOnAnRTCPChannelIsMalformedRTCPNotAStream() throws {
        let records = try TestPcap.records(of: Harness.captures.appendingPathComponent("gst-stapa-fua.pcap"))
        func framed(_ channel: UInt8, _ bytes: [UInt8]) -> [UInt8] { [0x24, channel, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes }
        let senderReport: [UInt8] = [0x80, 200, 0, 6, 0xCA, 0xE4, 0x8E, 0x1D] + [UInt8](repeating: 1, count: 20)
        var stream = framed(1, senderReport)
        for (i, r) in records.enumerated() {
            stream += framed(0, Array(r.frame.dropFirst(14 + 20 + 8)))
            if i % 20 == 10 {
                stream += framed(1, TestPcap.rtp([UInt8](repeating: 0xD5, count: 160), payloadType: 0, marker: false,
                                                 sequence: UInt16(i), timestamp: UInt32(i * 160), ssrc: 0x0BAD_0711))
            }
        }
        let start = records.first!.microseconds * 1000
        var segments: [(nanoseconds: UInt64, frame: [UInt8])] = []
        for (n, offset) in stride(from: 0, to: stream.count, by: 1400).enumerated() {
            let end = min(stream.count, offset + 1400)
            segments.append((start + UInt64(n) * 1_000_000, TestPcap.tcpFrame(Array(stream[offset..<end]), sequence: 1000 + UInt32(offset))))
        }
        let file = Harness.temporaryFile("rtcp-channel-garbage.pcap")
        try TestPcap.data(linkType: 1, records: segments).write(to: file)
        let list = String(decoding: try Harness.rtprecv(["--pcap", file.path, "--list"]).stdout, as: UTF8.self)
        XCTAssertFalse(list.contains("0x0bad0711") || list.contains("PCMU"), list)
        XCTAssertTrue(list.contains("RTCP packets (\(records.count / 20 + (records.count % 20 > 10 ? 1 : 0)) malformed)"), list)
        let (r, out) = try replay(file, name: "rtcp-channel-garbage")
        XCTAssertFalse(r.stderr.contains("0x0bad0711"), r.stderr)
        XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(Harness.captures.appendingPathComponent("gst-stapa-fua.h264")))
    }

    /// RFC 4571 framing (`--tcp-framing rfc4571`): a capture's RTP, each packet after its 16-bit
    /// length, in TCP segments cut anywhere (some the same again, one early), replays to every frame.
    func testRFC4571FramingInTCP() throws {
        let records = try TestPcap.records(of: Harness.captures.appendingPathComponent("ffmpeg-mode0.pcap"))
        var stream: [UInt8] = []
        for r in records {
            let rtp = Array(r.frame.dropFirst(14 + 20 + 8))
            guard rtp.count >= 12, !(200...206).contains(rtp[1]) else { continue }
            stream += [UInt8(rtp.count >> 8), UInt8(rtp.count & 0xFF)] + rtp
        }
        let start = records.first!.microseconds * 1000
        var segments: [(nanoseconds: UInt64, frame: [UInt8])] = []
        var offset = 0, n = 0
        while offset < stream.count {
            let length = min(stream.count - offset, 500 + (n * 37) % 900)
            let segment = TestPcap.tcpFrame(Array(stream[offset..<offset + length]), sequence: 1000 + UInt32(offset))
            segments.append((start + UInt64(n) * 1_000_000, segment))
            if n % 9 == 4 { segments.append((start + UInt64(n) * 1_000_000 + 500, segment)) }  // sent again
            offset += length
            n += 1
        }
        segments.swapAt(10, 11)  // one early
        let file = Harness.temporaryFile("rfc4571.pcap")
        try TestPcap.data(linkType: 1, records: segments).write(to: file)
        let (r, out) = try replay(file, name: "rfc4571", ["--tcp-framing", "rfc4571",
                                                          "--sdp", Harness.captures.appendingPathComponent("ffmpeg-mode0.sdp").path])
        XCTAssertTrue(r.stderr.contains("RFC 4571"), r.stderr)
        XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(Harness.captures.appendingPathComponent("ffmpeg-mode0.h264")))
    }
}
