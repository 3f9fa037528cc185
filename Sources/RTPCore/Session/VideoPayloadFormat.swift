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

/// How every video payload format is configured, whichever the codec.
public struct VideoFormatConfiguration: Sendable {
    public var maxAccessUnitBytes = 32 << 20
    public var maxNALUnitsPerAccessUnit = 16384
    /// After a dropped access unit, also drop until the next keyframe.
    public var waitForKeyframeAfterLoss = false
    public var clockRate = 90000
    /// How long a buffer in decoding order (RFC 6184's interleaved mode, RFC 7798's DONs) waits for
    /// a missing unit; the receiver sets the reorder latency.
    public var latencyNanoseconds: Int64 = 500_000_000

    public init() {}
}

/// Either codec's format behind one concrete type, so that a stream's type does not depend on its
/// codec. The codec is a closed set, so the packet path switches on it and calls the format
/// directly (inlined), rather than through the protocol's witness table three times a packet.
public final class AnyVideoPayloadFormat: PayloadFormat {
    public let base: any VideoPayloadFormat
    // `base` as its own type, one of the two set. Unmanaged, since `base` holds it: a call through
    // it costs no retain and release, as one through `base` or a case of an enum would.
    private let h264: Unmanaged<H264PayloadFormat>?
    private let h265: Unmanaged<H265PayloadFormat>?

    init(_ h264: H264PayloadFormat) {
        base = h264
        self.h264 = Unmanaged.passUnretained(h264)
        h265 = nil
    }

    init(_ h265: H265PayloadFormat) {
        base = h265
        h264 = nil
        self.h265 = Unmanaged.passUnretained(h265)
    }

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
    public func accepts(_ payload: UnsafeRawBufferPointer) -> Bool {
        if let h264 {
            h264._withUnsafeGuaranteedRef { $0.accepts(payload) }
        } else {
            h265!._withUnsafeGuaranteedRef { $0.accepts(payload) }
        }
    }

    @inline(__always)
    public func process(payload: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool, lostBefore: Int,
                        arrival: Int64, borrowing: Bool, sequenceNumber: Int64) throws {
        if let h264 {
            try h264._withUnsafeGuaranteedRef {
                try $0.process(payload: payload, timestamp: timestamp, marker: marker, lostBefore: lostBefore,
                               arrival: arrival, borrowing: borrowing, sequenceNumber: sequenceNumber)
            }
        } else {
            try h265!._withUnsafeGuaranteedRef {
                try $0.process(payload: payload, timestamp: timestamp, marker: marker, lostBefore: lostBefore,
                               arrival: arrival, borrowing: borrowing, sequenceNumber: sequenceNumber)
            }
        }
    }

    @inline(__always)
    public func tick(now: Int64) throws {
        if let h264 {
            try h264._withUnsafeGuaranteedRef { try $0.tick(now: now) }
        } else {
            try h265!._withUnsafeGuaranteedRef { try $0.tick(now: now) }
        }
    }

    public func flush() throws { try base.flush() }
    public func restart() { base.restart() }
    public func refers(to memory: UnsafeRawBufferPointer) -> Bool { base.refers(to: memory) }
    public func stopReferring(to memory: UnsafeRawBufferPointer) { base.stopReferring(to: memory) }
    public func fold(into statistics: inout StreamStatistics) { base.fold(into: &statistics) }
}
