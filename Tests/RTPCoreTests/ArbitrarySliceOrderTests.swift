import XCTest
@testable import RTPCore

/// A slice that starts at macroblock 0 starts a new picture (§7.4.1.2.3) unless it is the first
/// macroblock of the current picture arriving late, which only §7.4.1.2.4's fields tell.
final class ArbitrarySliceOrderTests: XCTestCase {
    private func slice(_ idr: Bool, firstMb: Int, frameNum: Int, tag: UInt8) -> [UInt8] {
        Fixture.slice(idr: idr, firstMb: firstMb, bytes: 30, tag: tag, frameNum: frameNum)
    }

    func testLateFirstMacroblockStaysInItsPictureAndNewPicturesStillSplit() throws {
        let idrLate = slice(true, firstMb: 150, frameNum: 0, tag: 1), idrFirst = slice(true, firstMb: 0, frameNum: 0, tag: 2)
        let pLate = slice(false, firstMb: 40, frameNum: 1, tag: 3), pFirst = slice(false, firstMb: 0, frameNum: 1, tag: 4)
        // A sender that keeps one timestamp: pictures told apart by macroblock 0 coming again...
        let p2 = slice(false, firstMb: 0, frameNum: 2, tag: 5), p3 = slice(false, firstMb: 0, frameNum: 3, tag: 6)
        // ...or by frame_num when the picture so far has no macroblock 0 (a lost first slice, say).
        let p4Late = slice(false, firstMb: 10, frameNum: 4, tag: 7), p5 = slice(false, firstMb: 0, frameNum: 5, tag: 8)
        let packets: [(payload: [UInt8], ts: UInt32, marker: Bool)] = [
            (Fixture.stapA([Fixture.sps, Fixture.pps]), 3000, false), (idrLate, 3000, false), (idrFirst, 3000, true),
            (pLate, 6000, false), (pFirst, 6000, true),
            (p2, 9000, false), (p3, 9000, true), (p4Late, 12000, false), (p5, 12000, true),
        ]
        let feeder = Feeder { $0.payloadType = 96 }
        for (i, p) in packets.enumerated() {
            try feeder.send(Fixture.rtp(seq: 40 + UInt16(i), ts: p.ts, marker: p.marker, payload: p.payload))
        }
        XCTAssertEqual(try feeder.finish(), [
            Fixture.annexB([Fixture.sps, Fixture.pps, idrLate, idrFirst]), Fixture.annexB([pLate, pFirst]),
            Fixture.annexB([p2]), Fixture.annexB([p3]), Fixture.annexB([p4Late]), Fixture.annexB([p5]),
        ])
    }
}
