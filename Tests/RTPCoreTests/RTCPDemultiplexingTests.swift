@testable import RTPCore
import XCTest

/// RFC 5761 §4: RTCP on RTP's port is told apart by its second octet, and never becomes a stream.
final class RTCPDemultiplexingTests: XCTestCase {
    /// A sender report (RFC 3550 §6.4.1) with no report blocks, from SSRC 0x1234.
    private let senderReport: [UInt8] = [0x80, 200, 0x00, 0x06, 0x00, 0x00, 0x12, 0x34,
                                         0xE9, 0x4B, 0x1C, 0x00, 0x80, 0x00, 0x00, 0x00,  // NTP timestamp
                                         0x00, 0x01, 0x5F, 0x90,                          // RTP timestamp
                                         0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x10, 0x00]  // packets, octets
    /// SDES with a CNAME chunk, then BYE: the compound packet a sender leaves with.
    private let goodbye: [UInt8] = [0x81, 202, 0x00, 0x03, 0x00, 0x00, 0x12, 0x34, 0x01, 0x03, 0x61, 0x62, 0x63, 0x00,
                                    0x00, 0x00, 0x81, 203, 0x00, 0x01, 0x00, 0x00, 0x12, 0x34]

    func testRTCPAmongTheRTPIsCountedAndTheVideoIsUntouched() throws {
        let feeder = Feeder()
        let idr = Fixture.slice(idr: true), p = Fixture.slice(idr: false)
        try feeder.send(Fixture.rtp(seq: 1, ts: 3000, payload: Fixture.sps))
        try feeder.send(senderReport)
        try feeder.send(Fixture.rtp(seq: 2, ts: 3000, payload: Fixture.pps))
        try feeder.send(Fixture.rtp(seq: 3, ts: 3000, marker: true, payload: idr))
        try feeder.send(Fixture.rtp(seq: 4, ts: 6000, marker: true, payload: p))
        try feeder.send(goodbye)
        let written = try feeder.finish()
        XCTAssertEqual(written, [Fixture.annexB([Fixture.sps, Fixture.pps, idr]), Fixture.annexB([p])])
        XCTAssertEqual(feeder.receiver.counters.rtcp, 2)
        XCTAssertTrue(feeder.receiver.otherStreams.isEmpty)
        XCTAssertEqual(feeder.receiver.counters.invalidRTP.values.reduce(0, +), 0)
        XCTAssertEqual(feeder.stream.packets, 4)
    }

    func testOnlyTheRTCPPacketTypesAndVersion2Count() {
        func isRTCP(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes(RTCP.isPacket) }
        XCTAssertTrue(isRTCP(senderReport))
        XCTAssertTrue(isRTCP([0x80, 223, 0, 1, 0, 0, 0, 1]))
        // RTP with the marker bit: payload types 96 and 63 read as 224 and 191.
        XCTAssertFalse(isRTCP(Fixture.rtp(seq: 1, ts: 0, marker: true, payload: [0x65])))
        XCTAssertFalse(isRTCP(Fixture.rtp(seq: 1, ts: 0, marker: true, pt: 63, payload: [0x65])))
        XCTAssertFalse(isRTCP([0x40, 200, 0, 1, 0, 0, 0, 1]))  // version 1
        XCTAssertFalse(isRTCP([0x80, 200, 0, 1]))              // shorter than a header and SSRC
    }
}
