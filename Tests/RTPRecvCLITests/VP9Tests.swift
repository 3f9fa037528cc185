import Foundation
import XCTest

/// VP9 over RTP (RFC 9628) end to end: GStreamer's rtpvp9pay (15-bit PictureIDs, the scalability
/// structure on keyframes) and FFmpeg's RTP muxer with its SDP, compared frame for frame with the
/// encoder's output; and, from a two-layer encode, the flexible and non-flexible modes no sender
/// here writes, packetized by `VP9TestPacketizer`, with losses checked by decoding.
final class VP9Tests: XCTestCase {
    private func capture(_ name: String) -> URL { FrameCaptures.capture(name) }

    func testEveryCaptureIsFrameIdenticalToItsSource() throws {
        for (name, source) in [("gst-vp9", "gst-vp9.webm"), ("ffmpeg-vp9", "ffmpeg-vp9.ivf")] {
            let sdp = name.hasPrefix("ffmpeg") ? ["--sdp", capture(name + ".sdp").path] : []
            let (ivf, ledger, stderr) = try FrameCaptures.replay(capture(name + ".pcap"), sdp, name: name)
            let expected = try FrameCaptures.packetHashes(capture(source))
            XCTAssertEqual(expected.count, 120, name)
            XCTAssertEqual(try FrameCaptures.packetHashes(ivf), expected, name)
            XCTAssertTrue(ledger.allSatisfy { $0.status == "written" && $0.refs_intact }, name)
            XCTAssertTrue(stderr.contains("video      VP9 Profile 0, 320x240, 8-bit 4:2:0"), "\(name): \(stderr)")
            XCTAssertEqual(try Harness.probe(ivf, "stream=codec_name,width,height"), "codec_name=vp9\nwidth=320\nheight=240\n", name)
            XCTAssertEqual(try Harness.frameMD5(ivf), try Harness.frameMD5(capture(source)), name)
        }
    }

    /// rtprecv's own decoder output (libavcodec's vp9, opened by the codec's name) is the ffmpeg
    /// CLI's decode of the source, picture for picture.
    func testTheDecodedFramesAreTheSourcesDecodedByFFmpeg() throws {
        let md5 = Harness.temporaryFile("vp9.md5")
        let result = try Harness.rtprecv(["--pcap", capture("gst-vp9.pcap").path, "--frame-md5", md5.path, "-q"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(Harness.hashes(try Data(contentsOf: md5)), try Harness.frameMD5(capture("gst-vp9.webm")))
    }

    /// FFmpeg's payloads (a descriptor of B and E only) read as H.265 slices too: --list and the
    /// receiver take VP9, whose keyframe header is the stronger evidence.
    func testWithoutAnSDPFFmpegsVP9IsKnownAsVP9() throws {
        let list = try Harness.rtprecv(["--pcap", capture("ffmpeg-vp9.pcap").path, "--list"])
        XCTAssertTrue(String(decoding: list.stdout, as: UTF8.self).contains("VP9 320x240  120 frames, 3 keyframes"),
                      String(decoding: list.stdout, as: UTF8.self))
        let (ivf, _, _) = try FrameCaptures.replay(capture("ffmpeg-vp9.pcap"), name: "ffmpeg-vp9-no-sdp")
        XCTAssertEqual(try FrameCaptures.packetHashes(ivf), try FrameCaptures.packetHashes(capture("ffmpeg-vp9.ivf")))
    }

    /// Without layer indices, a lost frame damages every frame to the next keyframe (30 apart).
    func testWithoutLayersALossDamagesUpToTheNextKeyframe() throws {
        let (ivf, ledger, _) = try FrameCaptures.replay(try FrameCaptures.without([35], of: "gst-vp9"), name: "vp9-plain")
        XCTAssertEqual(ledger.count, 119)
        XCTAssertEqual(ledger.enumerated().filter { !$0.element.refs_intact }.map(\.offset), Array(35..<59))
        let source = try Harness.frameMD5(capture("gst-vp9.webm")), ours = try Harness.frameMD5(ivf)
        XCTAssertEqual(Array(ours[..<35]), Array(source[..<35]))
        XCTAssertEqual(Array(ours[59...]), Array(source[60...]))
    }

    // MARK: Flexible and non-flexible mode, from a two-layer encode

    /// The frames of captures/vp9-layers2.webm (TL0 and TL1 alternating, keyframes at 0 and 60;
    /// TL1 refers to the TL0 before it, and nothing refers to TL1), read from an IVF ffmpeg makes.
    private func layeredFrames() throws -> [[UInt8]] {
        let ivf = Harness.temporaryFile("vp9-layers2-source.ivf")
        let result = try Harness.run("ffmpeg", ["-v", "error", "-y", "-i", capture("vp9-layers2.webm").path, "-c", "copy", ivf.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let data = [UInt8](try Data(contentsOf: ivf))
        var frames: [[UInt8]] = [], offset = 32
        while offset + 12 <= data.count {
            let size = data[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
            frames.append(Array(data[offset + 12..<offset + 12 + size]))
            offset += 12 + size
        }
        XCTAssertEqual(frames.count, 120)
        // frame_type (the fourth bit after the frame marker and profile bits) is 0 for a keyframe.
        XCTAssertEqual(frames.indices.filter { frames[$0][0] & 0x04 == 0 }, [0, 60])
        return frames
    }

    private func assertLoss(of lost: Set<Int>, mode: VP9TestPacketizer.Mode, damages damaged: Set<Int>,
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let frames = try layeredFrames()
        let packets = VP9TestPacketizer(mode: mode).packetize(frames) { $0 % 2 }
        let kept = packets.enumerated().filter { !lost.contains($0.offset) }.flatMap(\.element)
        let pcap = try FrameCaptures.pcap(kept, name: "vp9-\(mode)-\(lost.sorted())")
        let (ivf, ledger, _) = try FrameCaptures.replay(pcap, ["--codec", "vp9"], name: "vp9-\(mode)-\(lost.sorted())")
        let written = (0..<120).filter { !lost.contains($0) }
        XCTAssertEqual(ledger.count, written.count, file: file, line: line)
        XCTAssertEqual(Set(zip(written, ledger).filter { !$0.1.refs_intact }.map(\.0)), damaged, "\(mode)", file: file, line: line)
        let source = try Harness.frameMD5(capture("vp9-layers2.webm")), ours = try Harness.frameMD5(ivf)
        XCTAssertEqual(ours.count, written.count, file: file, line: line)
        for (place, frame) in written.enumerated() where !damaged.contains(frame) {
            XCTAssertEqual(ours[place], source[frame], "\(mode): frame \(frame) has intact references and decodes as sent",
                           file: file, line: line)
        }
    }

    /// Flexible mode: P_DIFF names each frame's references, so a lost TL1 frame, which nothing
    /// refers to, costs only itself, and a lost TL0 frame every frame to the next keyframe.
    func testFlexibleModeReferencesDecideWhatALossCosts() throws {
        try assertLoss(of: [], mode: .flexible, damages: [])
        try assertLoss(of: [41], mode: .flexible, damages: [])
        try assertLoss(of: [40], mode: .flexible, damages: Set(41..<60))
    }

    /// Non-flexible mode: TL0 frames are switching-up points, so a lost TL1 frame costs only itself;
    /// a lost TL0 frame shows in TL0PICIDX and damages every frame to the next keyframe.
    func testNonFlexibleModeLayersDecideWhatALossCosts() throws {
        try assertLoss(of: [41], mode: .nonFlexible, damages: [])
        try assertLoss(of: [40], mode: .nonFlexible, damages: Set(41..<60))
    }
}

extension VP9Tests {
    /// The pictures of captures/vp9-svc.ivf (libvpx's SVC encoder, scripts/vp9-svc-encode.c: two
    /// spatial layers, 160x120 and 320x240), each split into its layer frames by its superframe index.
    private func svcPictures() throws -> [[[UInt8]]] {
        let data = [UInt8](try Data(contentsOf: capture("vp9-svc.ivf")))
        var pictures: [[[UInt8]]] = [], offset = 32
        while offset + 12 <= data.count {
            let size = data[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
            let picture = Array(data[offset + 12..<offset + 12 + size])
            offset += 12 + size
            let marker = picture.last!
            XCTAssertEqual(marker >> 5, 6, "a superframe index")
            let frames = Int(marker & 7) + 1, width = Int(marker >> 3 & 3) + 1
            var sizes: [Int] = [], at = picture.count - 1 - frames * width
            for _ in 0..<frames {
                sizes.append(picture[at..<at + width].reversed().reduce(0) { $0 << 8 | Int($1) })
                at += width
            }
            var start = 0
            pictures.append(sizes.map { size in
                defer { start += size }
                return Array(picture[start..<start + size])
            })
        }
        return pictures
    }

    /// Each picture's layer frames in packets of at most 500 bytes, with I (PictureID), P, L (SID,
    /// D above the base) and TL0PICIDX, B and E per layer frame, the scalability structure with both
    /// layers' sizes on a keyframe's first packet, and the marker on the picture's last packet.
    private func svcPackets(_ pictures: [[[UInt8]]]) -> [FrameCaptures.Packet] {
        var packets: [FrameCaptures.Packet] = [], sequence: UInt16 = 500
        for (n, layers) in pictures.enumerated() {
            let key = layers[0][0] & 0x04 == 0
            for (sid, frame) in layers.enumerated() {
                let chunks = stride(from: 0, to: frame.count, by: 500).map { Array(frame[$0..<min($0 + 500, frame.count)]) }
                for (j, chunk) in chunks.enumerated() {
                    let ss: [UInt8] = key && sid == 0 && j == 0 ? [0x30, 0, 160, 0, 120, 1, 64, 0, 240] : []
                    var first: UInt8 = 0x80 | 0x20 | (key ? 0 : 0x40)
                    if j == 0 { first |= 0x08 }
                    if j == chunks.count - 1 { first |= 0x04 }
                    if !ss.isEmpty { first |= 0x02 }
                    let descriptor = [first, 0x80 | UInt8(n >> 8), UInt8(n & 0xff), UInt8(sid << 1) | (sid > 0 ? 1 : 0), UInt8(n & 0xff)] + ss
                    let last = sid == layers.count - 1 && j == chunks.count - 1
                    packets.append((UInt64(1_000_000 + n * 33_333), TestPcap.rtp(descriptor + chunk, marker: last, sequence: sequence,
                                                                                timestamp: UInt32(n * 3000), ssrc: 0x5C5C_0001)))
                    sequence &+= 1
                }
            }
        }
        return packets
    }

    /// Spatial layers as an SFU forwards them: every picture written as the superframe the
    /// encoder made, byte for byte, and decoded alike; with --spatial-layer 0, the base layer's
    /// frames alone, the packets above counted.
    func testSpatialLayersAreWrittenAsTheEncodersSuperframes() throws {
        let pictures = try svcPictures()
        XCTAssertEqual(pictures.count, 60)
        XCTAssertTrue(pictures.allSatisfy { $0.count == 2 })
        let pcap = try FrameCaptures.pcap(svcPackets(pictures), name: "vp9-svc")
        let list = String(decoding: try Harness.rtprecv(["--pcap", pcap.path, "--list"]).stdout, as: UTF8.self)
        XCTAssertTrue(list.contains("VP9 320x240  2 spatial layers, 60 frames, 2 keyframes"), list)
        let (ivf, ledger, stderr) = try FrameCaptures.replay(pcap, ["--codec", "vp9"], name: "vp9-svc")
        XCTAssertEqual(try FrameCaptures.packetHashes(ivf), try FrameCaptures.packetHashes(capture("vp9-svc.ivf")))
        XCTAssertEqual(try Harness.frameMD5(ivf), try Harness.frameMD5(capture("vp9-svc.ivf")))
        XCTAssertEqual(ledger.filter { $0.status == "written" }.count, 60)
        XCTAssertTrue(stderr.contains("video      VP9 Profile 0, 320x240"), stderr)

        let stats = Harness.temporaryFile("vp9-svc-base.json")
        let (base, _, baseErr) = try FrameCaptures.replay(pcap, ["--codec", "vp9", "--spatial-layer", "0", "--stats-json", stats.path],
                                                          name: "vp9-svc-base")
        let baseFrames = pictures.map { $0[0] }
        let baseIVF = Harness.temporaryFile("vp9-svc-base-source.ivf")
        var data = [UInt8](try Data(contentsOf: capture("vp9-svc.ivf")).prefix(32))
        for (n, frame) in baseFrames.enumerated() {
            withUnsafeBytes(of: UInt32(frame.count).littleEndian) { data += $0 }
            withUnsafeBytes(of: UInt64(n).littleEndian) { data += $0 }
            data += frame
        }
        try Data(data).write(to: baseIVF)
        XCTAssertEqual(try FrameCaptures.packetHashes(base), try FrameCaptures.packetHashes(baseIVF))
        XCTAssertTrue(baseErr.contains("video      VP9 Profile 0, 160x120"), baseErr)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any]
        let stream = (json?["streams"] as? [[String: Any]])?.first ?? (json?["stream"] as? [String: Any])
        XCTAssertGreaterThan(stream?["upper_spatial_layer_packets"] as? Int ?? 0, 0, "\(String(describing: json))")
    }
}

/// An RFC 9628 packetizer for the tests, written from the RFC and sharing nothing with rtprecv:
/// 15-bit PictureIDs, layer indices, and in flexible mode one P_DIFF per inter frame (a TL0 frame
/// refers to the TL0 frame before it, a TL1 frame to the TL0 frame just before it); in non-flexible
/// mode TL0PICIDX, and U on TL0 frames (nothing above refers past them). Keyframes (frame_type 0)
/// refer to nothing.
struct VP9TestPacketizer {
    enum Mode { case flexible, nonFlexible }
    let mode: Mode
    var maxPayload = 400

    /// Each frame's packets, with the layer `layer` gives it.
    func packetize(_ frames: [[UInt8]], layer: (Int) -> Int) -> [[FrameCaptures.Packet]] {
        var sequence: UInt16 = 1000, tl0Index = 0, lastKeyframe = 0
        return frames.enumerated().map { i, frame in
            let key = frame[0] & 0x04 == 0
            if key { lastKeyframe = i }
            let tid = key ? 0 : layer(i)
            if tid == 0 && i > 0 { tl0Index = (tl0Index + 1) & 0xff }
            let pDiff = key ? 0 : tid == 0 ? min(2, i - lastKeyframe) : 1
            var descriptorTail: [UInt8] = [0x80 | UInt8(i >> 8 & 0x7f), UInt8(i & 0xff)]
            descriptorTail.append(UInt8(tid << 5) | (mode == .nonFlexible && tid == 0 ? 0x10 : 0))
            if mode == .nonFlexible { descriptorTail.append(UInt8(tl0Index)) }
            if mode == .flexible && !key { descriptorTail.append(UInt8(pDiff << 1)) }
            let chunks = stride(from: 0, to: frame.count, by: maxPayload).map { Array(frame[$0..<min($0 + maxPayload, frame.count)]) }
            return chunks.enumerated().map { j, chunk in
                var first: UInt8 = 0x80 | 0x20  // I, L
                if !key { first |= 0x40 }  // P
                if mode == .flexible { first |= 0x10 }  // F
                if j == 0 { first |= 0x08 }  // B
                if j == chunks.count - 1 { first |= 0x04 }  // E
                defer { sequence &+= 1 }
                let rtp = TestPcap.rtp([first] + descriptorTail + chunk, marker: j == chunks.count - 1, sequence: sequence,
                                       timestamp: UInt32(i * 3000), ssrc: 0x9000_0009)
                return (UInt64(1_000_000 + i * 33_333), rtp)
            }
        }
    }
}
