@testable import RTPCore
import XCTest

/// RFC 7741 in parts: the payload descriptor, the frame tag and keyframe header (RFC 6386 §9.1),
/// the layer rules, and the payload format fed packets made here byte by byte.
final class VP8PayloadTests: XCTestCase {
    private func descriptor(_ bytes: [UInt8]) -> VP8PayloadDescriptor? { bytes.withUnsafeBytes { VP8PayloadDescriptor($0) } }

    func testTheDescriptorReadsEveryExtension() throws {
        let plain = try XCTUnwrap(descriptor([0x10, 0xAA]))
        XCTAssertEqual(plain.size, 1)
        XCTAssertTrue(plain.beginsFrame)
        XCTAssertNil(plain.pictureID)

        // X, N, S, PID 0; I (15-bit 0x1234), L 7, T (TID 2, Y) and K (KEYIDX 5).
        let full = try XCTUnwrap(descriptor([0xB0, 0xF0, 0x92, 0x34, 0x07, 0xA5, 0x9D]))
        XCTAssertEqual(full.size, 6)
        XCTAssertTrue(full.nonReference)
        XCTAssertEqual(full.pictureID, 0x1234)
        XCTAssertEqual(full.pictureIDBits, 15)
        XCTAssertEqual(full.tl0PictureIndex, 7)
        XCTAssertEqual(full.temporalLayer, 2)
        XCTAssertTrue(full.layerSync)
        XCTAssertEqual(full.keyIndex, 5)

        // K alone: the T/K byte is there, with no layer.
        let keyOnly = try XCTUnwrap(descriptor([0x83, 0x10, 0x1F, 0x00]))
        XCTAssertFalse(keyOnly.beginsFrame)
        XCTAssertEqual(keyOnly.partitionIndex, 3)
        XCTAssertNil(keyOnly.temporalLayer)
        XCTAssertEqual(keyOnly.keyIndex, 31)
        XCTAssertEqual(keyOnly.size, 3)
    }

    func testADescriptorThatRunsPastThePayloadIsNil() {
        for bytes: [UInt8] in [[], [0x80], [0x80, 0x80], [0x80, 0x80, 0x80], [0x80, 0x40], [0x80, 0x20], [0x80, 0xF0, 0x01, 0x02]] {
            XCTAssertNil(descriptor(bytes), "\(bytes)")
        }
    }

    func testPictureDistanceWrapsAndNeedsTheSameWidth() throws {
        let a = try XCTUnwrap(descriptor([0x90, 0x80, 0xFF, 0xFF])), b = try XCTUnwrap(descriptor([0x90, 0x80, 0x80, 0x00]))
        XCTAssertEqual(b.pictureDistance(from: a), 1)
        let seven = try XCTUnwrap(descriptor([0x90, 0x80, 0x01]))
        XCTAssertNil(seven.pictureDistance(from: a))
    }

    func testTheKeyframeHeaderGivesTheSizeAndRefusesAMissingStartCode() throws {
        // Keyframe, version 0, shown, first partition 100 bytes; 640x360 with scaling bits set.
        let tag = UInt32(100) << 5 | 0x10
        var key: [UInt8] = [UInt8(tag & 0xFF), UInt8(tag >> 8 & 0xFF), UInt8(tag >> 16), 0x9D, 0x01, 0x2A, 0x80, 0x42, 0x68, 0x01]
        let header = try XCTUnwrap(key.withUnsafeBytes { VP8FrameHeader($0) })
        XCTAssertTrue(header.isKeyframe)
        XCTAssertEqual(header.firstPartitionSize, 100)
        XCTAssertEqual(header.width, 640)
        XCTAssertEqual(header.height, 360)
        XCTAssertEqual(header.parameters?.description, "VP8 Profile 0, 640x360, 8-bit 4:2:0")
        key[4] = 0x02
        XCTAssertNil(key.withUnsafeBytes { VP8FrameHeader($0) })
        XCTAssertTrue(key.withUnsafeBytes { VP8FrameHeader.contradicted(by: $0) })
        let interframe: [UInt8] = [0x31, 0x02, 0x00]
        XCTAssertEqual(interframe.withUnsafeBytes { VP8FrameHeader($0) }?.isKeyframe, false)
        let version5: [UInt8] = [0x0B, 0, 0]
        XCTAssertTrue(version5.withUnsafeBytes { VP8FrameHeader.contradicted(by: $0) })
    }

    func testLayerReferences() {
        var r = LayerReferences()
        r.observe(tl0PictureIndex: 0, layer: 0)
        r.lost(layer: 2)
        XCTAssertTrue(r.intact(layer: 1, sync: false))
        XCTAssertFalse(r.intact(layer: 2, sync: false))
        XCTAssertTrue(r.intact(layer: 2, sync: true))
        r.wrote(layer: 2, sync: true, isKeyframe: false)
        XCTAssertTrue(r.intact(layer: 2, sync: false))
        // A base-layer index that skips one: a TL0 frame was lost whole, and nothing but a keyframe mends it.
        r.observe(tl0PictureIndex: 2, layer: 0)
        XCTAssertFalse(r.intact(layer: 0, sync: false))
        r.wrote(layer: 1, sync: true, isKeyframe: false)
        XCTAssertFalse(r.intact(layer: 1, sync: true))
        r.wrote(layer: 0, sync: false, isKeyframe: true)
        XCTAssertTrue(r.intact(layer: 3, sync: false))
        // A frame lost whole, of no known layer: every layer above the base, until each syncs.
        r.lostWhole()
        XCTAssertTrue(r.intact(layer: 0, sync: false))
        r.wrote(layer: 1, sync: true, isKeyframe: false)
        XCTAssertTrue(r.intact(layer: 1, sync: false))
        XCTAssertFalse(r.intact(layer: 2, sync: false))
        // Without layers, a whole lost frame reaches the base layer.
        var plain = LayerReferences()
        plain.lostWhole()
        XCTAssertFalse(plain.intact(layer: 0, sync: false))
    }

    /// An SDP names VP8 on any dynamic payload type, WebRTC's low ones too, and its fmtp is read.
    func testAnSDPsVP8LineSelectsTheCodec() throws {
        let sdp = try SessionDescription(parsing: """
            v=0
            m=video 5004 RTP/SAVPF 45 96
            a=rtpmap:45 vp8/90000
            a=fmtp:45 max-fr=30;max-fs=nonsense
            a=rtpmap:96 H264/90000
            """)
        XCTAssertEqual(sdp.payloadType, 45)
        XCTAssertEqual(sdp.codec, .vp8)
        XCTAssertEqual(sdp.videoCodecs, [45: .vp8, 96: .h264])
        XCTAssertTrue(sdp.parameterSets.isEmpty)
        XCTAssertEqual(sdp.formatParameters?.warnings, ["max-fs=nonsense is not a positive number; ignored"])
    }

    // MARK: The format, fed packets

    /// A frame's packets: a descriptor with `extra` (after the first byte) on each, the first with S set.
    private func packets(seq: UInt16, ts: UInt32, key: Bool, parts: [[UInt8]], first: UInt8 = 0, extra: [UInt8] = []) -> [[UInt8]] {
        let tag: [UInt8] = key ? [0x10 | 0x00, 0x00, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xF0, 0x00] : [0x11, 0x00, 0x00]
        return parts.enumerated().map { i, part in
            let head = (first | (extra.isEmpty ? 0 : 0x80) | (i == 0 ? 0x10 : 0))
            return Fixture.rtp(seq: seq &+ UInt16(i), ts: ts, marker: i == parts.count - 1, payload: [head] + extra + (i == 0 ? tag : []) + part)
        }
    }

    private func feeder() -> Feeder { Feeder { $0.codec = .vp8 } }

    func testFramesAreWholeFromTheirStartToTheirMarker() throws {
        let f = feeder()
        for p in packets(seq: 1, ts: 0, key: true, parts: [[1], [2, 3]]) + packets(seq: 3, ts: 3000, key: false, parts: [[4]]) {
            try f.send(p)
        }
        let written = try f.finish()
        XCTAssertEqual(written.count, 2)
        XCTAssertEqual(written[0].suffix(3), [1, 2, 3])
        XCTAssertEqual(f.sink.keyframes, [true, false])
        XCTAssertEqual(f.stream.video?.width, 320)
        XCTAssertEqual(f.stream.video?.height, 240)
    }

    /// A lost frame marked non-reference (N) costs only itself; one not so marked, every frame to the
    /// next keyframe.
    func testALostNonReferenceFrameCostsOnlyItself() throws {
        for (n, intact) in [(UInt8(0x20), [true, true, true]), (0, [true, false, false])] {
            let f = feeder()
            var all = packets(seq: 1, ts: 0, key: true, parts: [[1]])
            all += packets(seq: 2, ts: 3000, key: false, parts: [[2], [3]], first: n)
            all += packets(seq: 4, ts: 6000, key: false, parts: [[4]])
            all += packets(seq: 5, ts: 9000, key: false, parts: [[5]])
            all.remove(at: 2)  // the second packet of the frame at 3000
            for p in all { try f.send(p) }
            _ = try f.finish()
            XCTAssertEqual(f.sink.records.map(\.status), [.written, .dropped, .written, .written])
            XCTAssertEqual(f.sink.records.filter { $0.status == .written }.map(\.referencesIntact), intact, "N=\(n)")
        }
    }

    /// With PictureIDs, a gap between two whole frames is frames lost whole; their layer unknown,
    /// every layer above the base is damaged until it syncs, the base itself not (TL0PICIDX goes on).
    func testAPictureIDGapIsAFrameLostWhole() throws {
        let f = feeder()
        // X with I (7-bit), L and T: PictureID, TL0PICIDX, TID/Y.
        func ext(_ picture: UInt8, _ tl0: UInt8, _ tid: UInt8, sync: Bool = false) -> [UInt8] {
            [0xE0, picture, tl0, tid << 6 | (sync ? 0x20 : 0)]
        }
        var all = packets(seq: 1, ts: 0, key: true, parts: [[1]], extra: ext(1, 0, 0))
        all += packets(seq: 2, ts: 3000, key: false, parts: [[2]], extra: ext(2, 0, 1, sync: true))
        all += packets(seq: 3, ts: 6000, key: false, parts: [[3]], extra: ext(3, 1, 0))  // lost
        all += packets(seq: 4, ts: 9000, key: false, parts: [[4]], extra: ext(4, 1, 1))
        all += packets(seq: 5, ts: 12000, key: false, parts: [[5]], extra: ext(5, 2, 0))
        all.remove(at: 2)
        for p in all { try f.send(p) }
        _ = try f.finish()
        // The TL1 frame after the lost TL0 one names TL0PICIDX 1, which never came: the base is damaged.
        XCTAssertEqual(f.sink.records.map(\.referencesIntact), [true, true, false, false])
    }

    func testPayloadsThatCannotBeVP8AreRefused() throws {
        let f = feeder()
        for p in packets(seq: 1, ts: 0, key: true, parts: [[1]]) { try f.send(p) }
        try f.send(Fixture.rtp(seq: 2, ts: 3000, marker: true, payload: [0x80, 0x80]))
        try f.send(Fixture.rtp(seq: 3, ts: 6000, marker: true, payload: [0x10, 0x0F, 0, 0]))  // version 7
        try f.send(Fixture.rtp(seq: 4, ts: 9000, marker: true, payload: [0x10, 0x10, 0, 0, 0x9D, 0x01, 0x2B]))  // no start code
        _ = try f.finish()
        XCTAssertEqual(f.stream.invalidPayload[.tooShort], 1)
        XCTAssertEqual(f.stream.invalidPayload[.frameTag], 2)
    }

    /// A frame whose marker never came ends at the next timestamp when nothing was lost, and is cut
    /// off at the end of the stream.
    func testAFrameWithoutItsMarker() throws {
        let f = feeder()
        var all = packets(seq: 1, ts: 0, key: true, parts: [[1]])
        all += [Fixture.rtp(seq: 2, ts: 3000, marker: false, payload: [0x10, 0x11, 0, 0, 7])]
        all += [Fixture.rtp(seq: 3, ts: 6000, marker: false, payload: [0x10, 0x11, 0, 0, 8])]
        for p in all { try f.send(p) }
        _ = try f.finish()
        XCTAssertEqual(f.sink.records.map(\.status), [.written, .written, .dropped])
        XCTAssertEqual(f.sink.records.last?.reason, .incompleteAtEnd)
    }

    /// Without an SDP or --codec, a VP8 stream proves itself by its keyframe, and is not taken for H.264.
    func testWithoutACodecNamedTheKeyframeProvesVP8() throws {
        let f = Feeder()
        for p in packets(seq: 1, ts: 0, key: true, parts: [[1, 2]]) + packets(seq: 2, ts: 3000, key: false, parts: [[3]]) {
            try f.send(p)
        }
        _ = try f.finish()
        XCTAssertEqual(f.stream.codec, .vp8)
        XCTAssertEqual(f.stream.frames.written, 2)
    }
}
