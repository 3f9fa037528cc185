/// One RTP payload format (one RFC) as an `RTPStream` drives it: payloads in sequence order, each
/// with the count of packets lost just before it. What the format makes of them (access units,
/// audio frames) leaves through an output of its own, which the session sets.
public protocol PayloadFormat: AnyObject {
    /// The RTP clock rate: for jitter, and for the times of what the format gives.
    var clockRate: Int { get }
    /// Says what the stream does that is worked around, once each.
    var onNotice: (StreamNotice) -> Void { get set }

    /// Whether `payload` is well formed enough to enter the stream's sequence; the format counts
    /// those it refuses, by reason.
    func accepts(_ payload: UnsafeRawBufferPointer) -> Bool

    /// `lostBefore`: packets missing between this one and the one processed before it. `arrival` is
    /// on the packet clock. `borrowing`: `payload` stays valid until what it goes into is handed on.
    /// `sequenceNumber` is the packet's, extended. `headerExtension`: the data of the header extension
    /// element the format reads (`VideoFormatConfiguration.dependencyDescriptorID`), empty when none.
    func process(payload: UnsafeRawBufferPointer, headerExtension: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool,
                 lostBefore: Int, arrival: Int64, borrowing: Bool, sequenceNumber: Int64) throws

    /// A packet of another payload type on the stream's SSRC, as it arrives: what the format knows
    /// of it (comfort noise, telephone events beside audio) it takes; it is in the sequence as a
    /// packet with no media.
    func otherPayloadType(_ packet: RTPPacket, payload: UnsafeRawBufferPointer) throws

    /// `process`, then `tick(now: arrival)`: what a packet that comes in order takes, in one call
    /// (which a format behind one, `AnyVideoPayloadFormat`, makes one call rather than two).
    func processInOrder(payload: UnsafeRawBufferPointer, headerExtension: UnsafeRawBufferPointer, timestamp: UInt32,
                        marker: Bool, lostBefore: Int, arrival: Int64, borrowing: Bool, sequenceNumber: Int64) throws

    /// Time passes with no packet: what waits on time may go.
    func tick(now: Int64) throws
    /// The stream ends or restarts: what is in progress is finished or dropped as incomplete.
    func flush() throws
    /// After a flush at a source restart: start over, as at the first packet.
    func restart()

    /// Whether output in progress refers to bytes in `memory`.
    func refers(to memory: UnsafeRawBufferPointer) -> Bool
    /// Copies what output in progress holds of `memory`, which may then be reused.
    func stopReferring(to memory: UnsafeRawBufferPointer)

    /// Adds the format's own counters to the stream's statistics.
    func fold(into statistics: inout StreamStatistics)
}

extension PayloadFormat {
    public func otherPayloadType(_ packet: RTPPacket, payload: UnsafeRawBufferPointer) throws {}

    @inline(__always)
    public func processInOrder(payload: UnsafeRawBufferPointer, headerExtension: UnsafeRawBufferPointer, timestamp: UInt32,
                               marker: Bool, lostBefore: Int, arrival: Int64, borrowing: Bool, sequenceNumber: Int64) throws {
        try process(payload: payload, headerExtension: headerExtension, timestamp: timestamp, marker: marker, lostBefore: lostBefore, arrival: arrival,
                    borrowing: borrowing, sequenceNumber: sequenceNumber)
        try tick(now: arrival)
    }
}
