import XCTest
@testable import RTPCore

/// Compound RTCP (RFC 3550 §6.1) walked packet by packet, and what the receiver keeps of it.
final class RTCPPacketTests: XCTestCase {
    /// SR with one report block, SDES with a CNAME, BYE: as GStreamer's rtpbin sends when it stops.
    private let compound: [UInt8] = [
        0x81, 200, 0x00, 0x0C,       // V=2, RC=1, SR, length 12 (13 words)
        0x00, 0x00, 0x12, 0x34,      // SSRC of sender
        0xE9, 0x4B, 0x1C, 0x00,      // NTP seconds
        0x80, 0x00, 0x00, 0x00,      // NTP fraction: half a second
        0x00, 0x01, 0x5F, 0x90,      // RTP timestamp 90000
        0x00, 0x00, 0x00, 0x03,      // sender's packet count
        0x00, 0x00, 0x10, 0x00,      // sender's octet count
        0x00, 0x00, 0x56, 0x78,      // report block: SSRC
        0x00, 0x00, 0x00, 0x00,      //   fraction lost, cumulative lost
        0x00, 0x00, 0x00, 0x10,      //   extended highest sequence number
        0x00, 0x00, 0x00, 0x00,      //   jitter
        0x00, 0x00, 0x00, 0x00,      //   LSR
        0x00, 0x00, 0x00, 0x00,      //   DLSR
        0x81, 202, 0x00, 0x03,       // SDES, one chunk, length 3
        0x00, 0x00, 0x12, 0x34,      //   SSRC
        0x01, 0x03, 0x63, 0x61,      //   CNAME, 3 bytes: "cam"
        0x6D, 0x00, 0x00, 0x00,      //   ... end of items, padding to 32 bits
        0x81, 203, 0x00, 0x01,       // BYE, one source
        0x00, 0x00, 0x12, 0x34,
    ]

    func testCompoundPacketGivesEachPacket() throws {
        var packets: [RTCPPacket] = []
        try compound.withUnsafeBytes { try RTCPPacket.forEach(in: $0) { packets.append($0) } }
        XCTAssertEqual(packets, [
            .senderReport(.init(ssrc: 0x1234, ntpTimestamp: 0xE94B_1C00_8000_0000, rtpTimestamp: 90000, packetCount: 3,
                                octetCount: 4096, reports: 1)),
            .sourceDescription([.init(ssrc: 0x1234, cname: "cam")]),
            .goodbye([0x1234]),
        ])
    }

    func testLengthPastTheDatagramStopsTheWalkAfterWhatCameBefore() {
        var cut = compound
        cut.removeLast(2)  // the BYE's SSRC is cut short
        var packets: [RTCPPacket.Kind] = []
        XCTAssertThrowsError(try cut.withUnsafeBytes { try RTCPPacket.forEach(in: $0) { packets.append($0.kind) } })
        XCTAssertEqual(packets, [.senderReport, .sourceDescription])
    }

    func testSenderReportReachesItsStream() throws {
        let feeder = Feeder()
        try feeder.send(Fixture.rtp(seq: 1, ts: 3000, marker: true, ssrc: 0x1234,
                                    payload: Fixture.stapA([Fixture.sps, Fixture.pps, Fixture.slice(idr: true)])))
        try feeder.send(compound)
        _ = try feeder.finish()
        XCTAssertEqual(feeder.stream.senderReports, 1)
        XCTAssertEqual(feeder.stream.lastSenderReport?.rtpTimestamp, 90000)
        XCTAssertEqual(feeder.stream.cname, "cam")
        XCTAssertTrue(feeder.stream.goodbye)
        XCTAssertEqual(feeder.receiver.counters.rtcp, 1)
        XCTAssertEqual(feeder.receiver.counters.rtcpPackets[.senderReport], 1)
        XCTAssertEqual(feeder.receiver.counters.rtcpPackets[.goodbye], 1)
    }
}
