import XCTest
@testable import RTPCore

final class DeinterleavingBufferTests: XCTestCase {
    private func slice(_ tag: UInt8) -> (UInt8, [UInt8]) { (0x41, [tag]) }

    /// Ends the initial buffering: a run of units in decoding order (tag 0) just before `don`, more
    /// than it holds before trusting the depth.
    private func prime(_ buffer: DeinterleavingBuffer, before don: UInt16, _ released: (DeinterleavingBuffer.Unit) -> Void) throws {
        let count = DeinterleavingBuffer.primingUnits + 1
        for i in 0..<count {
            [UInt8(0)].withUnsafeBytes {
                buffer.insert(don: don &- UInt16(count + 8 - i), timestamp: 0, header: 0x41, body: $0, arrival: 0)
            }
        }
        try buffer.release(now: 0, released)
    }

    /// Inserts (DON, tag) pairs in transmission order after a primed start; returns the tags in release order.
    private func run(_ arrivals: [(UInt16, UInt8)], depth: Int, flushAtEnd: Bool = true) throws -> [UInt8] {
        var p = DeinterleavingBuffer.Parameters()
        p.interleavingDepth = depth
        let buffer = DeinterleavingBuffer(parameters: p, latencyNanoseconds: .max)
        var out: [UInt8] = []
        try prime(buffer, before: arrivals.map(\.0).min()!) { _ in }
        for (don, tag) in arrivals {
            let (header, body) = slice(tag)
            body.withUnsafeBytes { buffer.insert(don: don, timestamp: 0, header: header, body: $0, arrival: 0) }
            try buffer.release(now: 0) { out.append($0.nal[1]) }
        }
        if flushAtEnd { try buffer.flush { out.append($0.nal[1]) } }
        return out.filter { $0 != 0 }
    }

    func testReleasesInDecodingOrderAcrossTheDONWrap() throws {
        // Sent as 3 2 1 | 6 5 4 with DONs wrapping from 65534 to 3.
        let arrivals: [(UInt16, UInt8)] = [(0, 3), (65535, 2), (65534, 1), (3, 6), (2, 5), (1, 4)]
        XCTAssertEqual(try run(arrivals, depth: 2), [1, 2, 3, 4, 5, 6])
    }

    func testReleaseWaitsOnlyForTheInterleavingDepth() throws {
        // With depth 2, the smallest DON leaves as soon as three VCL units wait, lost ones or not.
        let arrivals: [(UInt16, UInt8)] = [(11, 2), (10, 1), (13, 4), (14, 5)]  // DON 12 never comes
        XCTAssertEqual(try run(arrivals, depth: 2, flushAtEnd: false), [1, 2])
        XCTAssertEqual(try run(arrivals, depth: 2), [1, 2, 4, 5])
    }

    func testAUnitWhoseTurnHasPassedIsCountedLateAndGrowsTheDepth() throws {
        var p = DeinterleavingBuffer.Parameters()
        p.interleavingDepth = 0
        let buffer = DeinterleavingBuffer(parameters: p, latencyNanoseconds: .max)
        var out: [UInt16] = []
        try prime(buffer, before: 4) { _ in }
        for don: UInt16 in [5, 6, 4, 7, 9, 8] {
            [0x55].withUnsafeBytes { buffer.insert(don: don, timestamp: 0, header: 0x41, body: $0, arrival: 0) }
            try buffer.release(now: 0) { if $0.nal[1] != 0 { out.append(UInt16(truncatingIfNeeded: $0.absDON)) } }
        }
        // DON 4 came after 5 and 6, which depth 0 had let go: it is lost; it needed depth 2, and the
        // buffer now keeps twice that, so that 9 waits for 8.
        XCTAssertEqual(buffer.lateUnits, 1)
        XCTAssertEqual(buffer.neededDepth, 2)
        XCTAssertEqual(buffer.interleavingDepth, 4)
        try buffer.flush { out.append(UInt16(truncatingIfNeeded: $0.absDON)) }
        XCTAssertEqual(out, [5, 6, 7, 8, 9])
    }

    func testAUnitThatShowsADeeperInterleavingGrowsTheDepthBeforeAnythingIsLost() throws {
        var p = DeinterleavingBuffer.Parameters()
        p.interleavingDepth = 1
        let buffer = DeinterleavingBuffer(parameters: p, latencyNanoseconds: .max)
        var out: [Int64] = []
        // Sent as 12 11 10: DON 10 arrives with two VCL units ahead of it that follow it. Depth 1
        // would pass 11 on before 10 came; the depth grows as 10 arrives, before any release.
        for don: UInt16 in [12, 11] {
            [0x55].withUnsafeBytes { buffer.insert(don: don, timestamp: 0, header: 0x41, body: $0, arrival: 0) }
        }
        for don: UInt16 in [10, 15, 14, 13] {
            [0x55].withUnsafeBytes { buffer.insert(don: don, timestamp: 0, header: 0x41, body: $0, arrival: 0) }
            try buffer.release(now: 0) { out.append($0.absDON) }
        }
        try buffer.flush { out.append($0.absDON) }
        XCTAssertEqual(out, [10, 11, 12, 13, 14, 15])
        XCTAssertEqual(buffer.lateUnits, 0)
        XCTAssertEqual(buffer.neededDepth, 2)
    }

    func testInitialBufferingWaitsForAnIDRWhenAskedTo() throws {
        var p = DeinterleavingBuffer.Parameters()
        p.interleavingDepth = 0
        let buffer = DeinterleavingBuffer(parameters: p, latencyNanoseconds: .max, startsAtKeyframe: true)
        var out: [Int64] = []
        // A group sent in reverse, the IDR last: nothing leaves before it, so nothing is passed by.
        for (don, header): (UInt16, UInt8) in [(3, 0x41), (2, 0x41), (1, 0x65)] {
            [0x55].withUnsafeBytes { buffer.insert(don: don, timestamp: 0, header: header, body: $0, arrival: 0) }
            try buffer.release(now: 0) { out.append($0.absDON) }
            if don != 1 { XCTAssertEqual(out, []) }
        }
        try buffer.flush { out.append($0.absDON) }
        XCTAssertEqual(out, [1, 2, 3])
        XCTAssertEqual(buffer.lateUnits, 0)
    }

    /// A stream sent deeper than its SDP says, from its first units: an IDR in two slices, the second
    /// sent after two pictures that follow it. The first units are held, as the reorder buffer holds
    /// a stream's first packets, until what they need is known: the IDR is kept whole.
    func testTheFirstUnitsAreHeldUntilTheirDepthIsKnown() throws {
        var p = DeinterleavingBuffer.Parameters()
        p.interleavingDepth = 1
        let buffer = DeinterleavingBuffer(parameters: p, latencyNanoseconds: .max, startsAtKeyframe: true)
        var out: [Int64] = []
        for (don, header): (UInt16, UInt8) in [(1, 0x65), (3, 0x41), (4, 0x41), (2, 0x65), (6, 0x41), (5, 0x41)] {
            [0x55].withUnsafeBytes { buffer.insert(don: don, timestamp: 0, header: header, body: $0, arrival: 0) }
            try buffer.release(now: 0) { out.append($0.absDON) }
        }
        try buffer.flush { out.append($0.absDON) }
        XCTAssertEqual(out, [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(buffer.lateUnits, 0)
        XCTAssertEqual(buffer.neededDepth, 2)
    }

    func testMTAPUnitsTakeTheirOwnTimestampOffsets() throws {
        // MTAP16, DONB 100: units DOND 0 (offset 0), DOND 1 (offset 3000), DOND 2 (offset 6000). The
        // offsets are each relative to the RTP timestamp, never summed.
        let assembler = AccessUnitAssembler(maxAccessUnitBytes: 1 << 20)
        var p = DeinterleavingBuffer.Parameters()
        p.interleavingDepth = 0
        let depacketizer = Depacketizer(assembler: assembler, interleaving: p)
        var timestamps: [UInt32] = []
        assembler.onAccessUnit = { timestamps.append($0.timestamp) }
        let idr = Fixture.slice(idr: true, bytes: 10), pSlice = Fixture.slice(idr: false, bytes: 10)
        var payload: [UInt8] = [0x1A, 0, 100]
        for (dond, offset, nal) in [(0, 0, idr), (1, 3000, pSlice), (2, 6000, pSlice)] {
            payload += [0, UInt8(nal.count), UInt8(dond), UInt8(offset >> 8), UInt8(offset & 0xFF)] + nal
        }
        try payload.withUnsafeBytes {
            XCTAssertNil(H264Payload.validate($0))
            try depacketizer.process(payload: $0, timestamp: 90000, marker: true, lostBefore: 0)
        }
        try depacketizer.flush()
        XCTAssertEqual(timestamps, [90000, 93000, 96000])
    }
}
