@testable import RTPRecvCLI
import XCTest

/// Segment names: {n} and {start}, the UTC date worked out without a calendar library.
final class OutputTemplateTests: XCTestCase {
    func testStartIsUTCInISO8601BasicFormat() {
        // Against Python's datetime: the epoch, a leap day, now-ish, the last second of 2099.
        for (seconds, expected) in [(0, "19700101T000000Z"), (951_782_400, "20000229T000000Z"),
                                    (1_764_603_720, "20251201T154200Z"), (4_102_444_799, "20991231T235959Z")] {
            XCTAssertEqual(OutputTemplate.basicUTC(Int64(seconds) * 1_000_000_000 + 999_999_999), expected)
        }
        XCTAssertEqual(OutputTemplate(pattern: "rec/{n}/cam-{n}-{start}.h264").path(n: 7, unixNanoseconds: 0),
                       "rec/7/cam-7-19700101T000000Z.h264")
    }
}
