import XCTest
@testable import RTPCore

/// Access units that refer to payloads where they lie (a mapped capture) must hold the same bytes as
/// access units copied together, through every path that edits them.
final class AccessUnitBorrowingTests: XCTestCase {
    let idrA = Fixture.slice(idr: true, firstMb: 0, bytes: 1500, tag: 0x11)
    let idrB = Fixture.slice(idr: true, firstMb: 40, bytes: 900, tag: 0x12)
    let p1 = Fixture.slice(idr: false, bytes: 700, tag: 0x22)
    let p2 = Fixture.slice(idr: false, bytes: 300, tag: 0x33)
    let p3 = Fixture.slice(idr: false, bytes: 100, tag: 0x44)

    /// SPS/PPS, an IDR picture of two slices in FU-A with SPS/PPS repeated between them (as
    /// rtph264pay sends), then P pictures as single NAL units and FU-A.
    private func packets(inBandParameterSets: Bool = true) -> [[UInt8]] {
        var payloads: [(payload: [UInt8], ts: UInt32, marker: Bool)] = []
        if inBandParameterSets { payloads.append((Fixture.stapA([Fixture.sps, Fixture.pps]), 3000, false)) }
        for f in Fixture.fuA(idrA, size: 400) { payloads.append((f, 3000, false)) }
        if inBandParameterSets { payloads.append((Fixture.stapA([Fixture.sps, Fixture.pps]), 3000, false)) }
        let fragments = Fixture.fuA(idrB, size: 400)
        for (i, f) in fragments.enumerated() { payloads.append((f, 3000, i == fragments.count - 1)) }
        payloads.append((p1, 6000, true))
        for (i, f) in Fixture.fuA(p2, size: 260).enumerated() { payloads.append((f, 9000, i == 1)) }
        payloads.append((p3, 12000, true))
        // Enough more that packets are handed on as they come, once the reorder buffer has primed.
        for n in 0..<80 { payloads.append((Fixture.slice(idr: false, bytes: 300, tag: 0x80 + UInt8(n)), 15000 + 3000 * UInt32(n), true)) }
        return payloads.enumerated().map { i, p in Fixture.rtp(seq: 500 + UInt16(i), ts: p.ts, marker: p.marker, payload: p.payload) }
    }

    /// Feeds `datagrams` from one buffer that outlives the receiver, borrowing or not.
    private func run(_ datagrams: [[UInt8]], borrowing: Bool, parameterSets: [[UInt8]] = []) throws -> CollectingSink {
        let feeder = Feeder {
            $0.stream.borrowsPayloads = borrowing
            $0.parameterSets = parameterSets
            $0.payloadType = 96
        }
        let storage = datagrams.flatMap { $0 }
        try storage.withUnsafeBytes { all in
            var offset = 0
            for d in datagrams {
                try feeder.send(all.view(offset..<offset + d.count))
                offset += d.count
            }
            _ = try feeder.finish()
        }
        return feeder.sink
    }

    private func assertSameBothWays(_ datagrams: [[UInt8]], parameterSets: [[UInt8]] = [],
                                    file: StaticString = #filePath, line: UInt = #line) throws -> CollectingSink {
        let copied = try run(datagrams, borrowing: false, parameterSets: parameterSets)
        let borrowed = try run(datagrams, borrowing: true, parameterSets: parameterSets)
        XCTAssertGreaterThan(copied.accessUnits.count, 80, file: file, line: line)
        XCTAssertTrue(borrowed.accessUnits == copied.accessUnits, "borrowed access units differ", file: file, line: line)
        XCTAssertEqual(borrowed.keyframes, copied.keyframes, file: file, line: line)
        XCTAssertGreaterThan(borrowed.pieceCounts.reduce(0, +), copied.pieceCounts.reduce(0, +), "nothing was borrowed",
                             file: file, line: line)
        return borrowed
    }

    func testCleanStreamIsIdenticalAndRepeatedParameterSetsAreStillRemoved() throws {
        let sink = try assertSameBothWays(packets())
        XCTAssertTrue(sink.accessUnits.prefix(4).elementsEqual([
            Fixture.annexB([Fixture.sps, Fixture.pps, idrA, idrB]), Fixture.annexB([p1]), Fixture.annexB([p2]),
            Fixture.annexB([p3])]))
    }

    func testLostFragmentDropsItsPictureTheSameWay() throws {
        var datagrams = packets()
        datagrams.remove(at: 11)  // the last fragment of p2: the unit is aborted when p3 comes
        let sink = try assertSameBothWays(datagrams)
        XCTAssertFalse(sink.accessUnits.contains(Fixture.annexB([p2])))
        XCTAssertTrue(sink.accessUnits.contains(Fixture.annexB([p3])))
    }

    func testReorderedPacketsAreCopiedAndTheRestBorrowed() throws {
        var datagrams = packets()
        datagrams.swapAt(3, 5)
        datagrams.swapAt(9, 10)
        _ = try assertSameBothWays(datagrams)
    }

    func testParameterSetsFromTheSDPAreSplicedInFrontOfABorrowedKeyframe() throws {
        let sink = try assertSameBothWays(packets(inBandParameterSets: false), parameterSets: [Fixture.sps, Fixture.pps])
        XCTAssertTrue(sink.accessUnits.first == Fixture.annexB([Fixture.sps, Fixture.pps, idrA, idrB]))
    }
}
