@testable import RTPCore
import XCTest

/// A call's audio under a new SSRC (a phone's transfer or re-INVITE): the new SSRC starts right
/// after the old one stops, and takes over once the old one has been silent a second. Its packets
/// of that second are held, not lost; a second sender that never takes over is counted as ignored.
final class AudioTakeoverTests: XCTestCase {
    private final class AudioSink: AccessUnitSink {
        var frames: [(ssrc: UInt32, sequenceNumber: UInt16)] = []
        func write(_ accessUnit: AccessUnit) throws {}
        func write(audio frame: AudioFrame) throws { frames.append((frame.record.ssrc, frame.record.firstSequenceNumber)) }
    }

    /// A 20 ms PCMU packet.
    private func packet(ssrc: UInt32, sequenceNumber: UInt16) -> [UInt8] {
        let timestamp = UInt32(truncatingIfNeeded: Int(sequenceNumber) * 160)
        return [0x80, 0, UInt8(sequenceNumber >> 8), UInt8(sequenceNumber & 0xFF)]
            + withUnsafeBytes(of: timestamp.bigEndian, Array.init) + withUnsafeBytes(of: ssrc.bigEndian, Array.init)
            + Array(repeating: 0xFF, count: 160)
    }

    /// The packets, each of an SSRC with its sequence number and arrival in ms, fed in arrival order.
    private func run(_ packets: [(ssrc: UInt32, sequenceNumber: UInt16, milliseconds: Int64)]) throws -> (AudioSink, Receiver) {
        let sink = AudioSink()
        var configuration = Receiver.Configuration()
        configuration.stream.reorder.latencyNanoseconds = 50_000_000
        let receiver = Receiver(configuration: configuration, sink: sink)
        for p in packets.sorted(by: { $0.milliseconds < $1.milliseconds }) {
            try packet(ssrc: p.ssrc, sequenceNumber: p.sequenceNumber).withUnsafeBytes {
                try receiver.receive(datagram: $0, source: nil, destination: nil, arrival: p.milliseconds * 1_000_000)
            }
        }
        try receiver.finish()
        return (sink, receiver)
    }

    func testANewSSRCRightAfterTheOldLosesNothing() throws {
        let first = (0..<100).map { (ssrc: UInt32(1), sequenceNumber: UInt16($0), milliseconds: Int64($0) * 20) }
        let second = (0..<150).map { (ssrc: UInt32(2), sequenceNumber: UInt16(5000 + $0), milliseconds: 2000 + Int64($0) * 20) }
        let (sink, receiver) = try run(first + second)
        XCTAssertEqual(sink.frames.filter { $0.ssrc == 1 }.count, 100)
        XCTAssertEqual(sink.frames.filter { $0.ssrc == 2 }.map(\.sequenceNumber), (0..<150).map { UInt16(5000 + $0) },
                       "every packet of the new SSRC, its first second's included, in order")
        XCTAssertEqual(receiver.counters.audioSSRCChanges, 1)
        XCTAssertEqual(receiver.audio?.statistics.packets, 150)
        XCTAssertNil(receiver.otherStreams[2])
    }

    /// Two senders at once: the first keeps the stream; the second's packets are counted as another
    /// SSRC's, every one, whether they fell out of the hold or were still in it at the end.
    func testASecondSenderIsCountedAsIgnored() throws {
        // A minute: far more of the second's packets fall out of the hold than it holds at once.
        let first = (0..<3000).map { (ssrc: UInt32(1), sequenceNumber: UInt16($0), milliseconds: Int64($0) * 20) }
        let second = (0..<2500).map { (ssrc: UInt32(2), sequenceNumber: UInt16(7000 + $0), milliseconds: 10 + Int64($0) * 20) }
        let (sink, receiver) = try run(first + second)
        XCTAssertEqual(sink.frames.count, 3000)
        XCTAssertTrue(sink.frames.allSatisfy { $0.ssrc == 1 })
        XCTAssertEqual(receiver.counters.audioSSRCChanges, 0)
        XCTAssertEqual(receiver.otherStreams[2]?.packets, 2500)
    }
}
