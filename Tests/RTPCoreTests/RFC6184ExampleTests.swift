import XCTest
@testable import RTPCore

/// Fixed vectors taken from RFC 6184 itself: the don_diff cases of §5.5, the payload layouts of
/// Figures 5 (STAP-B), 12 (MTAP16), 13 (MTAP24) and 15 (FU-B), the slice interleaving example of
/// §13.2, and the offer of §8.3.
final class RFC6184ExampleTests: XCTestCase {
    func testDONDifferenceFollowsTheFiveCasesOfSection5_5() {
        let cases: [(m: UInt16, n: UInt16, diff: Int)] = [
            (5, 5, 0),
            (10, 20, 10), (0, 32767, 32767),          // m < n, less than half apart: n follows
            (0, 32768, -32768), (1, 65535, -2),       // m < n, half or more apart: n precedes
            (65535, 0, 1), (40000, 7232, 32768),      // m > n, half or more apart: wrapped, n follows
            (20, 10, -10), (32767, 0, -32767),        // m > n, less than half apart: n precedes
        ]
        for c in cases {
            XCTAssertEqual(donDiff(c.m, c.n), c.diff, "don_diff(\(c.m), \(c.n))")
        }
    }

    /// DON order of tags after every unit went in (and nothing left before the flush).
    private func flushOrder(_ arrivals: [(don: UInt16, tag: UInt8)]) throws -> (tags: [UInt8], late: Int) {
        let buffer = DeinterleavingBuffer(parameters: .init(), latencyNanoseconds: .max)
        for a in arrivals {
            [a.tag].withUnsafeBytes { buffer.insert(don: a.don, timestamp: 0, header: 0x41, body: $0, arrival: 0) }
        }
        var tags: [UInt8] = []
        try buffer.flush { tags.append($0.nal[1]) }
        return (tags, buffer.lateUnits)
    }

    func testAbsDONTakesAStepOfExactly32768AfterAWrapAsForward() throws {
        // don_diff(40000, 7232) = +32768: 7232 is the later unit.
        XCTAssertEqual(try flushOrder([(40000, 1), (7232, 2)]).tags, [1, 2])
        // don_diff(7232, 40000) = -32768: 40000 is the earlier unit.
        XCTAssertEqual(try flushOrder([(7232, 2), (40000, 1)]).tags, [1, 2])
    }

    func testFirstDONsNearTheWrapKeepDecodingOrder() throws {
        // §7.2.2's example process starts PDON at 0 and would pass DON 1 before 65535 and 0; §5.5
        // (normative) says 65535, 0, 1, which is what comes out.
        XCTAssertEqual(try flushOrder([(1, 3), (65535, 1), (0, 2)]).tags, [1, 2, 3])
    }

    func testAUnitSharingTheDONOfOneAlreadyPassedOnIsNotLate() throws {
        // Slices of one picture may share a DON (§5.5) and go to the decoder in any order.
        var p = DeinterleavingBuffer.Parameters()
        p.interleavingDepth = 0
        // The first unit waits out the latency bound (the initial buffering), and leaves before its sibling comes.
        let buffer = DeinterleavingBuffer(parameters: p, latencyNanoseconds: 1000)
        var tags: [UInt8] = []
        for (don, tag): (UInt16, UInt8) in [(5, 1), (5, 2), (6, 3)] {
            let arrival: Int64 = tag == 1 ? 0 : 1000
            [tag].withUnsafeBytes { buffer.insert(don: don, timestamp: 0, header: 0x41, body: $0, arrival: arrival) }
            try buffer.release(now: 1000) { tags.append($0.nal[1]) }
            if tag == 1 { XCTAssertEqual(tags, [1]) }
        }
        XCTAssertEqual(tags, [1, 2, 3])
        XCTAssertEqual(buffer.lateUnits, 0)
    }

    func testMultiPictureSliceInterleavingOfSection13_2() throws {
        // Reference pictures R1, R3, R5 (DON 1, 2, 4), three slice groups each, spread over three MTAPs
        // so that each MTAP holds one slice group of every picture; non-reference pictures N2 and N4
        // (DON 3, 5) in STAP-Bs after them. Tags are picture * 10 + slice group.
        let packets: [[(don: UInt16, tag: UInt8)]] = [
            [(1, 10), (2, 31), (4, 52)], [(1, 11), (2, 32), (4, 50)], [(1, 12), (2, 30), (4, 51)],
            [(3, 20)], [(5, 40)],
        ]
        var p = DeinterleavingBuffer.Parameters()
        // R1's last slice group comes after four units that follow it in decoding order (R3's two and
        // R5's two); its siblings share its DON and so don't count (§8.1). A depth of 4, and R1's
        // last slice arrives after the first two have left.
        p.interleavingDepth = 4
        let buffer = DeinterleavingBuffer(parameters: p, latencyNanoseconds: .max)
        var out: [UInt8] = []
        for packet in packets {
            for unit in packet {
                [unit.tag].withUnsafeBytes { buffer.insert(don: unit.don, timestamp: 0, header: 0x41, body: $0, arrival: 0) }
            }
            try buffer.release(now: 0) { out.append($0.nal[1]) }
        }
        try buffer.flush { out.append($0.nal[1]) }
        // Decoding order R1 R3 N2 R5 N4; slices sharing a DON keep their arrival order.
        XCTAssertEqual(out, [10, 11, 12, 31, 32, 30, 20, 52, 50, 51, 40])
        XCTAssertEqual(buffer.lateUnits, 0)
    }

    func testSection13_2ThroughTheWholeReceiver() throws {
        // The same transmission with real slice headers: slice group g of a picture starts at
        // macroblock g, so R3's and R5's first macroblocks arrive after other slices of theirs.
        func picture(_ frameNum: Int, idr: Bool = false, reference: Bool = true, groups: Int, tag: UInt8) -> [[UInt8]] {
            (0..<groups).map { g in
                var nal = Fixture.slice(idr: idr, firstMb: g, bytes: 24, tag: tag + UInt8(g), frameNum: frameNum)
                if !reference { nal[0] &= 0x9F }  // nal_ref_idc 0
                return nal
            }
        }
        let r1 = picture(0, idr: true, groups: 3, tag: 0x10), r3 = picture(1, groups: 3, tag: 0x30)
        let n2 = picture(2, reference: false, groups: 1, tag: 0x20)[0], r5 = picture(2, groups: 3, tag: 0x50)
        let n4 = picture(3, reference: false, groups: 1, tag: 0x40)[0]
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
        // MTAP16s from R1's time (3000): R3 is 6000 ticks on, R5 12000 (output order R1 N2 R3 N4 R5).
        func mtap(_ units: [(nal: [UInt8], dond: UInt8, offset: Int)]) -> [UInt8] {
            [0x7A] + be16(1) + units.flatMap { be16($0.nal.count) + [$0.dond] + be16($0.offset) + $0.nal }
        }
        func stapB(_ don: Int, _ nal: [UInt8]) -> [UInt8] { [0x59] + be16(don) + be16(nal.count) + nal }
        let packets: [(payload: [UInt8], ts: UInt32)] = [
            (mtap([(r1[0], 0, 0), (r3[1], 1, 6000), (r5[2], 3, 12000)]), 3000),
            (mtap([(r1[1], 0, 0), (r3[2], 1, 6000), (r5[0], 3, 12000)]), 3000),
            (mtap([(r1[2], 0, 0), (r3[0], 1, 6000), (r5[1], 3, 12000)]), 3000),
            (stapB(3, n2), 6000), (stapB(5, n4), 12000),
        ]
        var parameters = DeinterleavingBuffer.Parameters()
        parameters.interleavingDepth = 4
        let feeder = Feeder {
            $0.formatParameters = H264FormatParameters(interleaving: parameters)
            $0.parameterSets = [Fixture.sps, Fixture.pps]
            $0.payloadType = 96
        }
        for (i, p) in packets.enumerated() {
            try feeder.send(Fixture.rtp(seq: 900 + UInt16(i), ts: p.ts, marker: true, payload: p.payload))
        }
        let accessUnits = try feeder.finish()
        XCTAssertEqual(accessUnits, [
            Fixture.annexB([Fixture.sps, Fixture.pps] + r1), Fixture.annexB([r3[1], r3[2], r3[0]]), Fixture.annexB([n2]),
            Fixture.annexB([r5[2], r5[0], r5[1]]), Fixture.annexB([n4]),
        ])
        XCTAssertEqual(feeder.sink.timestamps, [3000, 9000, 6000, 15000, 12000])
    }

    /// One session of every mode-2 payload structure, laid out byte by byte as the RFC's figures
    /// draw them, with DONs wrapping and units sent out of decoding order.
    func testFigureLayoutsGiveTheNALUnitsInDecodingOrderWithTheirOwnTimes() throws {
        let idr = Fixture.slice(idr: true, bytes: 30, tag: 0x11)
        let pB = Fixture.slice(idr: false, bytes: 250, tag: 0x22)
        let pC = Fixture.slice(idr: false, bytes: 20, tag: 0x33)
        let pD = Fixture.slice(idr: false, bytes: 20, tag: 0x44)
        let pE = Fixture.slice(idr: false, bytes: 20, tag: 0x55)
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func be24(_ v: Int) -> [UInt8] { [UInt8(v >> 16 & 0xFF)] + be16(v) }

        // Figure 5: STAP-B header (F=0, NRI=3, type 25), DON, then size + NAL unit per unit; the second
        // unit takes DON + 1.
        let stapB: [UInt8] = [0x79] + be16(65533) + be16(Fixture.sps.count) + Fixture.sps + be16(Fixture.pps.count) + Fixture.pps
        // Figure 12: MTAP16 header (type 26), DONB, then per unit: size (the NAL unit's alone), DOND,
        // 16-bit TS offset, NAL unit. Unit 1 is the later picture (DON 1, 6000 ticks on); unit 2 the IDR.
        let mtap16: [UInt8] = [0x7A] + be16(65535)
            + be16(pC.count) + [2] + be16(6000) + pC
            + be16(idr.count) + [0] + be16(0) + idr
        // Figure 15: FU-B (type 29) with S set and the DON after the FU header; FU-A (type 28) follows.
        let body = Array(pB.dropFirst())
        let fuB: [UInt8] = [0x40 | 29, 0x80 | 1] + be16(0) + body[0..<100]
        let fuA1: [UInt8] = [0x40 | 28, 1] + body[100..<200]
        let fuA2: [UInt8] = [0x40 | 28, 0x40 | 1] + body[200...]
        // Figure 13: MTAP24 (type 27), with a TS offset past 16 bits.
        let mtap24: [UInt8] = [0x5B] + be16(2)
            + be16(pD.count) + [0] + be24(0) + pD
            + be16(pE.count) + [1] + be24(70000) + pE

        let packets: [(payload: [UInt8], ts: UInt32, marker: Bool)] = [
            (stapB, 3000, false), (mtap16, 3000, true), (fuB, 6000, false), (fuA1, 6000, false),
            (fuA2, 6000, true), (mtap24, 12000, true),
        ]
        var parameters = DeinterleavingBuffer.Parameters()
        parameters.interleavingDepth = 1
        let feeder = Feeder { $0.formatParameters = H264FormatParameters(interleaving: parameters) }
        for (i, p) in packets.enumerated() {
            p.payload.withUnsafeBytes { XCTAssertNil(H264Payload.validate($0), "packet \(i)") }
            try feeder.send(Fixture.rtp(seq: 7 + UInt16(i), ts: p.ts, marker: p.marker, payload: p.payload))
        }
        let accessUnits = try feeder.finish()
        XCTAssertEqual(accessUnits, [Fixture.annexB([Fixture.sps, Fixture.pps, idr]), Fixture.annexB([pB]),
                                     Fixture.annexB([pC]), Fixture.annexB([pD]), Fixture.annexB([pE])])
        XCTAssertEqual(feeder.sink.timestamps, [3000, 6000, 9000, 12000, 82000])
        XCTAssertEqual(feeder.stream.decodingOrderGaps, 0)
    }

    func testTheInterleavedOfferOfSection8_3() throws {
        // The offer's payload type 100 (its first), with the example's sprop values; the parameter
        // sets stand in for the RFC's placeholder. deint-buf-cap is the offerer's own receive
        // capability and says nothing about the stream.
        let sdp = try SessionDescription(parsing: """
            m=video 49170 RTP/AVP 100 99 98
            a=rtpmap:98 H264/90000
            a=fmtp:98 profile-level-id=42A01E; packetization-mode=0; sprop-parameter-sets=Z0LAHtkBQfsBEAAAAwAQAAADA8DxYuSA,aM48gA==
            a=rtpmap:99 H264/90000
            a=fmtp:99 profile-level-id=42A01E; packetization-mode=1; sprop-parameter-sets=Z0LAHtkBQfsBEAAAAwAQAAADA8DxYuSA,aM48gA==
            a=rtpmap:100 H264/90000
            a=fmtp:100 profile-level-id=42A01E; packetization-mode=2; sprop-parameter-sets=Z0LAHtkBQfsBEAAAAwAQAAADA8DxYuSA,aM48gA==; sprop-interleaving-depth=45; sprop-deint-buf-req=64000; sprop-init-buf-time=102478; deint-buf-cap=128000

            """)
        XCTAssertEqual(sdp.payloadType, 100)
        XCTAssertEqual(sdp.h264?.packetizationMode, 2)
        XCTAssertEqual(sdp.parameterSets, [Fixture.sps, Fixture.pps])
        var expected = DeinterleavingBuffer.Parameters()
        expected.interleavingDepth = 45
        expected.bufferBytes = 64000
        expected.initialBufferTime = 102478
        XCTAssertEqual(sdp.h264?.interleaving, expected)
        XCTAssertTrue(sdp.warnings.isEmpty, "\(sdp.warnings)")
    }
}
