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

    /// The parameter sets a container's track takes from the keyframe of `pieces` and `offsets`,
    /// and whether the offsets found them.
    private func parameterSets(_ pieces: [[UInt8]], offsets: [Int]) -> (sets: [UInt8], byOffsets: Bool) {
        let buffers = pieces.map { UnsafeRawBufferPointer(UnsafeMutableRawBufferPointer.allocate(byteCount: $0.count, alignment: 1)) }
        defer { buffers.forEach { $0.deallocate() } }
        for (buffer, piece) in zip(buffers, pieces) { UnsafeMutableRawBufferPointer(mutating: buffer).copyBytes(from: piece) }
        return buffers.withUnsafeBufferPointer { views in
            offsets.withUnsafeBufferPointer { offsets in
                var unit = AccessUnit(timestamp: 0, pts: 0, pieces: views, isKeyframe: true)
                unit.nalUnitOffsets = offsets
                let isSlice: (UnsafeRawBufferPointer) -> Bool = { NALUnitType.isVCL(nalUnitType($0[0])) }
                let keep: (UnsafeRawBufferPointer) -> Bool = { [NALUnitType.sps, NALUnitType.pps].contains(nalUnitType($0[0])) }
                return (VideoTrack.parameterSets(of: unit, isSlice: isSlice, keep), unit.leadingNALUnits(until: isSlice, keep) != nil)
            }
        }
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

    func testATracksParameterSetsAreTheUnitsBeforeTheFirstSliceByTheOffsets() {
        let sei: [UInt8] = [0x06, 0x05, 0x01, 0x80]
        let annexB = Fixture.annexB([Fixture.sps, sei, Fixture.pps, idr, nonIDR])
        let offsets = [0, 4 + Fixture.sps.count, 8 + Fixture.sps.count + sei.count,
                       12 + Fixture.sps.count + sei.count + Fixture.pps.count,
                       16 + Fixture.sps.count + sei.count + Fixture.pps.count + idr.count]
        let sets = Fixture.annexB([Fixture.sps, Fixture.pps])
        // The PPS split over two pieces, and the slice's header alone at a piece's end.
        let pieces = [Array(annexB[..<(offsets[2] + 6)]), Array(annexB[(offsets[2] + 6)..<(offsets[3] + 5)]),
                      Array(annexB[(offsets[3] + 5)...])]
        for found in [parameterSets(pieces, offsets: offsets), parameterSets([annexB], offsets: offsets)] {
            XCTAssertEqual(found.sets, sets)
            XCTAssertTrue(found.byOffsets)
        }
        // Without offsets, or with offsets that name no start code, the start codes are looked for.
        for found in [parameterSets(pieces, offsets: []), parameterSets(pieces, offsets: [0, 5])] {
            XCTAssertEqual(found.sets, sets)
            XCTAssertFalse(found.byOffsets)
        }
        // A keyframe with no parameter sets in front has none.
        XCTAssertEqual(parameterSets([Fixture.annexB([idr])], offsets: [0]).sets, [])
    }
}
