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

    /// RFC 3611 §4.4 and §4.5: the reference time block rtprecv sends, and a sender's DLRR answer
    /// read back into the round trip: sent at NTP 0x0000_1234.8000_0000 (middle bits 0x1234_8000),
    /// held 0.25 s by the sender (DLRR 0x4000), back 0.75 s after it left: RTT 0.5 s.
    func testExtendedReportRoundTrip() throws {
        var w = RTCPWriter()
        w.receiverReferenceTime(ssrc: 0xAA, ntp: 0x0000_1234_8000_0000)
        XCTAssertEqual(w.bytes, [0x80, 207, 0, 4, 0, 0, 0, 0xAA, 4, 0, 0, 2, 0, 0, 0x12, 0x34, 0x80, 0, 0, 0])
        w.reset()
        w.delaySinceLastReceiverReport(ssrc: 0xBB, [.init(ssrc: 0xAA, lastReceiverReport: 0x1234_8000, delay: 0x4000)])
        XCTAssertEqual(w.bytes, [0x80, 207, 0, 5, 0, 0, 0, 0xBB, 5, 0, 0, 3, 0, 0, 0, 0xAA, 0x12, 0x34, 0x80, 0, 0, 0, 0x40, 0])
        var packets: [RTCPPacket] = []
        // A VoIP metrics block (BT 7, 8 words) before it is skipped.
        let voip: [UInt8] = [7, 0, 0, 8] + Array(repeating: 0, count: 32)
        var datagram = w.bytes
        datagram.insert(contentsOf: voip, at: 8)
        datagram[3] += 9
        try datagram.withUnsafeBytes { try RTCPPacket.forEach(in: $0) { packets.append($0) } }
        let block = ExtendedReport.DelaySinceLastReceiverReport(ssrc: 0xAA, lastReceiverReport: 0x1234_8000, delay: 0x4000)
        XCTAssertEqual(packets, [.extendedReport(ssrc: 0xBB, delays: [block])])
        XCTAssertEqual(block.roundTrip(arrival: 0x1234_8000 + 0xC000), 500_000_000)
        XCTAssertNil(block.roundTrip(arrival: 0x1234_8000 + 0x2000), "before it could have come back: a clock that stepped")
        XCTAssertNil(ExtendedReport.DelaySinceLastReceiverReport(ssrc: 0xAA, lastReceiverReport: 0, delay: 0).roundTrip(arrival: 5))
    }

    /// The packets of a compound RTCP packet, each by its length field.
    private static func packets(of compound: [UInt8]) -> [ArraySlice<UInt8>] {
        var packets: [ArraySlice<UInt8>] = []
        var offset = 0
        while offset + 4 <= compound.count {
            let end = min(compound.count, offset + 4 * ((Int(compound[offset + 2]) << 8 | Int(compound[offset + 3])) + 1))
            packets.append(compound[offset..<end])
            offset = end
        }
        return packets
    }

    /// The reporter puts its reference time in every compound, and reads the echo of it (and only
    /// of it) into the round trip, which then paces the keyframe requests and NACKs.
    func testReporterMeasuresTheRoundTripFromItsOwnReferenceTime() throws {
        var configuration = RTCPReporter.Configuration()
        configuration.requestKeyframes = true
        configuration.wallclockOffset = 1_700_000_000 * 1_000_000_000
        let reporter = RTCPReporter(configuration: configuration)
        let sent = try XCTUnwrap(reporter.poll(now: 1_000_000_000, reports: { [] }, keyframeFor: 7, sessionBitsPerSecond: 1e6))
        // The RRTR block's NTP time sits after the XR header and the block header.
        let xr = try XCTUnwrap(Self.packets(of: sent).first { $0[$0.startIndex + 1] == 207 })
        let ntp = xr.dropFirst(12).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
        // 1.0 s after the offset's epoch: Unix 1_700_000_001, NTP seconds 2_208_988_800 more.
        XCTAssertEqual(ntp >> 32, 1_700_000_001 + 2_208_988_800)
        XCTAssertEqual(ntp & 0xFFFF_FFFF, 0)
        let middle = UInt32(truncatingIfNeeded: ntp >> 16)
        XCTAssertEqual(reporter.retransmissionInterval, 20_000_000)
        reporter.noteDelay(.init(ssrc: reporter.ssrc &+ 1, lastReceiverReport: middle, delay: 0), arrival: 1_300_000_000)
        XCTAssertNil(reporter.roundTrip, "an echo of another receiver")
        // Back 300 ms after it left, held 50 ms (3277/65536 s) by the sender: 250 ms, to the 1/65536 s.
        reporter.noteDelay(.init(ssrc: reporter.ssrc, lastReceiverReport: middle, delay: 3277), arrival: 1_300_000_000)
        let rtt = try XCTUnwrap(reporter.roundTrip)
        XCTAssertEqual(Double(rtt), 250e6, accuracy: 2e5)
        XCTAssertEqual(reporter.statistics.roundTripSamples, 1)
        XCTAssertEqual(reporter.retransmissionInterval, rtt)
        // The next PLI waits max(200 ms, RTT): 250 ms, not 200.
        // No payload-specific feedback (PT 206) among the compound's packets (any byte could be 206: the SSRC is random).
        let sentThen = reporter.poll(now: 1_220_000_000, reports: { [] }, keyframeFor: 7, sessionBitsPerSecond: 1e6) ?? []
        let types = Self.packets(of: sentThen).map { $0[$0.startIndex + 1] }
        XCTAssertFalse(types.contains(206), "\(types)")
        XCTAssertEqual(reporter.statistics.pictureLossIndications, 1)
        _ = reporter.poll(now: 1_260_000_000, reports: { [] }, keyframeFor: 7, sessionBitsPerSecond: 1e6)
        XCTAssertEqual(reporter.statistics.pictureLossIndications, 2)
    }
}
