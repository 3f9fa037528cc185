import Foundation
import FuzzTargets
import XCTest

/// Inputs that crashed a fuzz target (scripts/fuzz), stored as `TARGET-what.bin` and replayed through
/// the same target, so that they never crash again.
final class FuzzRegressionFileTests: XCTestCase {
    private let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzRegressions")

    private var inputs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".bin") }.sorted()
    }

    func testEveryStoredCrashInputRunsThroughItsTarget() throws {
        XCTAssertFalse(inputs.isEmpty)
        for name in inputs {
            let target = String(name.prefix { $0 != "-" })
            let bytes = try Data(contentsOf: folder.appendingPathComponent(name))
            bytes.withUnsafeBytes { runFuzzTarget(target, $0) }
        }
    }

    func testStoredCaptureInputsExitTheBinaryCleanly() throws {
        for name in inputs where name.hasPrefix("pcap-") {
            let out = Harness.temporaryFile("fuzz-\(name).h264")
            let result = try Harness.rtprecv(["--pcap", folder.appendingPathComponent(name).path, "--out", out.path, "-q"])
            // 0 (what could be read was read), 1 (not a capture) or 3 (no RTP in it); a trap would be 128 + signal.
            XCTAssertTrue([0, 1, 3].contains(result.status), "\(name): exit \(result.status): \(result.stderr)")
        }
    }
}
