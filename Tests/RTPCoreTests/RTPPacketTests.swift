import XCTest
@testable import RTPCore

final class RTPPacketTests: XCTestCase {
    private func parse(_ bytes: [UInt8]) throws -> (RTPPacket, [UInt8]) {
        let packet = try bytes.withUnsafeBytes { raw in try RTPPacket(parsing: raw) }
        return (packet, Array(bytes[packet.payloadRange]))
    }

    private func assertInvalid(_ bytes: [UInt8], _ reason: RTPPacket.Invalid, line: UInt = #line) {
        XCTAssertThrowsError(try parse(bytes), line: line) { XCTAssertEqual($0 as? RTPPacket.Invalid, reason, line: line) }
    }

    func testFixedHeaderFieldsWhenPlain() throws {
        let (p, payload) = try parse([
            0x80, 0xE0,              // V=2, M=1, PT=96
            0xFF, 0xFE,              // sequence 65534
            0x00, 0x01, 0x5F, 0x90,  // timestamp 90000
            0xDE, 0xAD, 0xBE, 0xEF,  // SSRC
            0x65, 0x01, 0x02,        // payload
        ])
        XCTAssertTrue(p.marker)
        XCTAssertEqual(p.payloadType, 96)
        XCTAssertEqual(p.sequenceNumber, 65534)
        XCTAssertEqual(p.timestamp, 90000)
        XCTAssertEqual(p.ssrc, 0xDEADBEEF)
        XCTAssertEqual(payload, [0x65, 0x01, 0x02])
    }

    func testPaddingIsStrippedWhenCountIsValid() throws {
        let (p, payload) = try parse([0xA0, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,
                                      0x41, 0x42,            // payload
                                      0x00, 0x00, 0x03])     // 3 bytes of padding, count included
        XCTAssertEqual(p.paddingCount, 3)
        XCTAssertEqual(payload, [0x41, 0x42])
    }

    func testPaddingIsInvalidWhenCountIsZeroOrTooLarge() {
        assertInvalid([0xA0, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0x41, 0x00], .badPadding)
        assertInvalid([0xA0, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0x41, 0x03], .badPadding)
        assertInvalid([0xA0, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], .badPadding)
    }

    func testCSRCsAreSkippedAndReadable() throws {
        let bytes: [UInt8] = [0x82, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,
                              0, 0, 0, 7, 0, 0, 0, 9,   // CSRC 7 and 9
                              0x41]
        let (p, payload) = try parse(bytes)
        XCTAssertEqual(p.csrcCount, 2)
        XCTAssertEqual(payload, [0x41])
        bytes.withUnsafeBytes { XCTAssertEqual(p.csrc(1, in: $0), 9) }
    }

    func testLyingCSRCCountIsInvalid() {
        assertInvalid([0x8F, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0x41, 0x41], .csrcOverrun)
    }

    func testOneByteExtensionElementsAreViews() throws {
        let bytes: [UInt8] = [0x90, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,
                              0xBE, 0xDE, 0x00, 0x02,       // RFC 8285 one-byte form, 2 words
                              0x10, 0xAA,                   // id 1, 1 byte
                              0x00,                         // padding
                              0x22, 0x01, 0x02, 0x03,       // id 2, 3 bytes
                              0x00,                         // padding
                              0x65]
        let (p, payload) = try parse(bytes)
        XCTAssertEqual(payload, [0x65])
        bytes.withUnsafeBytes { raw in
            let elements = Array(p.headerExtensionElements(in: raw)!).map { ($0.id, Array($0.data)) }
            XCTAssertEqual(elements.map(\.0), [1, 2])
            XCTAssertEqual(elements.map(\.1), [[0xAA], [0x01, 0x02, 0x03]])
        }
    }

    func testTwoByteExtensionElements() throws {
        let bytes: [UInt8] = [0x90, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,
                              0x10, 0x00, 0x00, 0x01,       // two-byte form, 1 word
                              0x05, 0x02, 0xAB, 0xCD,       // id 5, 2 bytes
                              0x65]
        let (p, _) = try parse(bytes)
        bytes.withUnsafeBytes { raw in
            let elements = Array(p.headerExtensionElements(in: raw)!)
            XCTAssertEqual(elements.count, 1)
            XCTAssertEqual(elements.first?.id, 5)
            XCTAssertEqual(elements.first.map { Array($0.data) }, [0xAB, 0xCD])
        }
    }

    func testLyingExtensionLengthIsInvalid() {
        assertInvalid([0x90, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0xBE, 0xDE, 0x00, 0x40, 0x10, 0xAA], .extensionOverrun)
        assertInvalid([0x90, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0xBE], .extensionOverrun)
    }

    func testWrongVersionAndShortPacketsAreInvalid() {
        assertInvalid([0x40, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0x41], .badVersion)
        assertInvalid([0x80, 96, 0, 1], .tooShort)
    }

    func testArbitraryBytesNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20000 {
            let length = Int.random(in: 0..<64, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if !bytes.isEmpty { bytes[0] = 0x80 | (bytes[0] & 0x3F) }
            bytes.withUnsafeBytes { raw in
                if let p = try? RTPPacket(parsing: raw) {
                    XCTAssertLessThanOrEqual(p.payloadRange.upperBound, raw.count)
                    _ = p.headerExtensionElements(in: raw).map(Array.init)
                    _ = H264Payload.validate(raw.view(p.payloadRange))
                }
            }
        }
    }
}
