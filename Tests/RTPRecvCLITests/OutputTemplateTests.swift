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

    /// Retention takes only names a template makes: {n} as digits, {start} as a basic UTC time.
    func testRetentionMatchesOnlyTheTemplatesNames() {
        XCTAssertTrue(Retention.matches("cam-12.mp4", "cam-{n}.mp4"))
        XCTAssertTrue(Retention.matches("cam-20261201T154200Z-3.mp4", "cam-{start}-{n}.mp4"))
        for name in ["cam-.mp4", "cam-12.mp4.tmp", "cam-1x.mp4", "other-1.mp4", "cam-12.mkv"] {
            XCTAssertFalse(Retention.matches(name, "cam-{n}.mp4"), name)
        }
        XCTAssertFalse(Retention.matches("cam-2026-12-01.mp4", "cam-{start}.mp4"))
    }

    func testSizesReadAsPowersOf1024() {
        XCTAssertEqual(Options.size("100K"), 102_400)
        XCTAssertEqual(Options.size("1.5g"), 1_610_612_736)
        XCTAssertEqual(Options.size("2T"), 2 << 40)
        XCTAssertEqual(Options.size("4096"), 4096)
        for text in ["", "K", "-1M", "10Q", "1e30", "nan"] { XCTAssertNil(Options.size(text), text) }
    }
}
