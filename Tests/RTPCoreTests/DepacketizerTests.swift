import XCTest
@testable import RTPCore

/// RFC 6184 single NAL units, STAP-A and FU-A through the whole receive path, with the access units
/// that come out.
final class DepacketizerTests: XCTestCase {
    let idr = Fixture.slice(idr: true, bytes: 300, tag: 0x11)
    let p1 = Fixture.slice(idr: false, bytes: 60, tag: 0x22)
    let p2 = Fixture.slice(idr: false, bytes: 60, tag: 0x33)

    /// SPS+PPS in a STAP-A, the IDR in FU-A fragments, then two P frames as single NAL units.
    private func stream(startSeq: UInt16 = 100) -> [[UInt8]] {
        var packets: [[UInt8]] = [Fixture.rtp(seq: startSeq, ts: 3000, payload: Fixture.stapA([Fixture.sps, Fixture.pps]))]
        let fragments = Fixture.fuA(idr, size: 100)
        for (i, f) in fragments.enumerated() {
            packets.append(Fixture.rtp(seq: startSeq &+ 1 &+ UInt16(i), ts: 3000, marker: i == fragments.count - 1, payload: f))
        }
        var seq = startSeq &+ 1 &+ UInt16(fragments.count)
        for (n, p) in [p1, p2].enumerated() {
            packets.append(Fixture.rtp(seq: seq, ts: 6000 + 3000 * UInt32(n), marker: true, payload: p))
            seq &+= 1
        }
        return packets
    }

    private let expectedIDR: [UInt8] = Fixture.annexB([Fixture.sps, Fixture.pps, Fixture.slice(idr: true, bytes: 300, tag: 0x11)])

    func testWholeStreamGivesThreeAccessUnitsBitExact() throws {
        let feeder = Feeder()
        for p in stream() { try feeder.send(p) }
        let aus = try feeder.finish()
        XCTAssertEqual(aus, [expectedIDR, Fixture.annexB([p1]), Fixture.annexB([p2])])
        XCTAssertEqual(feeder.sink.keyframes, [true, false, false])
    }

    func testFUAWithoutItsStartIsDroppedWithItsAccessUnit() throws {
        let feeder = Feeder()
        var packets = stream()
        packets.remove(at: 1)  // the IDR's start fragment
        for p in packets { try feeder.send(p) }
        // No keyframe survives, so nothing is written.
        XCTAssertEqual(try feeder.finish(), [])
        XCTAssertEqual(feeder.stream.frames.droppedDamaged, 1)
        XCTAssertEqual(feeder.stream.lost, 1)
    }

    func testFUAWithAGapIsDroppedWhole() throws {
        let feeder = Feeder()
        var packets = stream()
        packets.remove(at: 2)  // a middle fragment
        for p in packets { try feeder.send(p) }
        XCTAssertEqual(try feeder.finish(), [])
        XCTAssertEqual(feeder.stream.frames.droppedDamaged, 1)
        XCTAssertEqual(feeder.stream.fragmentedUnitsDropped, 1)
    }

    func testFUAWithStartAndEndTogetherIsAWholeUnit() throws {
        let feeder = Feeder()
        let whole: [UInt8] = [0x7C, 0x80 | 0x40 | 5] + idr.dropFirst()  // S and E both set
        try feeder.send(Fixture.rtp(seq: 1, ts: 90, payload: Fixture.stapA([Fixture.sps, Fixture.pps])))
        try feeder.send(Fixture.rtp(seq: 2, ts: 90, marker: true, payload: whole))
        XCTAssertEqual(try feeder.finish(), [expectedIDR])
    }

    /// FU-A fragments with no bytes after their FU header, as some cameras send between the others
    /// (and as the last): each adds nothing, and the unit is whole.
    func testEmptyFUAFragmentsAddNothing() throws {
        let feeder = Feeder()
        var packets: [[UInt8]] = [Fixture.rtp(seq: 1, ts: 3000, payload: Fixture.stapA([Fixture.sps, Fixture.pps]))]
        let fragments = Fixture.fuA(idr, size: 100)
        var seq: UInt16 = 2
        for (i, f) in fragments.enumerated() {
            let last = i == fragments.count - 1
            packets.append(Fixture.rtp(seq: seq, ts: 3000, payload: last ? [f[0], f[1] & ~0x40] + f.dropFirst(2) : f))
            packets.append(Fixture.rtp(seq: seq + 1, ts: 3000, marker: last, payload: [f[0], f[1] & 0x1F | (last ? 0x40 : 0)]))
            seq += 2
        }
        for p in packets { try feeder.send(p) }
        XCTAssertEqual(try feeder.finish(), [expectedIDR])
        XCTAssertTrue(feeder.stream.invalidPayload.isEmpty, "\(feeder.stream.invalidPayload)")
    }

    /// A camera that sends its SPS and PPS in one packet with a start code between, and then a whole
    /// access unit as one Annex-B packet (in a STAP-A too): the NAL units between the start codes,
    /// the long and short codes' zero bytes left out, counted once per unit that held them.
    func testStartCodesInsideAUnitSplitIt() throws {
        let feeder = Feeder()
        let code: [UInt8] = [0, 0, 0, 1]
        try feeder.send(Fixture.rtp(seq: 1, ts: 3000, payload: Fixture.sps + code + Fixture.pps))
        try feeder.send(Fixture.rtp(seq: 2, ts: 3000, marker: true, payload: idr))
        try feeder.send(Fixture.rtp(seq: 3, ts: 6000, marker: true, payload: Fixture.sps + [0, 0, 1] + Fixture.pps + code + p1 + [0]))
        try feeder.send(Fixture.rtp(seq: 4, ts: 9000, marker: true, payload: Fixture.stapA([Fixture.pps + code + p2])))
        XCTAssertEqual(try feeder.finish(), [expectedIDR, Fixture.annexB([Fixture.sps, Fixture.pps, p1]),
                                               Fixture.annexB([Fixture.pps, p2])])
        XCTAssertEqual(feeder.stream.unitsWithStartCodes, 3)
        XCTAssertEqual(feeder.stream.notices, [.startCodesInNALUnits])
    }

    func testStartCodesAreFoundAsAPlainScanFindsThem() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in [0, 0, 1, 2, 0x80][Int.random(in: 0...4, using: &generator)] as UInt8 }
            let plain = bytes.count >= 3 && (0..<bytes.count - 2).contains { bytes[$0] == 0 && bytes[$0 + 1] == 0 && bytes[$0 + 2] == 1 }
            bytes.withUnsafeBytes { XCTAssertEqual(AnnexB.containsStartCode($0), plain, "\(bytes)") }
        }
    }

    func testSTAPAOverrunIsRejectedBeforeItTakesASequenceNumber() throws {
        let feeder = Feeder()
        var packets = stream()
        // A forged packet with the IDR's first sequence number, whose unit runs past its end.
        packets.insert(Fixture.rtp(seq: 101, ts: 3000, payload: [0x78, 0x00, 0x09, 0x67, 0x42]), at: 1)
        for p in packets { try feeder.send(p) }
        XCTAssertEqual(try feeder.finish().count, 3)
        XCTAssertEqual(feeder.stream.invalidPayload[.aggregationOverrun], 1)
    }

    func testReservedTypesAndMalformedInterleavedTypesAreCountedAndSkipped() throws {
        let feeder = Feeder()
        var packets = stream()
        packets.insert(Fixture.rtp(seq: 500, ts: 3000, payload: [0x1E, 1, 2]), at: 2)   // type 30
        packets.insert(Fixture.rtp(seq: 501, ts: 3000, payload: [0x19, 0, 1]), at: 2)   // STAP-B cut short
        packets.insert(Fixture.rtp(seq: 502, ts: 3000, payload: [0x1D, 0x05, 0, 0, 9]), at: 2)  // FU-B without S
        for p in packets { try feeder.send(p) }
        XCTAssertEqual(try feeder.finish().count, 3)
        XCTAssertEqual(feeder.stream.invalidPayload[.reservedType], 1)
        XCTAssertEqual(feeder.stream.invalidPayload[.aggregationEmpty], 1)
        XCTAssertEqual(feeder.stream.invalidPayload[.fuBWithoutStart], 1)
    }

    func testSequenceWrapKeepsOrder() throws {
        let feeder = Feeder()
        for p in stream(startSeq: 65533) { try feeder.send(p) }
        XCTAssertEqual(try feeder.finish(), [expectedIDR, Fixture.annexB([p1]), Fixture.annexB([p2])])
        XCTAssertEqual(feeder.stream.lost, 0)
    }

    func testReorderedAndDuplicatedPacketsGiveTheSameOutput() throws {
        let feeder = Feeder()
        var packets = stream()
        packets.swapAt(2, 4)
        packets.swapAt(0, 1)
        packets.insert(packets[3], at: 6)
        for p in packets { try feeder.send(p) }
        XCTAssertEqual(try feeder.finish(), [expectedIDR, Fixture.annexB([p1]), Fixture.annexB([p2])])
        XCTAssertEqual(feeder.stream.duplicates, 1)
    }

    func testMissingMarkersStillSplitAccessUnitsByTimestamp() throws {
        let feeder = Feeder()
        let unmarked = stream().map { packet -> [UInt8] in
            var p = packet
            p[1] &= 0x7F
            return p
        }
        for p in unmarked { try feeder.send(p) }
        // The last access unit has no marker and the stream never used markers: it is written.
        XCTAssertEqual(try feeder.finish(), [expectedIDR, Fixture.annexB([p1]), Fixture.annexB([p2])])
    }

    func testSameTimestampStillSplitsAtFirstMbZero() throws {
        let feeder = Feeder()
        try feeder.send(Fixture.rtp(seq: 1, ts: 90, payload: Fixture.stapA([Fixture.sps, Fixture.pps, idr])))
        // Wrong sender: two pictures under one timestamp and no marker between them.
        try feeder.send(Fixture.rtp(seq: 2, ts: 90, payload: p1))
        try feeder.send(Fixture.rtp(seq: 3, ts: 90, marker: true, payload: p2))
        XCTAssertEqual(try feeder.finish(), [expectedIDR, Fixture.annexB([p1]), Fixture.annexB([p2])])
    }

    func testSecondSliceOfAPictureStaysInItsAccessUnit() throws {
        let feeder = Feeder()
        let second = Fixture.slice(idr: true, firstMb: 150, bytes: 50, tag: 0x44)
        // rtph264pay repeats SPS/PPS before the second slice: they are dropped, the slice kept.
        try feeder.send(Fixture.rtp(seq: 1, ts: 90, payload: Fixture.stapA([Fixture.sps, Fixture.pps, idr, Fixture.sps, Fixture.pps])))
        try feeder.send(Fixture.rtp(seq: 2, ts: 90, marker: true, payload: second))
        XCTAssertEqual(try feeder.finish(), [Fixture.annexB([Fixture.sps, Fixture.pps, idr, second])])
    }

    func testParameterSetsFromSDPAreInsertedBeforeTheKeyframe() throws {
        let feeder = Feeder { $0.parameterSets = [Fixture.sps, Fixture.pps]; $0.payloadType = 96 }
        try feeder.send(Fixture.rtp(seq: 1, ts: 90, marker: true, payload: idr))
        try feeder.send(Fixture.rtp(seq: 2, ts: 180, marker: true, payload: p1))
        XCTAssertEqual(try feeder.finish(), [expectedIDR, Fixture.annexB([p1])])
    }

    func testFramesBeforeTheFirstKeyframeAreDroppedAndCounted() throws {
        let feeder = Feeder()
        try feeder.send(Fixture.rtp(seq: 1, ts: 90, marker: true, payload: p1))
        for p in stream(startSeq: 2) { try feeder.send(p) }
        XCTAssertEqual(try feeder.finish().count, 3)
        XCTAssertEqual(feeder.stream.frames.beforeFirstKeyframe, 1)
    }

    func testSourceRestartResyncsInsteadOfDroppingEverything() throws {
        let feeder = Feeder()
        for p in stream(startSeq: 100) { try feeder.send(p) }
        // The sender restarts far away in sequence space and in timestamp.
        for p in stream(startSeq: 40000) {
            var q = p
            q[4] ^= 0x40
            try feeder.send(q)
        }
        XCTAssertEqual(try feeder.finish().count, 6)
        XCTAssertEqual(feeder.stream.restarts, 1)
    }

    /// The IDR (frame_num 0) in one packet, a gap, then P slices with `frameNums` (all references).
    private func gapThenPictures(frameNums: [Int]) -> [[UInt8]] {
        let idr = Fixture.slice(idr: true, bytes: 80, tag: 0x11, frameNum: 0)
        var packets = [Fixture.rtp(seq: 1, ts: 3000, marker: true, payload: Fixture.stapA([Fixture.sps, Fixture.pps, idr]))]
        for (n, frameNum) in frameNums.enumerated() {
            let slice = Fixture.slice(idr: false, bytes: 60, tag: UInt8(0x20 + n), frameNum: frameNum)
            packets.append(Fixture.rtp(seq: UInt16(3 + n), ts: 6000 + 3000 * UInt32(n), marker: true, payload: slice))
        }
        return packets
    }

    func testWaitKeyframeDropsUntilTheNextKeyframeWhenFrameNumShowsALostReference() throws {
        let feeder = Feeder { $0.video.waitForKeyframeAfterLoss = true }
        // Packet 2 is missing and the next picture has frame_num 2, not 1: a reference picture went with it.
        for p in gapThenPictures(frameNums: [2, 3]) { try feeder.send(p) }
        XCTAssertEqual(try feeder.finish().count, 1)
        XCTAssertEqual(feeder.stream.frames.dropped(.waitingForKeyframe), 2)
    }

    func testWaitKeyframeKeepsFramesWhenFrameNumShowsNoReferenceWasLost() throws {
        let feeder = Feeder { $0.video.waitForKeyframeAfterLoss = true }
        // Packet 2 is missing, but frame_num continues from the IDR: what it held was no reference picture.
        for p in gapThenPictures(frameNums: [1, 2]) { try feeder.send(p) }
        XCTAssertEqual(try feeder.finish().count, 3)
        XCTAssertEqual(feeder.stream.lost, 1)
        XCTAssertEqual(feeder.stream.frames.writtenWithDamagedReferences, 0)
    }

    /// A sender restarts under a new SSRC whose second packet (its first is held until another
    /// confirms the source) proves it and completes two frames: the old stream's last frame, held
    /// for want of a marker, is accounted for before them.
    func testATakeoverWritesTheSilentStreamsLastFrameFirst() throws {
        // No wait for reordering: each packet goes through as it comes.
        let feeder = Feeder { $0.stream.reorder.latencyNanoseconds = 1 }
        let first = stream()
        for p in first { try feeder.send(p) }
        let p3 = Fixture.slice(idr: false, bytes: 60, tag: 0x44)
        try feeder.send(Fixture.rtp(seq: 100 + UInt16(first.count), ts: 12000, payload: p3))
        let restartIDR = Fixture.slice(idr: true, bytes: 70, tag: 0x33, frameNum: 0)
        let restartP = Fixture.slice(idr: false, bytes: 50, tag: 0x55, frameNum: 1)
        try feeder.send(Fixture.rtp(seq: 900, ts: 90, marker: true, ssrc: 0x5678,
                                    payload: Fixture.stapA([Fixture.sps, Fixture.pps, restartIDR])))
        XCTAssertEqual(feeder.sink.accessUnits.count, 3)
        try feeder.send(Fixture.rtp(seq: 901, ts: 3090, marker: true, ssrc: 0x5678, payload: restartP))
        XCTAssertEqual(feeder.sink.accessUnits.suffix(3), [Fixture.annexB([p2]), Fixture.annexB([Fixture.sps, Fixture.pps, restartIDR]),
                                                         Fixture.annexB([restartP])])
        // The last frame, its end never seen, is accounted for as dropped before the new stream's.
        XCTAssertEqual(feeder.sink.records.map(\.ssrc), [0x1234, 0x1234, 0x1234, 0x1234, 0x5678, 0x5678])
        XCTAssertEqual(feeder.sink.records.map(\.status), [.written, .written, .written, .dropped, .written, .written])
        XCTAssertEqual(feeder.receiver.counters.ssrcChanges, 1)
        XCTAssertEqual(feeder.receiver.previousStreams.map(\.frames.written), [3])
        XCTAssertEqual(try feeder.finish().count, 5)
        XCTAssertEqual(feeder.stream.ssrc, 0x5678)
        XCTAssertEqual(feeder.stream.frames.written, 2)
    }

    /// A hand-over under a frame limit (`--frames 5`) that the silent stream reaches only as it is
    /// finished (its last frame waits for reordering until then): the new stream's frames, held
    /// meanwhile, are not written, and its tally counts none of them (they were taken for written
    /// when held, the limit not reached yet).
    func testATakeoverAtTheFrameLimitCountsNothingItDidNotWrite() throws {
        let feeder = Feeder { $0.maxFrames = 5 }
        let first = stream()
        for p in first { try feeder.send(p) }
        // Its first frames leave the reordering (50 ms, at a stream's start) as the fourth comes; the
        // fifth comes after a gap in the sequence numbers, and waits for the packet missing.
        feeder.wait(nanoseconds: 60_000_000)
        let seq = 100 + UInt16(first.count)
        try feeder.send(Fixture.rtp(seq: seq, ts: 12000, marker: true, payload: Fixture.slice(idr: false, bytes: 60, tag: 0x44, frameNum: 3)))
        try feeder.send(Fixture.rtp(seq: seq + 2, ts: 15000, marker: true, payload: Fixture.slice(idr: false, bytes: 60, tag: 0x45, frameNum: 4)))
        XCTAssertEqual(feeder.sink.accessUnits.count, 4)
        // A new SSRC, whose frames leave its reordering while the silent stream still holds one.
        let restartIDR = Fixture.slice(idr: true, bytes: 70, tag: 0x33, frameNum: 0)
        try feeder.send(Fixture.rtp(seq: 900, ts: 90, marker: true, ssrc: 0x5678,
                                    payload: Fixture.stapA([Fixture.sps, Fixture.pps, restartIDR])))
        feeder.wait(nanoseconds: 60_000_000)
        try feeder.send(Fixture.rtp(seq: 901, ts: 3090, marker: true, ssrc: 0x5678,
                                    payload: Fixture.slice(idr: false, bytes: 50, tag: 0x55, frameNum: 1)))
        XCTAssertTrue(feeder.receiver.isFull)
        XCTAssertEqual(try feeder.finish().count, 5)
        XCTAssertEqual(feeder.receiver.previousStreams.map(\.frames.written), [5])
        XCTAssertEqual(feeder.stream.ssrc, 0x5678)
        XCTAssertEqual(feeder.stream.frames.written, 0)
        XCTAssertEqual(feeder.stream.frames.keyframesWritten, 0)
        XCTAssertEqual(feeder.sink.records.filter { $0.ssrc == 0x5678 }.count, 0)
    }

    func testHostileSSRCWithEndlessFUADoesNotWin() throws {
        let feeder = Feeder()
        for i in 0..<20 {
            try feeder.send(Fixture.rtp(seq: UInt16(i), ts: 5, ssrc: 0xBAD, payload: [0x7C, i == 0 ? 0x85 : 0x05] + Array(repeating: 0x99, count: 50)))
        }
        for p in stream() { try feeder.send(p) }
        XCTAssertEqual(try feeder.finish().count, 3)
        XCTAssertEqual(feeder.receiver.selected?.ssrc, 0x1234)
    }
}
