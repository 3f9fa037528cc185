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
        var assembly = AV1TemporalUnitAssembly()
        let bytes = AccessUnitBuffer(capacity: 64)
        func add(_ packet: [UInt8]) -> FrameRecord.Reason? {
            packet.withUnsafeBytes { p in
                assembly.append(p.view(1..<p.count), of: AV1AggregationHeader(p)!, to: bytes, borrowing: false)
            }
        }
        var unit: [UInt8] { bytes.withPieces(upTo: bytes.count) { $0.flatMap { Array($0) } } }
        assembly.begin(bytes)
        XCTAssertNil(add([0x48, UInt8(sequenceHeader.count)] + sequenceHeader + [0x02, 0x10, 0x00] + [0x02, 0x30, 0x10]))
        XCTAssertNil(add([0x90] + [0x20, 0x30]))  // Z, W=1: the frame's last bytes
        XCTAssertNil(assembly.end(bytes))
        XCTAssertEqual(unit, [0x12, 0x00] + [0x0A, 0x0B] + sequenceHeader.dropFirst() + [0x32, 0x03, 0x10, 0x20, 0x30])
        assertHeaderIsRead(of: unit, assembly)
        bytes.removeAll()
        assembly.begin(bytes)
        XCTAssertNil(add([0x10] + keyframe))
        XCTAssertNil(assembly.end(bytes))
        XCTAssertEqual(unit, [0x12, 0x00] + [0x0A, 0x0B] + sequenceHeader.dropFirst() + [0x32, 0x03, 0x10, 0x20, 0x30])
        assertHeaderIsRead(of: unit, assembly)
        XCTAssertEqual(assembly.unitHeader?.isKeyframe, true, "with the sequence header put back")
        // An OBU of an undefined type (0): the unit has no header, as read whole it has none.
        bytes.removeAll()
        assembly.begin(bytes)
        XCTAssertNil(add([0x10, 0x00, 0x01]))
        XCTAssertNil(assembly.end(bytes))
        XCTAssertNil(assembly.unitHeader)
        XCTAssertNil(unit.withUnsafeBytes { AV1TemporalUnitHeader($0) })
        // A continuation whose start never came, and a fragment never finished.
        bytes.removeAll()
        assembly.begin(bytes)
        XCTAssertEqual(add([0x90, 0x01]), .missingFragmentStart)
        XCTAssertNil(add([0x50, 0x30, 0x10]))
        XCTAssertEqual(assembly.end(bytes), .unfinishedFragment)
    }
}

/// The header the assembly gives is the one read from the unit it wrote.
private func assertHeaderIsRead(of unit: [UInt8], _ assembly: AV1TemporalUnitAssembly, line: UInt = #line) {
    let read = unit.withUnsafeBytes { AV1TemporalUnitHeader($0) }
    XCTAssertEqual(assembly.unitHeader?.isKeyframe, read?.isKeyframe, line: line)
    XCTAssertEqual(assembly.unitHeader?.sequenceHeader?.parameters.description, read?.sequenceHeader?.parameters.description, line: line)
}

/// VP8, VP9 and AV1 are not proved by what only looks like them: random payloads (ciphertext, or
/// audio on a dynamic payload type without its SDP), with their first byte random or fixed as an
/// Opus TOC byte is, tried as every registered codec. (A fixed 0x08 reads as H.265 TSA_N slices
/// whose headers parse, and H.265 takes it: a weakness of its slice-based proof, older than these.)
final class NoFalseProofTests: XCTestCase {
    private struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func testRandomPayloadsProveNoCodec() throws {
        for (seed, firstByte) in [(1, nil), (2, nil), (3, UInt8(0x78)), (4, UInt8(0xFC)), (5, UInt8(0x08))] as [(UInt64, UInt8?)] {
            var rng = SplitMix(state: seed)
            let f = Feeder()
            for i in 0..<3000 {
                var payload = (0..<Int.random(in: 20...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                if let firstByte { payload[0] = firstByte }
                try f.send(Fixture.rtp(seq: UInt16(i), ts: UInt32(i / 3 * 3000), marker: i % 3 == 2, pt: 111, payload: payload))
            }
            _ = try f.finish()
            let taken = f.receiver.selected?.statistics.codec
            XCTAssertFalse([.vp8, .vp9, .av1].contains(taken), "seed \(seed): taken as \(String(describing: taken))")
            if firstByte != 0x08 { XCTAssertNil(taken, "seed \(seed)") }
        }
    }
}
