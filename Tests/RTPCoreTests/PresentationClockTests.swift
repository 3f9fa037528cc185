import XCTest
@testable import RTPCore

/// Times for senders whose RTP timestamps stand still, and for those whose timestamps are right.
final class PresentationClockTests: XCTestCase {
    /// An SPS with VUI timing_info: num_units_in_tick 1, time_scale 60, so 30 frames/s.
    private var sps30: SequenceParameterSet {
        var sps = Fixture.sps.withUnsafeBytes { SequenceParameterSet(nal: $0)! }
        sps.timing = (numUnitsInTick: 1, timeScale: 60)
        return sps
    }

    private func picture(idr: Bool = false, poc: UInt32?) -> PresentationClock.Picture {
        .init(isIDR: idr, isReference: true, picOrderCntLsb: poc, maxPicOrderCntLsb: 256)
    }

    func testTimestampsThatAdvanceAreKeptAsTheyAre() {
        var clock = PresentationClock(clockRate: 90000)
        // B-frames: presentation times out of decoding order.
        let times = [3000, 12000, 6000, 9000].map { Int64($0) }
        let made = times.map { clock.presentationTime(extended: $0, arrival: 0, isIDR: false, newPicture: true) { nil } }
        XCTAssertEqual(made, times)
        XCTAssertNil(clock.source)
    }

    func testStandingTimestampsTakeTheVUIFrameDurationInDisplayOrder() {
        var clock = PresentationClock(clockRate: 90000)
        // I0 P6 B2 B4 (pic_order_cnt_lsb, two per frame), all at timestamp 5000, 3000 ticks a frame:
        // the P shows 3 frames after the I, the Bs 1 and 2.
        let pictures = [picture(idr: true, poc: 0), picture(poc: 6), picture(poc: 2), picture(poc: 4)]
        let sps = sps30
        let made = pictures.map { p in
            clock.presentationTime(extended: 5000, arrival: 0, isIDR: p.isIDR, newPicture: true) { (p, sps.frameRateFraction) }
        }
        XCTAssertEqual(made, [5000, 14000, 8000, 11000])
        XCTAssertEqual(clock.source, .vui(numerator: 30, denominator: 1))
        XCTAssertEqual(clock.retimed, 3)
        // The next IDR follows the latest time given.
        XCTAssertEqual(clock.presentationTime(extended: 5000, arrival: 0, isIDR: true, newPicture: true) {
            (self.picture(idr: true, poc: 0), sps.frameRateFraction)
        }, 17000)
    }

    func testWithoutVUITimingArrivalTimesSpaceTheFrames() {
        var clock = PresentationClock(clockRate: 90000)
        var sps = sps30
        sps.timing = nil
        // 40 ms apart: 3600 ticks.
        let made = (0..<3).map { n in
            clock.presentationTime(extended: 777, arrival: Int64(n) * 40_000_000, isIDR: false, newPicture: true) {
                (self.picture(poc: nil), sps.frameRateFraction)
            }
        }
        XCTAssertEqual(made, [777, 4377, 7977])
        XCTAssertEqual(clock.source, .arrival)
    }

    func testSecondFieldOrSliceOfTheSamePictureIsNoNewPicture() {
        var clock = PresentationClock(clockRate: 90000)
        let made = [true, false].map { clock.presentationTime(extended: 100, arrival: 0, isIDR: false, newPicture: $0) { nil } }
        XCTAssertEqual(made, [100, 100])
        XCTAssertNil(clock.source)
    }
}
