@testable import RTPRecvCLI
import XCTest

/// How long a live loop sleeps before RTCP is due: never past the report by more than `late` and a
/// step, never before it (a report sent early would shorten the interval RFC 3550 sets), and no
/// longer than `idle`.
final class TurnWaitTests: XCTestCase {
    func testTheWaitEndsAfterTheReportIsDueAndSoonAfter() {
        let now: Int64 = 1_000_000_000_000
        let slack = Int64(TurnWait.late + TurnWait.step) * 1_000_000
        for microseconds in stride(from: -50_000, through: 200_000, by: 250) {
            let due = now + Int64(microseconds) * 1000
            let wait = TurnWait.before(due, now: now)
            let wakes = now + Int64(wait) * 1_000_000
            XCTAssert((1...TurnWait.idle).contains(wait), "\(wait) ms for a report due in \(microseconds) µs")
            XCTAssertEqual(wait % TurnWait.step, 0, "in steps, so that a socket's timeout is seldom set again")
            if wait < TurnWait.idle {
                XCTAssertGreaterThanOrEqual(wakes, due, "woken before a report due in \(microseconds) µs")
            }
            XCTAssertLessThanOrEqual(wakes, max(due, now) + slack, "a report due in \(microseconds) µs waited \(wait) ms")
        }
        XCTAssertEqual(TurnWait.before(nil, now: now), TurnWait.idle, "nothing due: idle")
    }
}
