import Foundation
import XCTest

/// Motion JPEG (RFC 2435) from two real encoders: FFmpeg's, sent by FFmpeg's RTP muxer (Q 255 with
/// the tables in the first packet) and recorded by tcpdump, and libjpeg-turbo's `cjpeg` (IJG
/// qualities, 4:2:2 and restart markers), packetised here as RFC 2435 says with a Q factor and no
/// tables, so that the tables rtprecv makes from Q are checked against the library's own scaling.
/// What rtprecv writes must decode, frame for frame, to exactly what the source JPEGs decode to.
final class MJPEGTests: XCTestCase {
    private let port: UInt16 = 5004

    private func sdp(port: UInt16) throws -> URL {
        let url = Harness.temporaryFile("mjpeg-\(port).sdp")
        try "v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=video \(port) RTP/AVP 26\r\n"
            .write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    private func decoded(_ url: URL) throws -> [String] { try Harness.frameMD5(url) }

    func testFFmpegsMotionJPEGOverRTPIsFrameIdenticalInEveryOutput() throws {
        let source = Harness.temporaryFile("mjpeg-ffmpeg.mkv")
        var r = try Harness.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "2",
                                           "-c:v", "mjpeg", "-huffman", "default", "-q:v", "4", "-pix_fmt", "yuvj420p", source.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let sendPort: UInt16 = 17000 + UInt16(getpid() % 1000)
        let pcap = try Harness.record("mjpeg-ffmpeg", port: sendPort, bindingIt: true) {
            let sent = try Harness.run("ffmpeg", ["-v", "error", "-re", "-i", source.path, "-c", "copy", "-f", "rtp",
                                                  "rtp://127.0.0.1:\(sendPort)"])
            XCTAssertEqual(sent.status, 0, sent.stderr)
        }
        let out = Harness.temporaryFile("mjpeg-ffmpeg.mjpeg"), mkv = Harness.temporaryFile("mjpeg-ffmpeg-out.mkv")
        let mp4 = Harness.temporaryFile("mjpeg-ffmpeg-out.mp4")
        r = try Harness.rtprecv(["--pcap", pcap.path, "--sdp", try sdp(port: sendPort).path, "--out", out.path,
                                 "--mkv", mkv.path, "--mp4", mp4.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("Motion JPEG Baseline, 320x240, 8-bit 4:2:0"), r.stderr)
        let expected = try decoded(source)
        XCTAssertEqual(expected.count, 50)
        for file in [out, mkv, mp4] {
            XCTAssertEqual(try decoded(file), expected, file.lastPathComponent)
            XCTAssertTrue(try Harness.probe(file, "stream=codec_name").contains("codec_name=mjpeg"), file.lastPathComponent)
        }
    }

    /// Pictures larger than RFC 2435's header can say (2560x1440): it says 0, and the SDP's
    /// a=x-dimensions gives the size, as cameras send it; without it nothing is written, and `--list`
    /// says where the size would be.
    func testPicturesLargerThan2040TakeTheirSizeFromTheSDP() throws {
        let jpegs = try cjpegFrames("mjpeg-large", frames: 3, ["-quality", "50"], size: "2560x1440")
        let pcap = try capture(jpegs, q: 50, name: "mjpeg-large")
        let sized = Harness.temporaryFile("mjpeg-large.sdp")
        try (String(contentsOf: try sdp(port: port), encoding: .utf8) + "a=x-dimensions:2560,1440\r\n")
            .write(to: sized, atomically: true, encoding: .utf8)
        let out = Harness.temporaryFile("mjpeg-large.mjpeg")
        var r = try Harness.rtprecv(["--pcap", pcap.path, "--sdp", sized.path, "--out", out.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("2560x1440"), r.stderr)
        XCTAssertEqual(try decoded(out), try decodedSources(jpegs, name: "mjpeg-large"))
        let unsized = Harness.temporaryFile("mjpeg-large-unsized.mjpeg")
        r = try Harness.rtprecv(["--pcap", pcap.path, "--out", unsized.path])
        XCTAssertEqual((try? Data(contentsOf: unsized))?.count ?? 0, 0, r.stderr)
        let list = String(decoding: try Harness.rtprecv(["--pcap", pcap.path, "--list"]).stdout, as: UTF8.self)
        XCTAssertTrue(list.contains("JPEG over 2040 (its size is the SDP's a=x-dimensions)  3 frames"), list)
    }

    /// A camera that serves Motion JPEG over RTSP (GStreamer's jpegenc and rtpjpegpay, whose first
    /// packets carry both tables), pulled interleaved: every frame decodes cleanly, at its size.
    func testAMotionJPEGCameraOverRTSP() throws {
        let port = UInt16(39000 + Int(getpid() % 500) * 2)
        let camera = try Harness.startServer("rtsp-server", ["--port", "\(port)", "--jpeg"])
        defer { camera.terminate(); camera.waitUntilExit() }
        let out = Harness.temporaryFile("mjpeg-rtsp.mjpeg"), mkv = Harness.temporaryFile("mjpeg-rtsp.mkv")
        let r = try Harness.rtprecv(["rtsp://127.0.0.1:\(port)/test", "--rtsp-transport", "tcp", "--duration", "3",
                                     "--out", out.path, "--mkv", mkv.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("Motion JPEG Baseline, 320x240, 8-bit 4:2:0"), r.stderr)
        let frames = try decoded(out)
        XCTAssertGreaterThan(frames.count, 60, "30 frames a second for 3 s")
        XCTAssertEqual(try decoded(mkv), frames)
        XCTAssertEqual(try Harness.decodeErrors(out), "")
    }

    /// `frames` pictures of FFmpeg's test pattern, each encoded by cjpeg with `arguments`.
    private func cjpegFrames(_ name: String, frames: Int, _ arguments: [String], size: String = "320x240") throws -> [[UInt8]] {
        let pattern = Harness.temporaryFile(name + "-%02d.ppm")
        let r = try Harness.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25",
                                           "-frames:v", "\(frames)", pattern.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try (1...frames).map { n in
            let ppm = pattern.path.replacingOccurrences(of: "%02d", with: String(format: "%02d", n))
            let encoded = try Harness.run("cjpeg", arguments + [ppm])
            XCTAssertEqual(encoded.status, 0, encoded.stderr)
            return [UInt8](encoded.stdout)
        }
    }

    /// RFC 2435 packets of `jpeg`: its scan in pieces of `fragment` bytes behind a JPEG header of
    /// Q factor `q` (no tables), and a Restart Marker header where the JPEG has a DRI; a width or
    /// height over 2040 as 0, as RFC 2435 cannot say it.
    static func packets(of jpeg: [UInt8], q: UInt8, fragment: Int = 900) -> [(payload: [UInt8], last: Bool)] {
        var (at, width, height, sampling, interval, scan) = (2, 0, 0, UInt8(0), 0, 0)
        while at + 4 <= jpeg.count {
            let marker = jpeg[at + 1], length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
            if marker == 0xC0 {
                height = Int(jpeg[at + 5]) << 8 | Int(jpeg[at + 6])
                width = Int(jpeg[at + 7]) << 8 | Int(jpeg[at + 8])
                sampling = jpeg[at + 11]
            }
            if marker == 0xDD { interval = Int(jpeg[at + 4]) << 8 | Int(jpeg[at + 5]) }
            if marker == 0xDA {
                scan = at + 2 + length
                break
            }
            at += 2 + length
        }
        let data = Array(jpeg[scan..<jpeg.count - 2])  // without its EOI, which the receiver puts back
        let type = (sampling == 0x21 ? 0 : 1) | (interval > 0 ? 64 : 0)
        return stride(from: 0, to: data.count, by: fragment).map { offset in
            var payload: [UInt8] = [0, UInt8(offset >> 16), UInt8(offset >> 8 & 0xFF), UInt8(offset & 0xFF),
                                    UInt8(type), q, UInt8(width <= 2040 ? width / 8 : 0), UInt8(height <= 2040 ? height / 8 : 0)]
            // F and L set, count 0x3FFF: the intervals are not aligned with the packets (RFC 2435 §3.1.7).
            if interval > 0 { payload += [UInt8(interval >> 8), UInt8(interval & 0xFF), 0xFF, 0xFF] }
            return (payload + data[offset..<min(data.count, offset + fragment)], offset + fragment >= data.count)
        }
    }

    /// The frames' packets as a capture, 40 ms apart; `lose` leaves packets out by (frame, packet).
    private func capture(_ frames: [[UInt8]], q: UInt8, name: String, lose: Set<[Int]> = [], payloadType: UInt8 = 26) throws -> URL {
        var records: [(nanoseconds: UInt64, frame: [UInt8])] = []
        var sequence: UInt16 = 1000
        for (n, jpeg) in frames.enumerated() {
            for (k, packet) in Self.packets(of: jpeg, q: q).enumerated() {
                defer { sequence &+= 1 }
                if lose.contains([n, k]) { continue }
                let rtp = TestPcap.rtp(packet.payload, payloadType: payloadType, marker: packet.last, sequence: sequence,
                                       timestamp: UInt32(n * 3600), ssrc: 0x4A504547)
                records.append((UInt64(n) * 40_000_000 + UInt64(k) * 1000, TestPcap.udpFrame(rtp, ethernet: true)))
            }
        }
        let url = Harness.temporaryFile(name + ".pcap")
        try TestPcap.data(linkType: 1, records: records).write(to: url)
        return url
    }

    /// The decoded frames of `jpegs`, each decoded by FFmpeg on its own.
    private func decodedSources(_ jpegs: [[UInt8]], name: String) throws -> [String] {
        let joined = Harness.temporaryFile(name + "-source.mjpeg")
        try Data(jpegs.joined()).write(to: joined)
        return try decoded(joined)
    }

    /// Q factors below 50 and above, 4:2:0 and 4:2:2, with and without restart markers, with and
    /// without an SDP: the tables rtprecv makes from Q are those cjpeg made for that quality.
    func testQFactorsAreTheIJGQualitiesWithRestartMarkersAndEitherSampling() throws {
        for (quality, sampling, restart) in [(30, "2x2", "0"), (75, "2x1", "3"), (90, "2x2", "1")] {
            let name = "mjpeg-q\(quality)"
            let jpegs = try cjpegFrames(name, frames: 6, ["-quality", "\(quality)", "-sample", sampling, "-restart", restart])
            let pcap = try capture(jpegs, q: UInt8(quality), name: name)
            let out = Harness.temporaryFile(name + ".mjpeg")
            // Its static type names it without an SDP too.
            let session = quality == 30 ? [] : ["--sdp", try sdp(port: port).path]
            let r = try Harness.rtprecv(["--pcap", pcap.path, "--out", out.path] + session)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("320x240, 8-bit " + (sampling == "2x1" ? "4:2:2" : "4:2:0")), r.stderr)
            XCTAssertEqual(try decoded(out), try decodedSources(jpegs, name: name), name)
            XCTAssertEqual(try Harness.decodeErrors(out), "", name)
        }
    }

    /// A lost packet costs its frame, said in the ledger; the frames around it are whole, and the
    /// stream goes on at the next frame.
    func testALostPacketCostsOnlyItsFrame() throws {
        let jpegs = try cjpegFrames("mjpeg-loss", frames: 6, ["-quality", "60"])
        XCTAssertGreaterThan(Self.packets(of: jpegs[2], q: 60).count, 2, "frame 2 takes several packets")
        let pcap = try capture(jpegs, q: 60, name: "mjpeg-loss", lose: [[2, 1]])
        let out = Harness.temporaryFile("mjpeg-loss.mjpeg"), ledger = Harness.temporaryFile("mjpeg-loss.jsonl")
        let r = try Harness.rtprecv(["--pcap", pcap.path, "--sdp", try sdp(port: port).path, "--out", out.path,
                                     "--frames-json", ledger.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let records = try Harness.ledger(ledger)
        XCTAssertEqual(records.map(\.status), ["written", "written", "dropped", "written", "written", "written"], "\(records)")
        XCTAssertEqual(records[2].reason, "missing_packets")
        var expected = try decodedSources(jpegs, name: "mjpeg-loss")
        expected.remove(at: 2)
        XCTAssertEqual(try decoded(out), expected)
    }

    /// `--list` names JPEG with its size, on its static type and on a dynamic one; on a dynamic
    /// type a replay takes it only when told, and its hint says how.
    func testListNamesJPEGAndADynamicTypeIsTakenWhenNamed() throws {
        let jpegs = try cjpegFrames("mjpeg-list", frames: 6, ["-quality", "50"])
        for payloadType: UInt8 in [26, 96] {
            let pcap = try capture(jpegs, q: 50, name: "mjpeg-list-\(payloadType)", payloadType: payloadType)
            let r = try Harness.rtprecv(["--pcap", pcap.path, "--list"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let list = String(decoding: r.stdout, as: UTF8.self)
            XCTAssertTrue(list.contains(" \(payloadType) ") && list.contains("JPEG 320x240  6 frames"), list)
        }
        let pcap = Harness.temporaryFile("mjpeg-list-96.pcap"), out = Harness.temporaryFile("mjpeg-dynamic.mjpeg")
        var r = try Harness.rtprecv(["--pcap", pcap.path, "--out", out.path])
        XCTAssertEqual((try? Data(contentsOf: out))?.count ?? 0, 0, "not guessed: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("--codec mjpeg --payload-type 96"), r.stderr)
        r = try Harness.rtprecv(["--pcap", pcap.path, "--out", out.path, "--codec", "mjpeg", "--payload-type", "96"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try decoded(out), try decodedSources(jpegs, name: "mjpeg-dynamic"))
    }
}
