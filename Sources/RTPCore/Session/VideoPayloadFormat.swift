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
    /// The output said it took the frame of `record`, and then could not write it after all (held
    /// through a hand-over, the frame limit was reached first): the tally no longer counts it.
    func outputWithdrew(_ record: FrameRecord)
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
    /// The highest spatial layer written (VP9's SID; `--spatial-layer`); nil: every layer.
    public var maxSpatialLayer: Int?
    /// The RFC 8285 ID of the dependency descriptor (AV1's appendix A) on the stream's packets,
    /// from the SDP's extmap or `--dependency-descriptor`; nil: not read.
    public var dependencyDescriptorID: UInt8?

    public init() {}
}

/// Any codec's format behind one concrete type, so that a stream's type does not depend on its
/// codec. The packet path calls the format through closures made where its type is known, so that
/// they are specialized for it: a call through `base` would reach an unspecialized witness, and cost
/// a retain and release, on every packet.
public final class AnyVideoPayloadFormat: PayloadFormat {
    public let base: any VideoPayloadFormat
    /// `base` as an object, unmanaged: `base` keeps it alive, and the calls cost no retain.
    private let object: Unmanaged<AnyObject>
    // Made where the format's type is known, so specialized for it; they capture nothing (the
    // object comes with each call), so a call costs no context of its own.
    private let acceptsPayload: (AnyObject, UnsafeRawBufferPointer) -> Bool
    private let processPayload: (AnyObject, UnsafeRawBufferPointer, UnsafeRawBufferPointer, UInt32, Bool, Int, Int64, Bool, Int64) throws -> Void
    private let processPayloadInOrder: (AnyObject, UnsafeRawBufferPointer, UnsafeRawBufferPointer, UInt32, Bool, Int, Int64, Bool, Int64) throws -> Void
    private let tickFormat: (AnyObject, Int64) throws -> Void

    init<Format: VideoPayloadFormat>(_ format: Format) {
        base = format
        object = Unmanaged.passUnretained(format)
        acceptsPayload = { object, payload in unsafeDowncast(object, to: Format.self).accepts(payload) }
        processPayload = { object, payload, headerExtension, timestamp, marker, lostBefore, arrival, borrowing, sequenceNumber in
            try unsafeDowncast(object, to: Format.self).process(
                payload: payload, headerExtension: headerExtension, timestamp: timestamp, marker: marker, lostBefore: lostBefore, arrival: arrival,
                borrowing: borrowing, sequenceNumber: sequenceNumber)
        }
        processPayloadInOrder = { object, payload, headerExtension, timestamp, marker, lostBefore, arrival, borrowing, sequenceNumber in
            try unsafeDowncast(object, to: Format.self).processInOrder(
                payload: payload, headerExtension: headerExtension, timestamp: timestamp, marker: marker, lostBefore: lostBefore, arrival: arrival,
                borrowing: borrowing, sequenceNumber: sequenceNumber)
        }
        tickFormat = { object, now in try unsafeDowncast(object, to: Format.self).tick(now: now) }
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
    public func accepts(_ payload: UnsafeRawBufferPointer) -> Bool { object._withUnsafeGuaranteedRef { acceptsPayload($0, payload) } }

    @inline(__always)
    public func process(payload: UnsafeRawBufferPointer, headerExtension: UnsafeRawBufferPointer, timestamp: UInt32,
                        marker: Bool, lostBefore: Int, arrival: Int64, borrowing: Bool, sequenceNumber: Int64) throws {
        try object._withUnsafeGuaranteedRef {
            try processPayload($0, payload, headerExtension, timestamp, marker, lostBefore, arrival, borrowing, sequenceNumber)
        }
    }

    @inline(__always)
    public func processInOrder(payload: UnsafeRawBufferPointer, headerExtension: UnsafeRawBufferPointer, timestamp: UInt32,
                               marker: Bool, lostBefore: Int, arrival: Int64, borrowing: Bool, sequenceNumber: Int64) throws {
        try object._withUnsafeGuaranteedRef {
            try processPayloadInOrder($0, payload, headerExtension, timestamp, marker, lostBefore, arrival, borrowing, sequenceNumber)
        }
    }

    @inline(__always)
    public func tick(now: Int64) throws { try object._withUnsafeGuaranteedRef { try tickFormat($0, now) } }

    public func flush() throws { try base.flush() }
    public func restart() { base.restart() }
    public func refers(to memory: UnsafeRawBufferPointer) -> Bool { base.refers(to: memory) }
    public func stopReferring(to memory: UnsafeRawBufferPointer) { base.stopReferring(to: memory) }
    public func fold(into statistics: inout StreamStatistics) { base.fold(into: &statistics) }
}
