import RTPCore
import XCTest

/// RTCP as rtprecv sends it, byte for byte (RFC 3550 §6.4.2, §6.5, §6.6; RFC 4585 §6.3.1; RFC 5104
/// §4.3.1), and reception report blocks computed as RFC 3550 A.3 has it, by hand.
final class RTCPWriterTests: XCTestCase {
    func testReceiverReportSDESAndBYE() {
        var w = RTCPWriter()
        let block = ReceptionReport(ssrc: 0x0102_0304, fractionLost: 0x40, cumulativeLost: -2, extendedHighestSequenceNumber: 0x0001_0005,
                                    jitter: 90, lastSenderReport: 0xAABB_CCDD, delaySinceLastSenderReport: 0x0001_8000)
        w.receiverReport(ssrc: 0xDEAD_BEEF, reports: [block])
        w.sourceDescription(ssrc: 0xDEAD_BEEF, cname: "abc")
        w.goodbye(ssrc: 0xDEAD_BEEF)
        XCTAssertEqual(w.bytes, [
            0x81, 201, 0, 7, 0xDE, 0xAD, 0xBE, 0xEF,                     // RR, RC 1, 8 words
            0x01, 0x02, 0x03, 0x04, 0x40, 0xFF, 0xFF, 0xFE,                 // SSRC_1, fraction, cumulative -2 in 24 bits
            0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00, 90,                   // extended highest, jitter
            0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x01, 0x80, 0x00,                 // LSR, DLSR 1.5 s
            0x81, 202, 0, 3, 0xDE, 0xAD, 0xBE, 0xEF,                     // SDES, one chunk, 4 words
            1, 3, 0x61, 0x62, 0x63, 0, 0, 0,                              // CNAME "abc", null item, padding
            0x81, 203, 0, 1, 0xDE, 0xAD, 0xBE, 0xEF,                     // BYE
        ])
        // RTCP's own parser reads it back.
        var kinds: [RTCPPacket.Kind] = []
        XCTAssertNoThrow(try w.bytes.withUnsafeBytes { try RTCPPacket.forEach(in: $0) { kinds.append($0.kind) } })
        XCTAssertEqual(kinds, [.receiverReport, .sourceDescription, .goodbye])
    }

    func testSDESPadsAWholeNullWordWhenTheItemsEndOnABoundary() {
        var w = RTCPWriter()
        w.sourceDescription(ssrc: 1, cname: "ab")  // 4 + 4 bytes of items end on a word: a null word follows
        XCTAssertEqual(w.bytes, [0x81, 202, 0, 3, 0, 0, 0, 1, 1, 2, 0x61, 0x62, 0, 0, 0, 0])
    }

    func testPictureLossIndicationAndFullIntraRequest() {
        var w = RTCPWriter()
        w.pictureLossIndication(sender: 0x11, mediaSource: 0x22)
        w.fullIntraRequest(sender: 0x11, mediaSource: 0x22, sequenceNumber: 7)
        XCTAssertEqual(w.bytes, [
            0x81, 206, 0, 2, 0, 0, 0, 0x11, 0, 0, 0, 0x22,                        // PSFB FMT 1
            0x84, 206, 0, 4, 0, 0, 0, 0x11, 0, 0, 0, 0, 0, 0, 0, 0x22, 7, 0, 0, 0,  // PSFB FMT 4, FCI
        ])
    }

    func testFractionLostIsOverTheIntervalAndCumulativeOverAll() {
        var interval = ReceptionInterval()
        // 100 expected (base 1000, highest 1099), 90 received: 10 lost of 100 is 25/256.
        var r = interval.report(ssrc: 9, baseExtended: 1000, highestExtended: 1099, received: 90, jitter: 12.7, lastSR: nil, now: 0)
        XCTAssertEqual(r.fractionLost, 25)
        XCTAssertEqual(r.cumulativeLost, 10)
        XCTAssertEqual(r.jitter, 12)
        XCTAssertEqual(r.lastSenderReport, 0)
        // Then 100 more expected, all 100 received (and one duplicate beside): nothing lost this time.
        r = interval.report(ssrc: 9, baseExtended: 1000, highestExtended: 1199, received: 191, jitter: 0,
                            lastSR: (0x0000_1234_5678_9ABC, 1_000_000_000), now: 1_250_000_000)
        XCTAssertEqual(r.fractionLost, 0)
        XCTAssertEqual(r.cumulativeLost, 9)
        XCTAssertEqual(r.extendedHighestSequenceNumber, 1199)
        XCTAssertEqual(r.lastSenderReport, 0x1234_5678)  // the middle 32 bits
        XCTAssertEqual(r.delaySinceLastSenderReport, 16384)  // 0.25 s in 1/65536 s
    }

    func testGenericNACKPacksFollowersIntoTheBitmaskAcrossTheWrap() {
        XCTAssertEqual(TransportFeedback.entries([105, 100, 101, 117, 118]).map { [$0.pid, $0.blp] },
                       [[100, 0b1_0001], [117, 0b1]])
        XCTAssertEqual(TransportFeedback.entries([65535, 0, 2]).map { [$0.pid, $0.blp] }, [[65535, 0b101]])
        var w = RTCPWriter()
        w.genericNACK(sender: 1, mediaSource: 2, lost: [7, 8])
        XCTAssertEqual(w.bytes, [0x81, 205, 0, 3, 0, 0, 0, 1, 0, 0, 0, 2, 0, 7, 0, 1])
    }
}
