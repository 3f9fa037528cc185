import XCTest
@testable import RTPCore

/// What becomes of damaged access units: repaired from cached parameter sets when only they were
/// lost, dropped otherwise; a lost non-reference picture costs only itself; the ledger's records.
final class FrameGateTests: XCTestCase {
    let idr = Fixture.slice(idr: true, bytes: 120, tag: 0x11, frameNum: 0)

    /// SPS+PPS and an IDR (ts 3000); a P frame (6000); then the second IDR's SPS, PPS and slice in
    /// packets of their own (9000), as SIP phones send them; a P frame (12000).
    private func stream() -> [[UInt8]] {
        [Fixture.rtp(seq: 1, ts: 3000, marker: true, payload: Fixture.stapA([Fixture.sps, Fixture.pps, idr])),
         Fixture.rtp(seq: 2, ts: 6000, marker: true, payload: Fixture.slice(idr: false, tag: 0x22, frameNum: 1)),
         Fixture.rtp(seq: 3, ts: 9000, payload: Fixture.sps),
         Fixture.rtp(seq: 4, ts: 9000, payload: Fixture.pps),
         Fixture.rtp(seq: 5, ts: 9000, marker: true, payload: Fixture.slice(idr: true, bytes: 90, tag: 0x33, frameNum: 0)),
         Fixture.rtp(seq: 6, ts: 12000, marker: true, payload: Fixture.slice(idr: false, tag: 0x44, frameNum: 1))]
    }

    private func run(_ packets: [[UInt8]], wait: Bool = false) throws -> Feeder {
        let feeder = Feeder { $0.video.waitForKeyframeAfterLoss = wait }
        for p in packets { try feeder.send(p) }
        _ = try feeder.finish()
        return feeder
    }

    func testLostPPSPacketBeforeAnIDRIsRepairedFromTheCache() throws {
        var packets = stream()
        packets.remove(at: 3)  // the PPS in front of the second IDR
        let feeder = try run(packets, wait: true)
        let second = Fixture.slice(idr: true, bytes: 90, tag: 0x33, frameNum: 0)
        // Its own SPS, then the cached PPS put in after it, then the slice.
        XCTAssertEqual(feeder.sink.accessUnits[2], Fixture.annexB([Fixture.sps, Fixture.pps, second]))
        XCTAssertEqual(feeder.sink.nalUnitOffsets[2], [0, 4 + Fixture.sps.count, 8 + Fixture.sps.count + Fixture.pps.count])
        XCTAssertEqual(feeder.sink.accessUnits.count, 4)
        XCTAssertEqual(feeder.sink.records.map(\.status), [.written, .written, .repaired, .written])
        XCTAssertEqual(feeder.sink.records[2].reason, .missingPackets)
        XCTAssertEqual(feeder.sink.records[2].missingPackets, 1)
        XCTAssertEqual(feeder.stream.frames.repaired, 1)
    }

    /// A keyframe whose SPS and PPS come only after its slice decodes alone (a decoder, a segment
    /// file or a picture that starts there) only with the cached sets put in front of the slice.
    func testAKeyframeWhoseSetsComeAfterItsSliceGetsThemInFront() throws {
        var packets = stream()
        packets[2...4] = [Fixture.rtp(seq: 3, ts: 9000, payload: Fixture.slice(idr: true, bytes: 90, tag: 0x33, frameNum: 0)),
                          Fixture.rtp(seq: 4, ts: 9000, payload: Fixture.sps),
                          Fixture.rtp(seq: 5, ts: 9000, marker: true, payload: Fixture.pps)]
        let feeder = try run(packets)
        let second = Fixture.slice(idr: true, bytes: 90, tag: 0x33, frameNum: 0)
        XCTAssertEqual(feeder.sink.accessUnits[2], Fixture.annexB([Fixture.sps, Fixture.pps, second, Fixture.sps, Fixture.pps]))
        XCTAssertEqual(feeder.sink.records.map(\.status), [.written, .written, .written, .written])
        // In front of the slice they come in, the unit's own sets are left alone.
        XCTAssertEqual(try run(stream()).sink.accessUnits[2],
                       Fixture.annexB([Fixture.sps, Fixture.pps, second]))
    }

    func testLossAfterTheFirstSliceIsNoRepair() throws {
        var packets = stream()
        let late = Fixture.slice(idr: true, firstMb: 60, bytes: 40, tag: 0x35, frameNum: 0)
        packets.insert(Fixture.rtp(seq: 7, ts: 9000, marker: true, payload: late), at: 5)
        packets[4][1] &= 0x7F  // the marker moves to the second slice
        // Renumber, then lose the second slice: the gap lies after the first.
        packets = packets.enumerated().map { i, p in var q = p; q[2] = 0; q[3] = UInt8(i + 1); return q }
        packets.remove(at: 5)
        let feeder = try run(packets)
        XCTAssertEqual(feeder.sink.records.map(\.status), [.written, .written, .dropped, .written])
        XCTAssertEqual(feeder.sink.records[2].reason, .missingPackets)
        XCTAssertFalse(feeder.sink.records[3].referencesIntact, "the P frame refers to the lost IDR")
    }

    func testNoRepairWhenThePPSWasNeverCached() throws {
        // The first IDR too comes as SPS, PPS and slice in packets of their own, and loses its PPS
        // before anything could cache one.
        let first = [Fixture.rtp(seq: 1, ts: 3000, payload: Fixture.sps),
                     Fixture.rtp(seq: 3, ts: 3000, marker: true, payload: idr)]  // seq 2, the PPS, lost
        let rest = stream().dropFirst().enumerated().map { i, p in var q = p; q[3] = UInt8(4 + i); return q }
        let feeder = try run(first + rest)
        XCTAssertEqual(feeder.sink.records.map(\.status), [.dropped, .dropped, .written, .written])
        XCTAssertEqual(feeder.sink.records.map(\.reason), [.missingPackets, .waitingForKeyframe, nil, nil])
        XCTAssertEqual(feeder.stream.frames.repaired, 0)
    }

    func testALostNonReferencePictureCostsOnlyItselfWhenWaitingForKeyframes() throws {
        let b = Fixture.slice(idr: false, bytes: 50, tag: 0x66, frameNum: 1, reference: false)
        let p = Fixture.slice(idr: false, bytes: 50, tag: 0x77, frameNum: 1)
        let packets = [
            Fixture.rtp(seq: 1, ts: 3000, marker: true, payload: Fixture.stapA([Fixture.sps, Fixture.pps, idr])),
            Fixture.fuA(b, size: 30).enumerated().map { i, f in Fixture.rtp(seq: UInt16(2 + i), ts: 6000, marker: i == 1, payload: f) }[1],
            Fixture.rtp(seq: 4, ts: 9000, marker: true, payload: p),
        ]
        // The B frame's first fragment is lost; its second says nal_ref_idc 0: nothing refers to it.
        let feeder = try run(packets, wait: true)
        XCTAssertEqual(feeder.sink.records.map(\.status), [.written, .dropped, .written])
        XCTAssertEqual(feeder.sink.records[1].reason, .missingFragmentStart)
        XCTAssertTrue(feeder.sink.records[2].referencesIntact)
    }

    func testOverrunningSTAPAKeepsItsNewSPSForTheFramesAfter() throws {
        // A new SPS (id 0, other content) in a STAP-A whose IDR unit runs past the packet: the IDR is
        // lost, the SPS kept; the P frame after it, written without --wait-keyframe, gets it in front.
        var newSPS = Fixture.sps
        newSPS[newSPS.count - 2] ^= 0x01
        XCTAssertNotNil(newSPS.withUnsafeBytes { SequenceParameterSet(nal: $0) })
        let idr2 = Fixture.slice(idr: true, bytes: 60, tag: 0x12, frameNum: 0)
        var stap = Fixture.stapA([newSPS, Fixture.pps, idr2])
        stap.removeLast(27)  // the IDR's size now claims 27 bytes more than the packet holds
        let p = Fixture.slice(idr: false, bytes: 40, tag: 0x13, frameNum: 1)
        let packets = [
            Fixture.rtp(seq: 1, ts: 3000, marker: true, payload: Fixture.stapA([Fixture.sps, Fixture.pps, idr])),
            Fixture.rtp(seq: 2, ts: 6000, marker: true, payload: stap),
            Fixture.rtp(seq: 3, ts: 9000, marker: true, payload: p),
        ]
        let feeder = try run(packets)
        XCTAssertEqual(feeder.stream.lost, 0)
        XCTAssertEqual(feeder.stream.invalidPackets, 0)
        XCTAssertEqual(feeder.stream.aggregationUnitsOverrun, 1)
        XCTAssertEqual(feeder.sink.records.map(\.status), [.written, .dropped, .written])
        XCTAssertEqual(feeder.sink.records[1].reason, .aggregationOverrun)
        XCTAssertTrue(feeder.sink.records[1].isKeyframe, "the lost unit's header said IDR")
        XCTAssertEqual(feeder.sink.accessUnits[1], Fixture.annexB([newSPS, p]))
    }

    func testAnIDRWhoseLastFragmentIsLostIsStillAKeyframeInTheLedger() throws {
        // SPS and PPS, then the IDR in three fragments, the last (with the marker) lost.
        let fragments = Fixture.fuA(Fixture.slice(idr: true, bytes: 240, tag: 0x11, frameNum: 0), size: 90)
        XCTAssertEqual(fragments.count, 3)
        let packets = [Fixture.rtp(seq: 1, ts: 3000, payload: Fixture.stapA([Fixture.sps, Fixture.pps]))]
            + fragments.prefix(2).enumerated().map { i, f in Fixture.rtp(seq: UInt16(2 + i), ts: 3000, payload: f) }
            + [Fixture.rtp(seq: 5, ts: 6000, marker: true, payload: Fixture.slice(idr: false, tag: 0x22, frameNum: 1))]
        let feeder = try run(packets)
        XCTAssertEqual(feeder.sink.records.map(\.isKeyframe), [true, false])
        XCTAssertEqual(feeder.sink.records.map(\.status), [.dropped, .dropped])
        XCTAssertEqual(feeder.sink.records.map(\.reason), [.missingPackets, .waitingForKeyframe])
        XCTAssertEqual(feeder.stream.frames.beforeFirstKeyframe, 0)
    }
}
