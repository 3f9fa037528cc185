/// A NAL payload format's depacketizer (RFC 6184's `Depacketizer`, RFC 7798's `H265Depacketizer`)
/// with the codec's assembler and frame gate behind it: the parts `NALPayloadFormat` puts together.
/// Another NAL-based payload format is a depacketizer, an assembler and a gate that conform.
protocol NALDepacketization: AnyObject {
    associatedtype Assembler: NALCodecAssembler
    associatedtype Gate: NALFrameGate where Gate.Assembler == Assembler
    /// What the SDP's fmtp says of how the stream is packetized (RFC 6184's interleaving, RFC 7798's
    /// decoding order numbers).
    associatedtype Parameters

    static var codec: VideoCodec { get }
    init(assembler: Assembler, parameters: Parameters, latencyNanoseconds: Int64)
    var onNotice: (StreamNotice) -> Void { get set }

    /// Why the payload cannot be read, or nil when it can.
    func validate(_ payload: UnsafeRawBufferPointer) -> VideoPayloadInvalid?
    /// The NAL unit types a valid payload carries, bit n for type n.
    func typesCarried(by payload: UnsafeRawBufferPointer) -> UInt64
    /// `lostBefore` counts the packets missing between this one and the one processed before it;
    /// `arrival` is on the packet clock; `borrowing`: `payload` stays valid until the access units it
    /// goes into are handed on. `sequenceNumber` is the packet's, extended.
    func process(payload: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool, lostBefore: Int, arrival: Int64,
                 borrowing: Bool, sequenceNumber: Int64) throws
    /// Lets a buffer in decoding order give up waiting (time passes with no packet).
    func tick(now: Int64) throws
    /// Ends the stream: what is incomplete is handed on as such.
    func flush() throws
    func restart()
    func fold(into statistics: inout StreamStatistics)
}

/// What `NALPayloadFormat` asks of a codec's assembler beyond the shared steps.
protocol NALCodecAssembler: NALAccessUnitAssembly {
    init(maxAccessUnitBytes: Int, maxNALUnits: Int)
    var onAccessUnit: (Assembled) throws -> Void { get set }
    /// Stores a parameter set known before any packet (the SDP's sprop-*), NAL header first.
    func storeParameterSet(_ nal: UnsafeRawBufferPointer)
    /// Parameter sets that parsed, and slices whose headers did: evidence of the codec.
    var spsSeen: Int { get }
    var slicesSeen: Int { get }
    func fold(into statistics: inout StreamStatistics)
}

/// A codec's frame gate (`FrameGate`, `HEVCFrameGate`): the verdict on each access unit.
protocol NALFrameGate: AnyObject {
    associatedtype Assembler: NALAccessUnitAssembly
    init(verdicts: FrameVerdicts)
    /// `arrival`: when the packet that completed `au` arrived, on the packet clock. `assembler` is the
    /// one handing `au` on, for its parameter sets.
    func admit(_ au: Assembler.Assembled, from assembler: Assembler, arrival: Int64) throws
    /// The source restarted: output waits for a keyframe again.
    func restart()
}
