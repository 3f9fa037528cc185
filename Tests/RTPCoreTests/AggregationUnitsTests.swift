import XCTest
@testable import RTPCore

/// The units of STAP-A and MTAP16 packets (RFC 6184 §5.7): a unit that runs past its packet, and
/// MTAP sizes read both ways.
final class AggregationUnitsTests: XCTestCase {
    private func walk(_ payload: [UInt8], sizeCountsPrefix: Bool = false) -> (units: [[UInt8]], overran: Bool, header: UInt8?) {
        payload.withUnsafeBytes { bytes in
            var units = AggregationUnits(bytes, sizeCountsPrefix: sizeCountsPrefix)
            var out: [[UInt8]] = []
            while let unit = units.next() { out.append(Array(unit.nal)) }
            return (out, units.overran, units.overrunHeader)
        }
    }

    private func validate(_ payload: [UInt8]) -> H264Payload.Invalid? {
        payload.withUnsafeBytes { H264Payload.validate($0) }
    }

    func testSTAPAWhoseLastUnitRunsPastThePacketKeepsTheUnitsBeforeIt() {
        let payload: [UInt8] = [
            0x78,              // STAP-A: F 0, NRI 3, type 24
            0x00, 0x04,        // NAL unit size 4
            0x68, 0xCE, 0x3C, 0x80,  // PPS (type 8)
            0x00, 0x2B,        // NAL unit size 43, but 3 bytes follow
            0x65, 0x88, 0x80,  // the start of an IDR slice (type 5)
        ]
        let walked = walk(payload)
        XCTAssertEqual(walked.units, [[0x68, 0xCE, 0x3C, 0x80]])
        XCTAssertTrue(walked.overran)
        XCTAssertEqual(walked.header, 0x65, "the lost unit's header says it was an IDR slice")
        XCTAssertNil(validate(payload), "a valid packet: its sequence number counts as received")
    }

    func testSTAPAWhoseFirstUnitRunsPastThePacketIsInvalid() {
        let payload: [UInt8] = [
            0x78,              // STAP-A
            0x00, 0x09,        // NAL unit size 9, but 2 bytes follow
            0x67, 0x42,        // the start of an SPS
        ]
        XCTAssertEqual(walk(payload).units, [])
        XCTAssertEqual(validate(payload), .aggregationOverrun)
    }

    func testAZeroSizeOrAHalfSizeFieldEndsTheWalk() {
        let zero: [UInt8] = [0x78, 0x00, 0x02, 0x09, 0xF0,  // AUD, size 2
                             0x00, 0x00,                   // NAL unit size 0
                             0x00, 0x02, 0x09, 0xF0]       // what follows is not to be trusted
        XCTAssertEqual(walk(zero).units, [[0x09, 0xF0]])
        XCTAssertTrue(walk(zero).overran)
        XCTAssertNil(walk(zero).header)
        let half: [UInt8] = [0x78, 0x00, 0x02, 0x09, 0xF0,  // AUD
                             0x00]                         // one byte of a size field
        XCTAssertEqual(walk(half).units, [[0x09, 0xF0]])
        XCTAssertTrue(walk(half).overran)
    }

    /// MTAP16 with two units, DONB 100, written with sizes that count the NAL unit alone (§5.7.2)
    /// or, as some senders do, DOND and the TS offset too.
    private func mtap16(sizeCountsPrefix: Bool) -> [UInt8] {
        let extra = sizeCountsPrefix ? 3 : 0
        return [0x1A,                  // MTAP16: NRI 0, type 26
                0x00, 0x64,            // DONB 100
                0x00, UInt8(4 + extra),  // NAL unit size
                0x00,                  // DOND 0
                0x00, 0x00,            // TS offset 0
                0x68, 0xCE, 0x3C, 0x80,  // PPS
                0x00, UInt8(3 + extra),  // NAL unit size
                0x01,                  // DOND 1
                0x0B, 0xB8,            // TS offset 3000
                0x41, 0x9A, 0x80]      // a P slice
    }

    func testMTAPSizesAreToldApartByWhichReadingFitsThePacketExactly() {
        let rfc = mtap16(sizeCountsPrefix: false), other = mtap16(sizeCountsPrefix: true)
        rfc.withUnsafeBytes {
            XCTAssertTrue(AggregationUnits.fitExactly($0, sizeCountsPrefix: false))
            XCTAssertFalse(AggregationUnits.fitExactly($0, sizeCountsPrefix: true))
        }
        other.withUnsafeBytes {
            XCTAssertFalse(AggregationUnits.fitExactly($0, sizeCountsPrefix: false))
            XCTAssertTrue(AggregationUnits.fitExactly($0, sizeCountsPrefix: true))
        }
        XCTAssertEqual(walk(other, sizeCountsPrefix: true).units, [[0x68, 0xCE, 0x3C, 0x80], [0x41, 0x9A, 0x80]])
        XCTAssertNil(validate(other), "a packet that fits the other reading is valid")
    }

    func testStreamOfMTAPsWithThePrefixInTheirSizesIsReadThatWayAndSaidOnce() throws {
        let assembler = AccessUnitAssembler(maxAccessUnitBytes: 1 << 20)
        var p = DeinterleavingBuffer.Parameters()
        p.interleavingDepth = 0
        let depacketizer = Depacketizer(assembler: assembler, interleaving: p)
        var notices: [StreamNotice] = []
        depacketizer.onNotice = { notices.append($0) }
        var nals: [[UInt8]] = []
        assembler.onAccessUnit = { au in
            nals += au.nalUnits.map { r in
                au.pieces.flatMap { Array($0) }[(r.offset + 4)..<(r.offset + r.length)].map { $0 }
            }
        }
        for n in 0..<2 {
            var payload = mtap16(sizeCountsPrefix: true)
            payload[2] = UInt8(100 + 2 * n)  // DONB 100, then 102
            try payload.withUnsafeBytes {
                try depacketizer.process(payload: $0, timestamp: UInt32(90000 + 6000 * n), marker: true, lostBefore: 0)
            }
        }
        try depacketizer.flush()
        XCTAssertEqual(notices, [.mtapSizeCountsPrefix])
        XCTAssertEqual(depacketizer.mtapPacketsWithPrefixInSize, 2)
        XCTAssertEqual(depacketizer.decodingOrderGaps, 0)
        XCTAssertEqual(nals.filter { $0 == [0x41, 0x9A, 0x80] }.count, 2)
    }
}
