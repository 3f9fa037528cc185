/// A video payload format as the receiver drives it, whichever the codec: what it gives (access
/// units and their ledger records), what it needs from the SDP, and how a stream proves it carries
/// the codec.
public protocol VideoPayloadFormat: PayloadFormat {
    var codec: VideoCodec { get }
    /// Receives the verdict on every access unit from the first keyframe on, with its bytes when it
    /// is to be written; returns false when it was not taken (a stream not selected for output).
    var output: (FrameRecord, AccessUnit?) throws -> Bool { get set }
    /// Whether the output waits for, or would be mended by, a keyframe: RTCP asks for one meanwhile.
    var wantsKeyframe: Bool { get }
    /// Payloads refused, by reason.
    var invalidPayload: [VideoPayloadInvalid: Int] { get }
    /// Parameter sets known before any packet (the SDP's sprop-*), NAL header first.
    func addParameterSets(_ nalUnits: [[UInt8]])
    /// Whether what came so far shows the codec: a parameter set that parses, or slices whose
    /// headers do (one when the user named the payload type or SSRC, `given`, else three).
    func provesCodec(given: Bool) -> Bool
}

/// Either codec's format behind one concrete type, so that a stream's type does not depend on its
/// codec: one call through the protocol per packet.
public final class AnyVideoPayloadFormat: PayloadFormat {
    public let base: any VideoPayloadFormat

    public init(_ base: any VideoPayloadFormat) { self.base = base }

    public var codec: VideoCodec { base.codec }
    public var clockRate: Int { base.clockRate }
    public var onNotice: (StreamNotice) -> Void {
        get { base.onNotice }
        set { base.onNotice = newValue }
    }
    public var output: (FrameRecord, AccessUnit?) throws -> Bool {
        get { base.output }
        set { base.output = newValue }
    }
    public var wantsKeyframe: Bool { base.wantsKeyframe }
    public var invalidPayload: [VideoPayloadInvalid: Int] { base.invalidPayload }
    public func provesCodec(given: Bool) -> Bool { base.provesCodec(given: given) }

    @inline(__always)
    public func accepts(_ payload: UnsafeRawBufferPointer) -> Bool { base.accepts(payload) }

    @inline(__always)
    public func process(payload: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool, lostBefore: Int,
                        arrival: Int64, borrowing: Bool, sequenceNumber: Int64) throws {
        try base.process(payload: payload, timestamp: timestamp, marker: marker, lostBefore: lostBefore,
                         arrival: arrival, borrowing: borrowing, sequenceNumber: sequenceNumber)
    }

    public func tick(now: Int64) throws { try base.tick(now: now) }
    public func flush() throws { try base.flush() }
    public func restart() { base.restart() }
    public func refers(to memory: UnsafeRawBufferPointer) -> Bool { base.refers(to: memory) }
    public func stopReferring(to memory: UnsafeRawBufferPointer) { base.stopReferring(to: memory) }
    public func fold(into statistics: inout StreamStatistics) { base.fold(into: &statistics) }
}
