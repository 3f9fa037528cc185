import XCTest
@testable import RTPCore

/// An access unit's NAL units, walked and copied as MP4 and Matroska keep their samples (every unit
/// behind its length), their bytes as they came (zero bytes at a unit's end too), whether the
/// receiver said where the units lie or they are looked for.
final class AccessUnitNALUnitsTests: XCTestCase {
    private let idr: [UInt8] = [0x65, 0x88, 0x84, 0x00, 0x00], nonIDR: [UInt8] = [0x41, 0x9A, 0x02]
    private let expected: [UInt8] = [0, 0, 0, 5, 0x65, 0x88, 0x84, 0, 0, 0, 0, 0, 3, 0x41, 0x9A, 0x02]

    /// The unit of `pieces` and `offsets` as a sample, and its NAL units as walked.
    private func converted(_ pieces: [[UInt8]], offsets: [Int]) -> [UInt8] { walked(pieces, offsets: offsets).sample }

    private func walked(_ pieces: [[UInt8]], offsets: [Int]) -> (sample: [UInt8], units: [[UInt8]], copy: [UInt8]) {
        var out: [UInt8] = [9, 9, 9], units: [[UInt8]] = [], scratch: [UInt8] = [], copy: [UInt8] = []
        let buffers = pieces.map { piece in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: piece.count, alignment: 1)
            buffer.copyBytes(from: piece)
            return UnsafeRawBufferPointer(buffer)
        }
        defer { buffers.forEach { $0.deallocate() } }
        buffers.withUnsafeBufferPointer { views in
            offsets.withUnsafeBufferPointer { offsets in
                var unit = AccessUnit(timestamp: 0, pts: 0, pieces: views, isKeyframe: true)
                unit.nalUnitOffsets = offsets
                unit.copyLengthPrefixed(into: &out)
                unit.forEachNALUnit(scratch: &scratch) { units.append(Array($0)) }
                copy = unit.copiedBytes()
            }
        }
        return (out, units, copy)
    }

    func testTheOffsetsTheReceiverGaveAreUsedAcrossPieces() {
        // Two units over three pieces, the first ending in two zero bytes.
        let annexB = Fixture.annexB([idr, nonIDR])
        let pieces = [Array(annexB[0..<6]), Array(annexB[6..<11]), Array(annexB[11...])]
        XCTAssertEqual(converted(pieces, offsets: [0, 9]), expected)
        XCTAssertEqual(walked(pieces, offsets: [0, 9]).units, [idr, nonIDR])
        // Kept past the write (the report's pictures): one array, empty pieces and all.
        XCTAssertEqual(walked(pieces + [[]], offsets: [0, 9]).copy, annexB)
        XCTAssertEqual(walked([], offsets: []).copy, [])
    }

    func testUnitsMadeByHandHaveTheirStartCodesLookedFor() {
        // Three-byte and four-byte start codes alike.
        XCTAssertEqual(converted([[0, 0, 1] + idr + [0, 0, 0, 1] + nonIDR], offsets: []), expected)
        XCTAssertEqual(walked([[0, 0, 1] + idr + [0, 0, 0, 1] + nonIDR], offsets: []).units, [idr, nonIDR])
    }

    func testOffsetsThatNameNoStartCodeAreNotTrusted() {
        XCTAssertEqual(converted([Fixture.annexB([idr, nonIDR])], offsets: [0, 7]), expected)
    }
}
