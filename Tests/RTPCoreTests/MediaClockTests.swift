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

    func testATimestampJumpContinuesTheTimeline() {
        let clock = MediaClock()
        _ = clock.time(ssrc: 1, ticks: 0, clockRate: 90000, arrival: 0)
        let before = clock.time(ssrc: 1, ticks: 90000, clockRate: 90000, arrival: 1_000_000_000)
        let after = clock.time(ssrc: 1, ticks: 90000 * 3600, clockRate: 90000, arrival: 1_033_000_000)
        XCTAssertEqual(after - before, 20_000_000)
        XCTAssertEqual(clock.streams[1]?.timestampJumps, 1)
    }
}
