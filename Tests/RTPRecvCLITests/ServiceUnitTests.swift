import Foundation
import XCTest

/// `contrib/rtprecv@.service` as systemd itself reads it: every line parsed, and the hardening
/// scored by `systemd-analyze security` (no system manager needed: both work on the file).
final class ServiceUnitTests: XCTestCase {
    func testTheUnitParsesAndIsHardened() throws {
        let source = Harness.packageRoot.appendingPathComponent("contrib/rtprecv@.service")
        let text = try String(contentsOf: source, encoding: .utf8)
        XCTAssertTrue(text.contains("ExecStart=/usr/local/bin/rtprecv "), "the unit starts rtprecv")
        // An instance of the template, starting the binary under test (verify checks that it exists).
        let dir = try Harness.emptyDirectory("unit")
        let unit = dir.appendingPathComponent("rtprecv@cameras.service")
        try text.replacingOccurrences(of: "/usr/local/bin/rtprecv", with: Harness.binary.path).write(to: unit, atomically: true, encoding: .utf8)
        let verify = try Harness.run("systemd-analyze", ["verify", unit.path])
        XCTAssertEqual(verify.status, 0, verify.stderr)
        XCTAssertFalse(verify.stderr.contains(unit.lastPathComponent), "every line parses: \(verify.stderr)")
        // Exposure at most 2.5 of 10 (systemd's scale counts tenths).
        let security = try Harness.run("systemd-analyze", ["security", "--offline=yes", "--threshold=25", unit.path])
        XCTAssertEqual(security.status, 0, String(decoding: security.stdout, as: UTF8.self))
    }
}
