import XCTest
@testable import RTPCore

/// `Receiver.isWaiting`: whether time, not only packets, moves a stream on. A live loop turns every
/// 20 ms while it holds and may sleep until a packet comes while it does not, so it must hold while
/// a gap waits to be filled or given up on, and only then.
final class ReceiverWaitingTests: XCTestCase {
    private let idr = Fixture.slice(idr: true, bytes: 300, tag: 0x11, frameNum: 0)
    private let p = Fixture.slice(idr: false, bytes: 300, tag: 0x22, frameNum: 1)

    /// Parameter sets and an IDR, then two P frames in three FU-A fragments each.
    private func packets() -> [[UInt8]] {
        let fragments = Fixture.fuA(p, size: 120)
        var packets = [Fixture.rtp(seq: 1, ts: 3000, marker: true, payload: Fixture.stapA([Fixture.sps, Fixture.pps, idr]))]
        for (frame, ts) in [(0, UInt32(6000)), (1, 9000)] {
            for (i, fragment) in fragments.enumerated() {
                packets.append(Fixture.rtp(seq: UInt16(2 + frame * 3 + i), ts: ts, marker: i == 2, payload: fragment))
            }
        }
        return packets
    }

    /// `packet`, the `n`th, 20 ms after the one before: past the reorder buffer's first packets' wait.
    private func send(_ packet: [UInt8], to receiver: Receiver, at n: Int) throws {
        try packet.withUnsafeBytes {
            try receiver.receive(datagram: $0, source: nil, destination: nil, arrival: 1_000_000_000 + Int64(n) * 20_000_000)
        }
    }

    func testAGapWaitsOnTimeUntilTheLatencyGivesUpOnIt() throws {
        let feeder = Feeder { $0.payloadType = 96 }
        let all = packets()
        for i in [0, 1, 2, 3, 4, 6] { try send(all[i], to: feeder.receiver, at: i) }
        XCTAssertNotNil(feeder.receiver.selected)
        XCTAssertTrue(feeder.receiver.isWaiting, "packet 7 waits for 6")
        try feeder.receiver.tick(now: 1_130_000_000)
        XCTAssertTrue(feeder.receiver.isWaiting, "within the latency (50 ms)")
        try feeder.receiver.tick(now: 3_000_000_000)
        XCTAssertFalse(feeder.receiver.isWaiting, "the gap given up on")
        XCTAssertEqual(feeder.stream.lost, 1)
    }

    func testAGapFilledWaitsNoMore() throws {
        let feeder = Feeder { $0.payloadType = 96 }
        let all = packets()
        for i in [0, 1, 2, 3, 4, 6] { try send(all[i], to: feeder.receiver, at: i) }
        XCTAssertTrue(feeder.receiver.isWaiting)
        try send(all[5], to: feeder.receiver, at: 7)
        XCTAssertFalse(feeder.receiver.isWaiting, "the gap filled: nothing waits, before any tick")
        XCTAssertEqual(try feeder.finish().count, 3, "every frame whole")
    }
}
