import RTPCore
import XCTest

final class MediaClockTests: XCTestCase {
    /// NTP of `seconds` (with a fraction) on a 1900-based clock.
    private func ntp(_ seconds: Double) -> UInt64 {
        let whole = UInt64(seconds)
        return (3_900_000_000 + whole) << 32 | UInt64((seconds - Double(whole)) * 4_294_967_296)
    }

    func testStreamsAreAnchoredOnArrivalUntilAReport() {
        let clock = MediaClock()
        XCTAssertEqual(clock.time(ssrc: 1, ticks: 90_000, clockRate: 90000, arrival: 5_000_000_000), 5_000_000_000)
        XCTAssertEqual(clock.time(ssrc: 1, ticks: 93_000, clockRate: 90000, arrival: 5_100_000_000), 5_033_333_333)
        XCTAssertNil(clock.streams[1]?.synchronizedAt)
    }

    func testReportsPutTwoStreamsOnTheSendersClockWithoutTakingATimeBack() {
        // Video and audio sampled at the same instants; the audio's packets arrive 120 ms late.
        let clock = MediaClock()
        var given: [UInt32: Int64] = [:]
        func time(_ ssrc: UInt32, _ seconds: Double, arrivalDelay: Double) -> Int64 {
            let rate = ssrc == 1 ? 90000.0 : 48000.0
            let t = clock.time(ssrc: ssrc, ticks: Int64(1000 + seconds * rate), clockRate: Int(rate),
                               arrival: Int64((10 + seconds + arrivalDelay) * 1e9))
            if let last = given[ssrc] { XCTAssertGreaterThanOrEqual(t, last, "stream \(ssrc) went back in time") }
            given[ssrc] = t
            return t
        }
        for step in 0..<50 {
            let s = Double(step) * 0.02
            _ = time(1, s, arrivalDelay: 0.003)
            _ = time(2, s, arrivalDelay: 0.120)
        }
        // Both report the instant 0.9 s, on their RTP clocks and on the NTP clock (0.9 s is all fraction).
        clock.senderReport(ssrc: 1, ntp: ntp(0.9), rtp: UInt32(1000 + 81000), arrival: 11_000_000_000)
        clock.senderReport(ssrc: 2, ntp: ntp(0.9), rtp: UInt32(1000 + 43200), arrival: 11_000_000_000)
        for step in 50..<100 {
            let s = Double(step) * 0.02
            let video = time(1, s, arrivalDelay: 0.003), audio = time(2, s, arrivalDelay: 0.120)
            XCTAssertLessThan(abs(audio - video), 1_000_000, "at \(s) s the two are \(audio - video) ns apart")
        }
        XCTAssertEqual(clock.shift, 117_000_000, accuracy: 1_000_000, "the video moved later, not the audio earlier")
        XCTAssertEqual((clock.streams[2]?.correction ?? 0) / 1_000_000, -117)
        XCTAssertNotNil(clock.streams[2]?.synchronizedAt)
    }

    func testAReportBeforeTheFirstPacketMovesNothing() {
        let clock = MediaClock()
        _ = clock.time(ssrc: 1, ticks: 0, clockRate: 90000, arrival: 1_000_000_000)
        clock.senderReport(ssrc: 1, ntp: ntp(0), rtp: 0, arrival: 1_000_000_000)
        clock.senderReport(ssrc: 2, ntp: ntp(0.5), rtp: 24000, arrival: 1_100_000_000)
        // The audio's first packet, sampled at 0.6 s, arrives 200 ms late.
        let audio = clock.time(ssrc: 2, ticks: 28800, clockRate: 48000, arrival: 1_800_000_000)
        XCTAssertEqual(audio, 1_600_000_000)
        XCTAssertEqual(clock.shift, 0)
    }

    /// A video stream of 25 fps from t = 10 s, and a report every `every` frames; `report(n)` gives
    /// the report's NTP seconds for frame n (nil: none), its RTP time that of frame n.
    private func run(_ clock: MediaClock, frames: Int, every: Int = 50, report: (Int) -> UInt64?) -> [Int64] {
        var times: [Int64] = []
        for n in 0..<frames {
            let arrival = Int64(10_000_000_000) + Int64(n) * 40_000_000
            if n > 0, n % every == 0, let ntp = report(n) {
                clock.senderReport(ssrc: 7, ntp: ntp, rtp: UInt32(n * 3600), arrival: arrival)
            }
            times.append(clock.time(ssrc: 7, ticks: Int64(n * 3600), clockRate: 90000, arrival: arrival))
        }
        return times
    }

    /// Sender reports whose NTP times alternate between 0 and 2^64-1 (once a trap, as the shift
    /// grew by about 4e18 a report): after the first, none is followed, nothing moves, every one is counted.
    func testReportsAlternatingBetweenExtremesMoveNothing() {
        let clock = MediaClock()
        let times = run(clock, frames: 2000) { n in n == 50 ? self.ntp(2) : (n / 50) % 2 == 0 ? 0 : UInt64.max }
        XCTAssertEqual(clock.shift, 0)
        XCTAssertEqual(clock.streams[7]?.rejectedReports, 38)
        for (n, t) in times.enumerated() { XCTAssertEqual(t, 10_000_000_000 + Int64(n) * 40_000_000, "frame \(n)") }
    }

    /// One report whose NTP time jumps an hour (a camera's clock stepped, or a hostile one) moves
    /// nothing; the next that agrees with it is a stepped clock, followed from where the stream is.
    func testASteppedSenderClockIsFollowedFromWhereTheStreamIs() {
        let clock = MediaClock()
        var outcomes: [MediaClock.ReportOutcome] = []
        var times: [Int64] = []
        for n in 0..<1000 {
            let arrival = Int64(10_000_000_000) + Int64(n) * 40_000_000
            if n > 0, n % 125 == 0 {
                let seconds = Double(n) * 0.04 + (n >= 500 ? 3600 : 0)
                outcomes.append(clock.senderReport(ssrc: 7, ntp: ntp(seconds), rtp: UInt32(n * 3600), arrival: arrival))
            }
            times.append(clock.time(ssrc: 7, ticks: Int64(n * 3600), clockRate: 90000, arrival: arrival))
        }
        XCTAssertEqual(outcomes.count, 7)
        XCTAssertEqual(Array(outcomes[0..<3]), [.accepted, .accepted, .accepted])
        XCTAssertEqual(outcomes[3], .rejected(.inconsistentWithRTP))
        guard case .stepped(let step) = outcomes[4] else { return XCTFail("\(outcomes)") }
        XCTAssertEqual(step, 3_600_000_000_000, accuracy: 1_000_000)
        XCTAssertEqual(Array(outcomes[5...]), [.accepted, .accepted], "the new clock is followed")
        for (n, t) in times.enumerated() { XCTAssertEqual(t, 10_000_000_000 + Int64(n) * 40_000_000, accuracy: 1_000, "frame \(n)") }
        XCTAssertEqual(clock.streams[7]?.clockSteps, 1)
        XCTAssertEqual(clock.shift, 0)
    }

    /// A report's RTP time far from the media's, NTP that runs ahead of arrival, and reports more
    /// often than once a second: none moves anything.
    func testImplausibleAndTooFrequentReportsMoveNothing() {
        let clock = MediaClock()
        _ = clock.time(ssrc: 7, ticks: 0, clockRate: 90000, arrival: 10_000_000_000)
        XCTAssertEqual(clock.senderReport(ssrc: 7, ntp: ntp(0), rtp: 0, arrival: 10_000_000_000), .accepted)
        _ = clock.time(ssrc: 7, ticks: 180_000, clockRate: 90000, arrival: 12_000_000_000)
        XCTAssertEqual(clock.senderReport(ssrc: 7, ntp: ntp(2), rtp: 180_000, arrival: 10_500_000_000), .tooSoon)
        XCTAssertEqual(clock.senderReport(ssrc: 7, ntp: ntp(2), rtp: 180_000 + 900_000, arrival: 12_000_000_000),
                       .rejected(.farFromMedia))
        _ = clock.time(ssrc: 7, ticks: 190_000, clockRate: 90000, arrival: 12_100_000_000)
        XCTAssertEqual(clock.senderReport(ssrc: 7, ntp: ntp(2.1), rtp: 190_000, arrival: 12_100_000_000), .accepted)
        XCTAssertEqual(clock.time(ssrc: 7, ticks: 190_000, clockRate: 90000, arrival: 12_100_000_000), 12_111_111_111)
        // NTP and RTP agree with each other, 2 s on, yet 20 s arrived in between.
        _ = clock.time(ssrc: 7, ticks: 370_000, clockRate: 90000, arrival: 32_100_000_000)
        XCTAssertEqual(clock.senderReport(ssrc: 7, ntp: ntp(4.1), rtp: 370_000, arrival: 32_100_000_000),
                       .rejected(.inconsistentWithArrival))
        XCTAssertEqual(clock.streams[7]?.rejectedReports, 2)
    }

    /// Ten thousand random reports (any NTP, any RTP, any arrival) between packets with extreme
    /// timestamps: no trap, and the stream's times never move backwards across frames in order.
    func testRandomReportsAndTimestampsNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        let clock = MediaClock()
        for n in 0..<10_000 {
            let arrival = Int64.random(in: Int64.min...Int64.max, using: &generator)
            clock.senderReport(ssrc: UInt32(n % 3), ntp: UInt64.random(in: 0...UInt64.max, using: &generator),
                               rtp: UInt32.random(in: 0...UInt32.max, using: &generator), arrival: arrival)
            _ = clock.time(ssrc: UInt32(n % 3), ticks: Int64.random(in: Int64.min...Int64.max, using: &generator),
                           clockRate: [1, 8000, 90000, 10_000_000, Int.max][n % 5], arrival: arrival)
        }
        XCTAssertGreaterThanOrEqual(clock.shift, 0)
    }

    func testATimestampJumpContinuesTheTimeline() {
        let clock = MediaClock()
        _ = clock.time(ssrc: 1, ticks: 0, clockRate: 90000, arrival: 0)
        let before = clock.time(ssrc: 1, ticks: 90000, clockRate: 90000, arrival: 1_000_000_000)
        let after = clock.time(ssrc: 1, ticks: 90000 * 3600, clockRate: 90000, arrival: 1_033_000_000)
        XCTAssertEqual(after - before, 20_000_000)
        XCTAssertEqual(clock.streams[1]?.timestampJumps, 1)
    }

    /// A sender silent for 8 s with its clock running (a hold, an outage): the step is the arrival's
    /// too, so the silence is kept; the same step in 20 ms of arrival is a new timeline, bridged.
    func testAPauseWithTheClockRunningIsKept() {
        let clock = MediaClock()
        _ = clock.time(ssrc: 1, ticks: 0, clockRate: 8000, arrival: 0, backIsJump: true)
        let before = clock.time(ssrc: 1, ticks: 160, clockRate: 8000, arrival: 20_000_000, backIsJump: true)
        let after = clock.time(ssrc: 1, ticks: 160 + 8000 * 8, clockRate: 8000, arrival: 8_500_000_000, backIsJump: true)
        XCTAssertEqual(after - before, 8_000_000_000)
        XCTAssertEqual(clock.streams[1]?.timestampJumps, 0)
        let jumped = clock.time(ssrc: 1, ticks: 320 + 8000 * 16, clockRate: 8000, arrival: 8_520_000_000, backIsJump: true)
        XCTAssertEqual(jumped - after, 20_000_000)
        XCTAssertEqual(clock.streams[1]?.timestampJumps, 1)
        XCTAssertFalse(MediaClock.isJump(step: 60_000_000_000, arrived: 66_500_000_000, backIsJump: false), "within a tenth more")
        XCTAssertTrue(MediaClock.isJump(step: 60_000_000_000, arrived: 70_000_000_000, backIsJump: false))
        XCTAssertTrue(MediaClock.isJump(step: -8_000_000_000, arrived: 8_000_000_000, backIsJump: false), "back is never a pause")
    }

    /// With B-frames, timestamps go back and forth in decoding order (I P B B: +3, -2, +1 frames).
    /// A jump before the second B of a pair puts it where it would have been, between the first B
    /// and the P, not after the P; then the pattern goes on from there.
    func testAJumpAmongBFramesKeepsTheirPlace() {
        let clock = MediaClock(), frame: Int64 = 3000, jump: Int64 = 90000 * 3600
        var times: [Int64] = []
        for ticks: Int64 in [0, 3, 1, 2, 6, 4, 5, 9, 7] { times.append(clock.time(ssrc: 1, ticks: ticks * frame, clockRate: 90000, arrival: 0)) }
        let second = clock.time(ssrc: 1, ticks: 8 * frame + jump, clockRate: 90000, arrival: 0)
        XCTAssertEqual(second - times[8], 33_333_333, "one frame after the first B")
        XCTAssertLessThan(second, times[7], "before the P")
        XCTAssertEqual(clock.time(ssrc: 1, ticks: 12 * frame + jump, clockRate: 90000, arrival: 0) - times[7], 100_000_000, accuracy: 1)
        XCTAssertEqual(clock.streams[1]?.timestampJumps, 1)
    }

    /// A phone's audio clock reset while its packets kept coming (Linphone's stepped back 330 ms):
    /// an audio stream bridges a step back as a jump, one frame on; video's decoding order steps
    /// back (B-frames) and is taken as it comes.
    func testAnAudioStepBackContinuesTheTimeline() {
        let clock = MediaClock()
        var times: [Int64] = []
        for ticks: Int64 in [0, 160, 320, 480, 480 - 2640, 640 - 2640] {
            times.append(clock.time(ssrc: 1, ticks: ticks, clockRate: 8000, arrival: 0, backIsJump: true))
        }
        XCTAssertEqual(zip(times, times.dropFirst()).map { $1 - $0 }, Array(repeating: 20_000_000, count: 5))
        XCTAssertEqual(clock.streams[1]?.timestampJumps, 1)
        for ticks: Int64 in [0, 9000, 3000] { times.append(clock.time(ssrc: 2, ticks: ticks, clockRate: 90000, arrival: 0)) }
        XCTAssertEqual(times.suffix(2).first! - times.last!, 66_666_666, accuracy: 1)
        XCTAssertEqual(clock.streams[2]?.timestampJumps, 0)
    }
}
