@testable import RTPCore
import XCTest

/// The AV1 payload specification's parts: the aggregation header and its OBU elements (with the
/// specification's own size example), LEB128, OBU headers, a libaom sequence header, and temporal
/// units assembled from elements.
final class AV1PayloadTests: XCTestCase {
    /// §4.5's example: a 303-byte payload, W=2, the first element 200 bytes behind a two-byte
    /// length; the second is what is left, 100 bytes.
    func testTheSpecificationsSizeExample() throws {
        var payload: [UInt8] = [0x20] + [0xC8, 0x01] + [UInt8](repeating: 1, count: 200) + [UInt8](repeating: 2, count: 100)
        XCTAssertEqual(payload.count, 303)
        var sizes: [Int] = []
        let read = try payload.withUnsafeBytes { p -> Bool in
            let header = try XCTUnwrap(AV1AggregationHeader(p))
            XCTAssertEqual(header.elementCount, 2)
            return header.forEachElement(p.view(1..<p.count)) { element, _ in sizes.append(element.count) }
        }
        XCTAssertTrue(read)
        XCTAssertEqual(sizes, [200, 100])
        // W=3 with one element: the count falls short.
        payload = [0x30, 0x01, 0xAA]
        XCTAssertFalse(payload.withUnsafeBytes { p in AV1AggregationHeader(p)!.forEachElement(p.view(1..<p.count)) { _, _ in } })
        // N with Z cannot be.
        XCTAssertNil([UInt8(0x88)].withUnsafeBytes { AV1AggregationHeader($0) })
    }

    func testLEB128() {
        for value in [0, 1, 127, 128, 200, 16383, 16384, Int(UInt32.max)] {
            var bytes: [UInt8] = []
            LEB128.append(value, to: &bytes)
            let read = bytes.withUnsafeBytes { LEB128.read($0) }
            XCTAssertEqual(read?.value, value)
            XCTAssertEqual(read?.size, bytes.count)
        }
        let tooLong = [UInt8](repeating: 0x80, count: 9), tooLarge: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0x7F], cut: [UInt8] = [0x80]
        XCTAssertNil(tooLong.withUnsafeBytes { LEB128.read($0) }, "over eight bytes")
        XCTAssertNil(tooLarge.withUnsafeBytes { LEB128.read($0) }, "over 2^32 - 1")
        XCTAssertNil(cut.withUnsafeBytes { LEB128.read($0) }, "cut short")
    }

    /// libaom's sequence header for 320x240 8-bit 4:2:0 (captures/av1-source.ivf).
    func testALibaomSequenceHeader() throws {
        let payload: [UInt8] = [0x00, 0x00, 0x00, 0x04, 0x3C, 0xFF, 0xBC, 0xDA, 0xF9, 0x00, 0x40]
        let header = try XCTUnwrap(payload.withUnsafeBytes { AV1SequenceHeader($0) })
        XCTAssertEqual(header.profile, 0)
        XCTAssertEqual(header.maxWidth, 320)
        XCTAssertEqual(header.maxHeight, 240)
        XCTAssertEqual(header.bitDepth, 8)
        XCTAssertFalse(header.reducedStillPictureHeader)
        XCTAssertEqual(header.parameters.description, "AV1 Main, Main tier, level 2.0, 320x240, 8-bit 4:2:0")
        for cut in 0..<payload.count - 1 {
            XCTAssertNil(Array(payload[..<cut]).withUnsafeBytes { AV1SequenceHeader($0) }, "cut at \(cut)")
        }
    }

    /// A unit from elements: the temporal delimiter first, sizes written, a TD that came dropped, a
    /// fragment joined across packets, and the kept sequence header put before a later keyframe.
    func testATemporalUnitIsAssembledInTheLowOverheadFormat() throws {
        let sequenceHeader: [UInt8] = [0x08, 0x00, 0x00, 0x00, 0x04, 0x3C, 0xFF, 0xBC, 0xDA, 0xF9, 0x00, 0x40]
        let keyframe: [UInt8] = [0x30, 0x10, 0x20, 0x30]  // a frame OBU, frame_type KEY_FRAME
        var assembly = AV1TemporalUnitAssembly(), bytes: [UInt8] = []
        func add(_ packet: [UInt8]) -> FrameRecord.Reason? {
            packet.withUnsafeBytes { p in assembly.append(p.view(1..<p.count), of: AV1AggregationHeader(p)!, to: &bytes) }
        }
        assembly.begin(&bytes)
        XCTAssertNil(add([0x48, UInt8(sequenceHeader.count)] + sequenceHeader + [0x02, 0x10, 0x00] + [0x02, 0x30, 0x10]))
        XCTAssertNil(add([0x90] + [0x20, 0x30]))  // Z, W=1: the frame's last bytes
        XCTAssertNil(assembly.end(&bytes))
        XCTAssertEqual(bytes, [0x12, 0x00] + [0x0A, 0x0B] + sequenceHeader.dropFirst() + [0x32, 0x03, 0x10, 0x20, 0x30])
        bytes.removeAll()
        assembly.begin(&bytes)
        XCTAssertNil(add([0x10] + keyframe))
        XCTAssertNil(assembly.end(&bytes))
        XCTAssertEqual(bytes, [0x12, 0x00] + [0x0A, 0x0B] + sequenceHeader.dropFirst() + [0x32, 0x03, 0x10, 0x20, 0x30])
        // A continuation whose start never came, and a fragment never finished.
        bytes.removeAll()
        assembly.begin(&bytes)
        XCTAssertEqual(add([0x90, 0x01]), .missingFragmentStart)
        XCTAssertNil(add([0x50, 0x30, 0x10]))
        XCTAssertEqual(assembly.end(&bytes), .unfinishedFragment)
    }
}
