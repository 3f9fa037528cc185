/// RFC 6184 behind `PayloadFormat`: depacketizer → access-unit assembler → frame gate (repair,
/// keyframes, parameter sets) → `output`.
public final class H264PayloadFormat: VideoPayloadFormat {
    public let configuration: VideoFormatConfiguration
    /// Receives the verdict on every access unit from the first keyframe on, with its bytes when it
    /// is to be written; returns false when it was not taken (a stream not selected for output).
    public var output: (FrameRecord, AccessUnit?) throws -> Bool = { _, _ in false }
    public var codec: VideoCodec { .h264 }
    public var onNotice: (StreamNotice) -> Void = { _ in }
    public var clockRate: Int { configuration.clockRate }

    private let assembler: AccessUnitAssembler
    private let depacketizer: Depacketizer
    private let gate: FrameGate
    private let verdicts: FrameVerdicts
    /// Arrival of the packet being depacketized: an access unit it completes carries it.
    private var deliveringArrival: Int64 = 0
    public private(set) var invalidPayload: [VideoPayloadInvalid: Int] = [:]
    /// Bit n set when NAL unit type n was seen.
    private var nalTypesSeen: UInt64 = 0

    /// `interleaving`: packetization mode 2 from the SDP, with its sprop-* parameters; nil until
    /// packets say so.
    public init(ssrc: UInt32, configuration: VideoFormatConfiguration, interleaving: DeinterleavingBuffer.Parameters? = nil) {
        self.configuration = configuration
        assembler = AccessUnitAssembler(maxAccessUnitBytes: configuration.maxAccessUnitBytes)
        depacketizer = Depacketizer(assembler: assembler, interleaving: interleaving,
                                    latencyNanoseconds: configuration.latencyNanoseconds)
        verdicts = FrameVerdicts(ssrc: ssrc, configuration: configuration)
        gate = FrameGate(verdicts: verdicts)
        // The format owns both, and they call back once per access unit: no reference counting.
        assembler.onAccessUnit = { [unowned(unsafe) self] in
            try self.gate.admit($0, from: self.assembler, arrival: self.deliveringArrival)
        }
        verdicts.emit = { [unowned(unsafe) self] record, accessUnit in try self.output(record, accessUnit) }
        verdicts.onNotice = { [unowned self] in self.onNotice($0) }
        depacketizer.onNotice = { [unowned self] in self.onNotice($0) }
    }

    /// Parameter sets known before any packet (the SDP's sprop-parameter-sets).
    public func addParameterSets(_ nalUnits: [[UInt8]]) {
        for nal in nalUnits { nal.withUnsafeBytes { _ = assembler.parameterSets.store(nal: $0) } }
    }

    /// Evidence that the stream carries H.264: an SPS that parses, or slices whose headers do.
    public var parsedSPSCount: Int { assembler.spsSeen }
    public var parsedSliceCount: Int { assembler.slicesSeen }

    public func provesCodec(given: Bool) -> Bool {
        parsedSPSCount > 0 || parsedSliceCount >= (given ? 1 : 3)
    }

    /// Whether the output waits for, or would be mended by, a keyframe (`FrameVerdicts.wantsKeyframe`).
    public var wantsKeyframe: Bool { verdicts.wantsKeyframe }

    @inline(__always)
    public func accepts(_ payload: UnsafeRawBufferPointer) -> Bool {
        if let invalid = H264Payload.validate(payload) {
            invalidPayload[invalid, default: 0] += 1
            return false
        }
        nalTypesSeen |= H264Payload.typesCarried(by: payload)
        return true
    }

    @inline(__always)
    public func process(payload: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool, lostBefore: Int,
                        arrival: Int64, borrowing: Bool, sequenceNumber: Int64) throws {
        deliveringArrival = arrival
        try depacketizer.process(payload: payload, timestamp: timestamp, marker: marker, lostBefore: lostBefore,
                                 arrival: arrival, borrowing: borrowing, sequenceNumber: sequenceNumber)
    }

    public func tick(now: Int64) throws { try depacketizer.tick(now: now) }

    public func flush() throws { try depacketizer.flush() }

    /// Waits for parameter sets and a keyframe again.
    public func restart() {
        depacketizer.restart()
        gate.restart()
    }

    public func refers(to memory: UnsafeRawBufferPointer) -> Bool { assembler.refers(to: memory) }

    public func stopReferring(to memory: UnsafeRawBufferPointer) { assembler.stopReferring(to: memory) }

    public func fold(into s: inout StreamStatistics) {
        s.invalidPayload = invalidPayload
        s.codec = .h264
        s.nalTypesSeen = nalTypesSeen
        verdicts.fold(into: &s)
        s.fragmentedUnitsDropped = depacketizer.fragmentedUnitsDropped
        s.strayFragments = depacketizer.strayFragments
        s.repeatedParameterSetsRemoved = assembler.repeatedParameterSetsRemoved
        s.parameterSetChanges = assembler.parameterSetChanges
        s.video = assembler.parameterSets.latestSPS?.parameters
        s.interleaved = depacketizer.isInterleaved
        s.decodingOrderGaps = depacketizer.decodingOrderGaps
        s.lateInterleavedUnits = depacketizer.deinterleaver?.lateUnits ?? 0
        s.notAllowedInInterleavedMode = depacketizer.notAllowedInInterleavedMode
        s.aggregationUnitsOverrun = depacketizer.aggregationUnitsOverrun
        s.mtapPacketsWithPrefixInSize = depacketizer.mtapPacketsWithPrefixInSize
        if let deinterleaver = depacketizer.deinterleaver {
            s.interleavingDepth = (deinterleaver.parameters.interleavingDepth,
                                   max(deinterleaver.parameters.interleavingDepth, deinterleaver.neededDepth))
        }
    }
}
