@testable import RTPCore
import XCTest

/// RFC 9628 in parts: the payload descriptor in both modes with the scalability structure, the
/// uncompressed header of a keyframe, and the format fed packets made here byte by byte.
final class VP9PayloadTests: XCTestCase {
    private func descriptor(_ bytes: [UInt8]) -> VP9PayloadDescriptor? { bytes.withUnsafeBytes { VP9PayloadDescriptor($0) } }

    func testFlexibleModeReadsEveryReference() throws {
        // I P L F B: 15-bit PictureID 0x0102, TID 2 U SID 0, P_DIFF 1, 2 and 5.
        let d = try XCTUnwrap(descriptor([0xF8, 0x81, 0x02, 0x50, 0x03, 0x05, 0x0A, 0xAA]))
        XCTAssertEqual(d.size, 7)
        XCTAssertTrue(d.flexible && d.beginsFrame && !d.endsLayer && d.interPicturePredicted)
        XCTAssertEqual(d.pictureID, 0x102)
        XCTAssertEqual(d.temporalLayer, 2)
        XCTAssertTrue(d.switchingUp)
        XCTAssertNil(d.tl0PictureIndex)
        XCTAssertEqual(d.referenceCount, 3)
        XCTAssertEqual((0..<3).map { d.referencedPicture($0, of: 0x102) }, [0x101, 0x100, 0xFD])
        XCTAssertEqual(d.referencedPicture(2, of: 1), 0x7FFC, "wraps in 15 bits")
        // A fourth P_DIFF announced: not RFC 9628.
        XCTAssertNil(descriptor([0x50, 0x03, 0x03, 0x03, 0x00]))
    }

    func testNonFlexibleModeWithTheScalabilityStructure() throws {
        // I L B E V: 7-bit PictureID 9, TID 0 SID 1 D, TL0PICIDX 7; SS: two layers with sizes, a
        // picture group of two: TID 0 with one P_DIFF, TID 1 with two.
        let bytes: [UInt8] = [0xAE, 0x09, 0x03, 0x07, 0x38, 0x01, 0x40, 0x00, 0xF0, 0x02, 0x80, 0x01, 0xE0,
                              0x02, 0x04, 0x01, 0x28, 0x01, 0x02, 0xFF]
        let d = try XCTUnwrap(descriptor(bytes))
        XCTAssertEqual(d.size, bytes.count - 1)
        XCTAssertEqual(d.pictureID, 9)
        XCTAssertEqual(d.spatialLayer, 1)
        XCTAssertTrue(d.interLayerDependent)
        XCTAssertFalse(d.beginsFrame, "an upper spatial layer's frame begins no picture")
        XCTAssertTrue(d.beginsLayerFrame)
        XCTAssertEqual(d.tl0PictureIndex, 7)
        XCTAssertEqual(d.scalability?.spatialLayers, 2)
        XCTAssertEqual(d.scalability?.widths, [320, 640])
        XCTAssertEqual(d.scalability?.heights, [240, 480])
        XCTAssertEqual(d.pictureSize(upTo: nil)?.width, 640)
        XCTAssertEqual(d.pictureSize(upTo: 0)?.height, 240)
        XCTAssertEqual(d.scalability?.pictureGroup, 2)
        for cut in 1..<bytes.count - 1 { XCTAssertNil(descriptor(Array(bytes[..<cut])), "cut at \(cut)") }
    }

    /// A keyframe of profile 0 (8-bit 4:2:0), 320x240; and of profile 2, 10-bit.
    func testTheUncompressedHeaderOfAKeyframe() throws {
        let key: [UInt8] = [0x82, 0x49, 0x83, 0x42, 0x00, 0x13, 0xF0, 0x0E, 0xF0]
        let header = try XCTUnwrap(key.withUnsafeBytes { VP9FrameHeader($0) })
        XCTAssertTrue(header.isKeyframe)
        XCTAssertEqual(header.pictureSize?.width, 320)
        XCTAssertEqual(header.pictureSize?.height, 240)
        XCTAssertEqual(header.parameters?.description, "VP9 Profile 0, 320x240, 8-bit 4:2:0")
        // frame_marker, profile 2 (low 0, high 1), show_existing 0, key, shown, not resilient; 10-bit.
        let ten: [UInt8] = [0x92, 0x49, 0x83, 0x42, 0x00, 0x09, 0xF8, 0x07, 0x78]
        XCTAssertEqual(ten.withUnsafeBytes { VP9FrameHeader($0) }?.parameters?.description, "VP9 Profile 2, 320x240, 10-bit 4:2:0")
        var badSync = key
        badSync[2] = 0
        XCTAssertNil(badSync.withUnsafeBytes { VP9FrameHeader($0) })
        let inter: [UInt8] = [0x86, 0x00]
        XCTAssertEqual(inter.withUnsafeBytes { VP9FrameHeader($0) }?.isKeyframe, false)
        XCTAssertTrue([UInt8(0x42)].withUnsafeBytes { VP9FrameHeader.contradicted(by: $0) })
    }

    /// A picture of two spatial layers is written as a superframe, its index after the frames;
    /// with the highest layer set to 0, the layer above is counted and left out.
    func testSpatialLayersMakeASuperframeOrAreLeftOut() throws {
        let key: [UInt8] = [0x82, 0x49, 0x83, 0x42, 0x00, 0x13, 0xF0, 0x0E, 0xF0]
        // I L B E, PictureID n, TID 0 SID s (D above the base), TL0PICIDX n.
        func packet(_ seq: UInt16, picture: UInt8, sid: UInt8, frame: [UInt8], marker: Bool) -> [UInt8] {
            Fixture.rtp(seq: seq, ts: UInt32(picture) * 3000, marker: marker,
                        payload: [0xAC | (picture == 0 ? 0 : 0x40), picture, sid << 1 | (sid > 0 ? 1 : 0), picture] + frame)
        }
        let packets = [packet(1, picture: 0, sid: 0, frame: key, marker: false), packet(2, picture: 0, sid: 1, frame: [0x86, 1], marker: true),
                       packet(3, picture: 1, sid: 0, frame: [0x86, 2], marker: false), packet(4, picture: 1, sid: 1, frame: [0x86, 3], marker: true)]
        let all = Feeder { $0.codec = .vp9 }
        for p in packets { try all.send(p) }
        // Sizes 9 and 2, one byte each: the marker 0b110_00_001 before and after them.
        XCTAssertEqual(try all.finish(), [key + [0x86, 1, 0xC1, 9, 2, 0xC1], [0x86, 2, 0x86, 3, 0xC1, 2, 2, 0xC1]])
        XCTAssertEqual(all.stream.upperSpatialLayerPackets, 0)

        let base = Feeder {
            $0.codec = .vp9
            $0.video.maxSpatialLayer = 0
        }
        for p in packets { try base.send(p) }
        XCTAssertEqual(try base.finish(), [key, [0x86, 2]])
        XCTAssertEqual(base.stream.upperSpatialLayerPackets, 2)
        XCTAssertEqual(base.stream.codec, .vp9)
    }
}
