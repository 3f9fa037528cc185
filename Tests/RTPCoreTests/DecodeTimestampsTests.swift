import XCTest
@testable import RTPCore

final class DecodeTimestampsTests: XCTestCase {
    /// Runs PTS in decoding order through the derivation with the look-ahead the muxer uses.
    private func derive(_ pts: [Int64], depth: Int) -> [Int64] {
        var d = DecodeTimestamps(reorderDepth: depth)
        var out: [Int64] = []
        var queue: [Int64] = []
        for p in pts {
            d.add(pts: p)
            queue.append(p)
            if queue.count > d.lookAhead { out.append(d.next(pts: queue.removeFirst())) }
        }
        while !queue.isEmpty { out.append(d.next(pts: queue.removeFirst())) }
        return out
    }

    func testWithoutReorderingDTSEqualsPTS() {
        let pts: [Int64] = [0, 3000, 6000, 9000]
        XCTAssertEqual(derive(pts, depth: 0), pts)
        // An announced depth only delays the decode times, by whole frames.
        XCTAssertEqual(derive(pts, depth: 2), [-6000, -3000, 0, 3000])
    }

    func testBFramesGiveIncreasingDTSNeverAbovePTS() {
        // I0 P3 B1 B2 P6 B4 B5 in decoding order, two B-frames.
        let pts: [Int64] = [0, 3, 1, 2, 6, 4, 5].map { $0 * 3000 }
        let dts = derive(pts, depth: 2)
        XCTAssertEqual(dts, [-2, -1, 0, 1, 2, 3, 4].map { $0 * 3000 })
        for (p, d) in zip(pts, dts) { XCTAssertLessThanOrEqual(d, p) }
    }

    func testDeeperReorderingThanAnnouncedIsClampedNotBackwards() {
        let pts: [Int64] = [0, 4, 1, 2, 3].map { $0 * 3000 }
        let dts = derive(pts, depth: 1)
        for (p, d) in zip(pts, dts) { XCTAssertLessThanOrEqual(d, p) }
        XCTAssertEqual(dts, dts.sorted())
    }
}
