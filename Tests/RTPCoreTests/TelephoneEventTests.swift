import XCTest
@testable import RTPCore

/// RFC 4733 events as senders send them (every packet of an event with its start's timestamp, the
/// duration growing, the end sent three times) and RFC 3389 comfort noise levels.
final class TelephoneEventTests: XCTestCase {
    private func event(_ number: UInt8, end: Bool = false, volume: UInt8 = 10, duration: UInt16) -> TelephoneEvent {
        [number, (end ? 0x80 : 0) | volume, UInt8(duration >> 8), UInt8(duration & 0xFF)].withUnsafeBytes {
            TelephoneEvent(payload: $0)!
        }
    }

    func testPayloadFields() {
        let e = event(11, end: true, volume: 63, duration: 0x1234)
        XCTAssertEqual(e, TelephoneEvent(event: 11, end: true, volume: 63, duration: 0x1234))
        XCTAssertEqual(TelephoneEvent.name(11), "#")
        XCTAssertEqual(TelephoneEvent.name(10), "*")
        XCTAssertEqual(TelephoneEvent.name(15), "D")
        XCTAssertEqual(TelephoneEvent.name(16), "flash")
        // The reserved bit set, or too short: not an event.
        XCTAssertNil([UInt8]([1, 0x40, 0, 160]).withUnsafeBytes { TelephoneEvent(payload: $0) })
        XCTAssertNil([UInt8]([1, 0, 0]).withUnsafeBytes { TelephoneEvent(payload: $0) })
    }

    func testEachEventToldOnceAtItsFirstEnd() {
        var tracker = TelephoneEventTracker()
        var told: [TelephoneEventTracker.Event] = []
        for (ts, digit) in [(UInt32(1000), UInt8(1)), (5000, 2)] {
            for d in stride(from: UInt16(160), through: 800, by: 160) { tracker.add(event(digit, duration: d), timestamp: ts) { told.append($0) } }
            for _ in 0..<3 { tracker.add(event(digit, end: true, duration: 960), timestamp: ts) { told.append($0) } }
        }
        XCTAssertNil(tracker.finish())
        XCTAssertEqual(told.map(\.name), ["1", "2"])
        XCTAssertEqual(told.map(\.duration), [960, 960])
        XCTAssertTrue(told.allSatisfy(\.ended))
    }

    func testEventWhoseEndWasLostIsToldWhenTheNextStarts() {
        var tracker = TelephoneEventTracker()
        var told: [TelephoneEventTracker.Event] = []
        tracker.add(event(4, duration: 160), timestamp: 100) { told.append($0) }
        tracker.add(event(4, duration: 320), timestamp: 100) { told.append($0) }
        XCTAssertEqual(told, [])
        // The next event's start lost too: its first packet is an end.
        tracker.add(event(5, end: true, duration: 480), timestamp: 900) { told.append($0) }
        XCTAssertEqual(told.map(\.name), ["4", "5"])
        XCTAssertEqual(told.map(\.ended), [false, true])
        XCTAssertEqual(told[0].duration, 320)
        tracker.add(event(6, duration: 160), timestamp: 2000) { told.append($0) }
        XCTAssertEqual(tracker.finish()?.name, "6")
    }

    /// White noise at -40 dBov: an RMS of 32767 × 10^-2.
    func testComfortNoiseHasTheLevelsRMS() {
        var noise = ComfortNoise(level: 40)
        var samples = [Int16](repeating: 0, count: 48000)
        samples.withUnsafeMutableBufferPointer { noise.fill($0) }
        let rms = (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
        XCTAssertEqual(rms, 327.67, accuracy: 8)
        XCTAssertEqual(ComfortNoise(level: 0).peak, 32767)
    }
}
