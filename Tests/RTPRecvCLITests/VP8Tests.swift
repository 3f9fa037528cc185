import Foundation
import XCTest

/// VP8 over RTP (RFC 7741) end to end, from real senders: GStreamer's rtpvp8pay (15-bit PictureIDs;
/// two and three temporal layers with TID, Y and TL0PICIDX) and FFmpeg's RTP muxer with its SDP.
/// Every frame written is compared with the encoder's own output (`-c copy` packet hashes, and
/// pictures decoded by the ffmpeg CLI); losses are made by removing a frame's packets.
final class VP8Tests: XCTestCase {
    private func capture(_ name: String) -> URL { FrameCaptures.capture(name) }
    private func packetHashes(_ url: URL) throws -> [String] { try FrameCaptures.packetHashes(url) }
    private func replay(_ pcap: URL, _ extra: [String] = [], name: String = #function) throws -> (ivf: URL, ledger: [Harness.LedgerRecord], stderr: String) {
        try FrameCaptures.replay(pcap, extra, name: name)
    }
    private func frames(_ name: String) throws -> [(layer: Int?, packets: [FrameCaptures.Packet])] {
        try FrameCaptures.frames(name, layer: VP8Tests.tid)
    }
    private func without(_ lost: Set<Int>, of name: String) throws -> URL { try FrameCaptures.without(lost, of: name) }

    /// The source each capture was packetized from.
    private let sources = ["gst-vp8": "gst-vp8.webm", "gst-vp8-layers2": "gst-vp8-layers2.webm",
                           "gst-vp8-layers3": "gst-vp8-layers3.webm", "ffmpeg-vp8": "ffmpeg-vp8.ivf"]

    /// Each capture, with no option (FFmpeg's with its SDP): the IVF holds every frame bit-exact, ffprobe
    /// reads it as VP8 of the right size, and it decodes as the source does.
    func testEveryCaptureIsFrameIdenticalToItsSource() throws {
        for (name, source) in sources.sorted(by: { $0.key < $1.key }) {
            let sdp = FileManager.default.fileExists(atPath: capture(name + ".sdp").path) ? ["--sdp", capture(name + ".sdp").path] : []
            let (ivf, ledger, stderr) = try replay(capture(name + ".pcap"), sdp, name: name)
            let expected = try packetHashes(capture(source))
            XCTAssertEqual(expected.count, 120, name)
            XCTAssertEqual(try packetHashes(ivf), expected, name)
            XCTAssertEqual(ledger.count, 120, name)
            XCTAssertTrue(ledger.allSatisfy { $0.status == "written" && $0.refs_intact }, name)
            XCTAssertTrue(stderr.contains("120 written"), "\(name): \(stderr)")
            XCTAssertTrue(stderr.contains("video      VP8 Profile 0, 320x240"), "\(name): \(stderr)")
            XCTAssertEqual(try Harness.probe(ivf, "stream=codec_name,width,height"), "codec_name=vp8\nwidth=320\nheight=240\n", name)
            XCTAssertEqual(try Harness.frameMD5(ivf), try Harness.frameMD5(capture(source)), name)
        }
    }

    /// rtprecv's own decoder output (libavcodec, opened by the codec's name) is the ffmpeg CLI's
    /// decode of the source, picture for picture.
    func testTheDecodedFramesAreTheSourcesDecodedByFFmpeg() throws {
        let md5 = Harness.temporaryFile("vp8.md5")
        let result = try Harness.rtprecv(["--pcap", capture("gst-vp8.pcap").path, "--frame-md5", md5.path, "-q"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(Harness.hashes(try Data(contentsOf: md5)), try Harness.frameMD5(capture("gst-vp8.webm")))
    }

    /// Without an SDP, --list knows VP8 from its keyframe header, with the picture size and the
    /// temporal layers.
    func testListNamesVP8AndItsSize() throws {
        let result = try Harness.rtprecv(["--pcap", capture("gst-vp8-layers3.pcap").path, "--list"])
        let out = String(decoding: result.stdout, as: UTF8.self)
        XCTAssertTrue(out.contains("VP8 320x240  3 temporal layers, 120 frames, 2 keyframes"), out)
        let plain = String(decoding: try Harness.rtprecv(["--pcap", capture("gst-vp8.pcap").path, "--list"]).stdout, as: UTF8.self)
        XCTAssertTrue(plain.contains("VP8 320x240  120 frames, 4 keyframes"), plain)
    }

    /// The FLV cannot carry VP8: said at start-up when the codec is known, and the frames go to
    /// the other outputs.
    func testTheFLVSaysItCannotCarryVP8() throws {
        let flv = Harness.temporaryFile("vp8.flv"), ivf = Harness.temporaryFile("vp8-beside.ivf")
        let result = try Harness.rtprecv(["--pcap", capture("ffmpeg-vp8.pcap").path, "--sdp", capture("ffmpeg-vp8.sdp").path,
                                          "--flv", flv.path, "--out", ivf.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("warning: \(flv.path): FLV does not carry VP8"), result.stderr)
        XCTAssertEqual(try packetHashes(ivf).count, 120)
    }

    // MARK: Loss, per temporal layer

    /// The TID of a VP8 payload descriptor (RFC 7741 §4.2).
    static func tid(_ payload: [UInt8]) -> Int? {
        guard payload[0] & 0x80 != 0 else { return nil }
        let x = payload[1]
        var i = 2
        if x & 0x80 != 0 { i += payload[i] & 0x80 != 0 ? 2 : 1 }
        if x & 0x40 != 0 { i += 1 }
        return x & 0x20 != 0 ? Int(payload[i] >> 6) : nil
    }

    /// Replays `name` without the frames at `lost`, and checks the ledger's verdicts against
    /// `damaged` (the frames that may refer to a lost one) and every frame written with intact
    /// references against the source's decode: identical.
    private func assertLoss(of lost: Set<Int>, in name: String, damages damaged: Set<Int>,
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let (ivf, ledger, _) = try replay(try without(lost, of: name), name: "\(name)-\(lost.sorted())")
        let kept = (0..<120).filter { !lost.contains($0) }
        XCTAssertEqual(ledger.count, kept.count, file: file, line: line)
        XCTAssertTrue(ledger.allSatisfy { $0.status == "written" }, file: file, line: line)
        let flagged = Set(zip(kept, ledger).filter { !$0.1.refs_intact }.map(\.0))
        XCTAssertEqual(flagged, damaged, "frames written with damaged references", file: file, line: line)
        let source = try Harness.frameMD5(capture(name + ".webm")), ours = try Harness.frameMD5(ivf)
        XCTAssertEqual(ours.count, kept.count, file: file, line: line)
        for (place, frame) in kept.enumerated() where !damaged.contains(frame) {
            XCTAssertEqual(ours[place], source[frame], "frame \(frame) has intact references and decodes as sent", file: file, line: line)
        }
    }

    /// Two layers, TL1 referring to TL0 only: a lost TL1 frame costs only itself.
    func testALostTopLayerFrameCostsOnlyItself() throws {
        let layers = try frames("gst-vp8-layers2.pcap").map(\.layer)
        XCTAssertEqual(layers[40], 0)
        XCTAssertEqual(layers[41], 1)
        try assertLoss(of: [41], in: "gst-vp8-layers2", damages: [])
        try assertLoss(of: [41, 43, 45], in: "gst-vp8-layers2", damages: [])
    }

    /// A lost base-layer frame damages every frame up to the next keyframe (60), and with
    /// --wait-keyframe those are dropped instead.
    func testALostBaseLayerFrameDamagesEverythingUpToTheNextKeyframe() throws {
        try assertLoss(of: [40], in: "gst-vp8-layers2", damages: Set(41..<60))
        let (_, ledger, _) = try replay(try without([40], of: "gst-vp8-layers2"), ["--wait-keyframe"], name: "wait")
        let dropped = ledger.enumerated().filter { $0.element.status == "dropped" }
        XCTAssertEqual(dropped.map(\.offset), Array(40..<59))
        XCTAssertTrue(dropped.allSatisfy { $0.element.reason == "waiting_for_keyframe" })
    }

    /// Three layers (TL0 TL2 TL1 TL2): a lost TL1 frame damages the TL2 frame that refers to it, and
    /// no other; a lost TL2 frame that is a layer sync damages the next TL2, which the descriptor
    /// does not show to refer to TL0 only.
    func testThreeLayersALostMiddleLayerFrameDamagesOnlyTheFramesAboveThatMayReferToIt() throws {
        let layers = try frames("gst-vp8-layers3.pcap").map(\.layer)
        XCTAssertEqual(Array(layers[40...47]), [0, 2, 1, 2, 0, 2, 1, 2])
        try assertLoss(of: [42], in: "gst-vp8-layers3", damages: [43])
        try assertLoss(of: [41], in: "gst-vp8-layers3", damages: [43])
    }

    /// Without layers, a lost frame damages up to the next keyframe (30 apart); a keyframe that
    /// lost its last packet (and its marker) is dropped, and so damages the frames up to the next.
    func testWithoutLayersALossDamagesUpToTheNextKeyframe() throws {
        let (_, ledger, _) = try replay(try without([35], of: "gst-vp8"), name: "plain")
        XCTAssertEqual(ledger.count, 119)
        XCTAssertEqual(ledger.enumerated().filter { !$0.element.refs_intact }.map(\.offset), Array(35..<59))
        let frames = try frames("gst-vp8.pcap")
        XCTAssertEqual(frames[30].packets.count, 2, "the keyframe at 30 is split in two packets")
        var packets = frames.flatMap(\.packets)
        packets.remove(at: frames[...30].reduce(0) { $0 + $1.packets.count } - 1)
        let (_, damaged, _) = try replay(try FrameCaptures.pcap(packets, name: "gst-vp8-lost-end"), name: "lost-end")
        XCTAssertEqual(damaged.count, 120)
        XCTAssertEqual(damaged[30].status, "dropped")
        XCTAssertEqual(damaged[30].reason, "missing_packets")
        XCTAssertTrue(damaged[30].keyframe)
        XCTAssertEqual(damaged.enumerated().filter { !$0.element.refs_intact && $0.element.status == "written" }.map(\.offset),
                       Array(31..<60))
    }

    // MARK: A real call

    /// A Linphone call over the Internet (VP8 with one packet lost, no SDP): found, and every frame
    /// rtprecv writes is the frame GStreamer's rtpvp8depay takes out of the same packets.
    func testALinphoneCallIsFrameIdenticalToGStreamersDepayloader() throws {
        let pcapng = Harness.realCaptures.appendingPathComponent("linphone_vp8_pcma.pcapng")
        try XCTSkipUnless(FileManager.default.fileExists(atPath: pcapng.path), "needs ../shared/captures-real")
        let pcap = Harness.temporaryFile("linphone.pcap"), mkv = Harness.temporaryFile("linphone-gst.mkv")
        XCTAssertEqual(try Harness.run("editcap", ["-F", "pcap", pcapng.path, pcap.path]).status, 0)
        let gst = try Harness.run("gst-launch-1.0", ["-q", "filesrc", "location=\(pcap.path)", "!", "pcapparse", "dst-port=9078", "!",
                                                     "application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8,payload=96",
                                                     "!", "rtpjitterbuffer", "latency=0", "!", "rtpvp8depay", "!", "matroskamux",
                                                     "!", "filesink", "location=\(mkv.path)"])
        XCTAssertEqual(gst.status, 0, gst.stderr)
        let (ivf, ledger, stderr) = try replay(pcapng, ["--no-audio"], name: "linphone")
        XCTAssertTrue(stderr.contains("video      VP8 Profile 0, 1280x720"), stderr)
        XCTAssertEqual(try packetHashes(ivf), try packetHashes(mkv))
        XCTAssertEqual(ledger.filter { $0.status == "written" }.count, 579)
        XCTAssertEqual(try Harness.decodeErrors(ivf), "")
    }
}
