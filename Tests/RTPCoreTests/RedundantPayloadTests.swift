import XCTest
@testable import RTPCore

/// RFC 2198 §3's payload: block headers, then the blocks' data, the primary's last.
final class RedundantPayloadTests: XCTestCase {
    private func blocks(_ bytes: [UInt8]) -> (redundant: [RedundantPayload.Block], primary: RedundantPayload.Block?) {
        var redundant: [RedundantPayload.Block] = []
        let primary = bytes.withUnsafeBytes { RedundantPayload.primary(of: $0, redundant: { redundant.append($0) }) }
        return (redundant, primary)
    }

    /// Two redundant blocks (5 and 3 bytes, 1920 and 960 ticks back) and a primary of 4 bytes.
    func testBlocksComeOldestFirstWithTheirOffsetsAndLengths() {
        let headers: [UInt8] = [0x80 | 111, UInt8(1920 >> 6), UInt8((1920 & 0x3F) << 2), 5,
                                0x80 | 111, UInt8(960 >> 6), UInt8((960 & 0x3F) << 2), 3,
                                111]
        let (redundant, primary) = blocks(headers + [1, 1, 1, 1, 1] + [2, 2, 2] + [3, 3, 3, 3])
        XCTAssertEqual(redundant, [.init(payloadType: 111, timestampOffset: 1920, range: 9..<14),
                                   .init(payloadType: 111, timestampOffset: 960, range: 14..<17)])
        XCTAssertEqual(primary, .init(payloadType: 111, timestampOffset: 0, range: 17..<21))
    }

    /// A 10-bit length and a 14-bit offset at their largest.
    func testTheFieldsTakeTheirWholeWidths() {
        let header: [UInt8] = [0x80 | 0, 0xFF, 0xFF, 0xFF, 8]
        let (redundant, primary) = blocks(header + [UInt8](repeating: 0, count: 1023) + [9])
        XCTAssertEqual(redundant, [.init(payloadType: 0, timestampOffset: 16383, range: 5..<1028)])
        XCTAssertEqual(primary, .init(payloadType: 8, timestampOffset: 0, range: 1028..<1029))
    }

    func testAPrimaryAloneMayBeEmpty() {
        XCTAssertEqual(blocks([96]).primary, .init(payloadType: 96, timestampOffset: 0, range: 1..<1))
    }

    func testHeadersOrLengthsPastTheEndAreRefused() {
        XCTAssertNil(blocks([]).primary, "no header")
        XCTAssertNil(blocks([0x80 | 111, 0, 0]).primary, "a header cut short")
        XCTAssertNil(blocks([0x80 | 111, 0, 0, 4]).primary, "no primary header")
        XCTAssertNil(blocks([0x80 | 111, 0, 0, 4, 111, 1, 2, 3]).primary, "a block longer than what follows")
        XCTAssertNil(blocks([UInt8](repeating: 0x80, count: 400)).primary, "headers to the end")
    }
}
