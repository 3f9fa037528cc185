import Foundation
import XCTest

/// Capture files that crashed the pcap fuzz target, replayed through the binary: a clean exit, never a signal.
final class FuzzRegressionFileTests: XCTestCase {
    func testEveryStoredCrashInputExitsCleanly() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzRegressions")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertFalse(files.isEmpty)
        for name in files {
            let out = Harness.temporaryFile("fuzz-\(name).h264")
            let result = try Harness.rtprecv(["--pcap", folder.appendingPathComponent(name).path, "--out", out.path, "-q"])
            // 0 (what could be read was read) or 1 (not a capture); a trap would be 128 + signal.
            XCTAssertTrue(result.status == 0 || result.status == 1, "\(name): exit \(result.status): \(result.stderr)")
        }
    }
}
