@testable import RTPCore
import XCTest

/// SRTP's tag on constant-rate audio read without its key: found where every packet holds the same
/// tag length more than its step, and never on plain audio, silences or a stream that changes.
final class AuthenticationTagTrailTests: XCTestCase {
    /// `packets`, each of `bytes` and `step` ticks before the next, from sequence number 1; the tag found.
    private func trail(unit: (bytes: Int, ticks: Int) = (1, 1), packets: [(bytes: Int, step: Int64)]) -> Int? {
        var trail = AuthenticationTagTrail(unit: unit)
        var timestamp: Int64 = 1000
        for (n, packet) in packets.enumerated() {
            trail.add(bytes: packet.bytes, timestamp: timestamp, sequenceNumber: Int64(n + 1))
            timestamp += packet.step
        }
        return trail.tagBytes
    }

    func testEachSuitesTagIsFoundOnG711() {
        for tag in [4, 10, 16] {
            XCTAssertEqual(trail(packets: Array(repeating: (160 + tag, 160), count: 9)), tag, "a tag of \(tag) bytes")
            XCTAssertNil(trail(packets: Array(repeating: (160 + tag, 160), count: 8)), "eight steps are needed, not seven")
        }
    }

    func testPlainAudioSilencesAndOtherLengthsAreNot() {
        XCTAssertNil(trail(packets: Array(repeating: (160, 160), count: 50)), "plain G.711")
        XCTAssertNil(trail(packets: Array(repeating: (170, 160), count: 5) + [(170, 1760)] + Array(repeating: (170, 160), count: 5)),
                     "a silence breaks the run")
        XCTAssertNil(trail(packets: Array(repeating: (163, 160), count: 50)), "three bytes are no tag's length")
        XCTAssertNil(trail(packets: (0..<50).map { ($0 % 2 == 0 ? 164 : 170, 160) }), "a tag's length does not change")
    }

    func testLinearPCMCountsWholeUnits() {
        // L16 stereo: 4 bytes a tick; 20 ms at 48 kHz is 960 ticks, 3840 bytes.
        XCTAssertEqual(trail(unit: (4, 1), packets: Array(repeating: (3840 + 10, 960), count: 9)), 10)
        // G.726-24: 3 bytes for 8 ticks; 160 ticks are 60 bytes.
        XCTAssertEqual(trail(unit: (3, 8), packets: Array(repeating: (60 + 4, 160), count: 9)), 4)
        XCTAssertNil(trail(unit: (3, 8), packets: Array(repeating: (64, 164), count: 20)), "a step of no whole unit")
    }
}
