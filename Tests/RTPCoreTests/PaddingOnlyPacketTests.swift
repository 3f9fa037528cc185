import XCTest
@testable import RTPCore

/// Packets of padding only (RFC 3550 §5.1), as WebRTC senders probe bandwidth with: packets of the
/// sequence that carry no media, never invalid, never lost, and no cover for a loss next to them.
final class PaddingOnlyPacketTests: XCTestCase {
    /// An RTP packet with the padding bit and nothing but 4 bytes of padding.
    private func probe(seq: UInt16, ts: UInt32) -> [UInt8] {
        var packet = Fixture.rtp(seq: seq, ts: ts, payload: [0, 0, 0, 4])
        packet[0] |= 0x20
        return packet
    }

    private let idr = Fixture.slice(idr: true, bytes: 300, tag: 0x11, frameNum: 0)
    private let p = Fixture.slice(idr: false, bytes: 300, tag: 0x22, frameNum: 1)

    /// Parameter sets and an IDR (3000); a P frame in three FU-A fragments (6000).
    private func packets() -> [[UInt8]] {
        let fragments = Fixture.fuA(p, size: 120)
        return [Fixture.rtp(seq: 1, ts: 3000, marker: true, payload: Fixture.stapA([Fixture.sps, Fixture.pps, idr])),
                Fixture.rtp(seq: 2, ts: 6000, payload: fragments[0]),
                Fixture.rtp(seq: 3, ts: 6000, payload: fragments[1]),
                Fixture.rtp(seq: 4, ts: 6000, marker: true, payload: fragments[2])]
    }

    /// `packets` with probes inserted before the indices given, sequence numbers renumbered.
    private func withProbes(_ packets: [[UInt8]], before indices: Set<Int>) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for (i, packet) in packets.enumerated() {
            if indices.contains(i) { out.append(probe(seq: UInt16(out.count + 1), ts: 3000)) }
            var renumbered = packet
            renumbered[2] = UInt8((out.count + 1) >> 8)
            renumbered[3] = UInt8((out.count + 1) & 0xFF)
            out.append(renumbered)
        }
        return out
    }

    func testProbesBetweenAndInsideFramesChangeNothing() throws {
        let feeder = Feeder()
        for packet in withProbes(packets(), before: [1, 2, 3]) { try feeder.send(packet) }
        let units = try feeder.finish()
        XCTAssertEqual(units, [Fixture.annexB([Fixture.sps, Fixture.pps, idr]), Fixture.annexB([p])])
        XCTAssertEqual(feeder.stream.paddingOnly, 3)
        XCTAssertEqual(feeder.stream.packets, 7)
        XCTAssertEqual(feeder.stream.lost, 0)
        XCTAssertEqual(feeder.stream.invalidPackets, 0)
    }

    /// A fragment lost just before a probe: the frame it belonged to is still known to be damaged.
    func testALossBeforeAProbeStillDamagesTheFrame() throws {
        var all = withProbes(packets(), before: [3])  // IDR, FU start, FU middle, probe, FU end
        all.remove(at: 2)  // the FU middle
        let feeder = Feeder()
        for packet in all { try feeder.send(packet) }
        let units = try feeder.finish()
        XCTAssertEqual(units, [Fixture.annexB([Fixture.sps, Fixture.pps, idr])])
        XCTAssertEqual(feeder.stream.lost, 1)
        XCTAssertEqual(feeder.sink.records.last?.status, .dropped)
        XCTAssertEqual(feeder.sink.records.last?.reason, .missingPackets)
    }
}
