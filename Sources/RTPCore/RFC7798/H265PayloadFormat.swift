/// RFC 7798 behind `VideoPayloadFormat`: depacketizer → access-unit assembler → frame gate (repair,
/// IRAP gate, parameter sets) → `output`.
public final class H265PayloadFormat: VideoPayloadFormat {
    public var output: (FrameRecord, AccessUnit?) throws -> Bool = { _, _ in false }
    public var onNotice: (StreamNotice) -> Void = { _ in }
    public var codec: VideoCodec { .h265 }
    public let clockRate: Int
    public private(set) var invalidPayload: [VideoPayloadInvalid: Int] = [:]

    private let assembler: HEVCAccessUnitAssembler
    private let depacketizer: H265Depacketizer
    private let gate: HEVCFrameGate
    private let verdicts: FrameVerdicts
    private let decodingOrderNumbers: Bool
    private var deliveringArrival: Int64 = 0
    /// Bit n set when NAL unit type n was seen (types below 64).
    private var nalTypesSeen: UInt64 = 0

    /// `parameters`: the SDP's RFC 7798 fmtp.
    public init(ssrc: UInt32, configuration: VideoFormatConfiguration, parameters: H265FormatParameters) {
        clockRate = configuration.clockRate
        decodingOrderNumbers = parameters.usesDecodingOrderNumbers
        assembler = HEVCAccessUnitAssembler(maxAccessUnitBytes: configuration.maxAccessUnitBytes)
        depacketizer = H265Depacketizer(assembler: assembler, decodingOrder: parameters.decodingOrder,
                                        latencyNanoseconds: configuration.latencyNanoseconds)
        verdicts = FrameVerdicts(ssrc: ssrc, configuration: configuration)
        gate = HEVCFrameGate(verdicts: verdicts)
        // The format owns all three, and they call back once per access unit: no reference counting.
        assembler.onAccessUnit = { [unowned(unsafe) self] in
            try self.gate.admit($0, from: self.assembler, arrival: self.deliveringArrival)
        }
        verdicts.emit = { [unowned(unsafe) self] record, accessUnit in try self.output(record, accessUnit) }
        verdicts.onNotice = { [unowned self] in self.onNotice($0) }
    }

    public func addParameterSets(_ nalUnits: [[UInt8]]) {
        for nal in nalUnits { nal.withUnsafeBytes { _ = assembler.parameterSets.store(nal: $0) } }
    }

    public func provesCodec(given: Bool) -> Bool {
        assembler.spsSeen > 0 || assembler.slicesSeen >= (given ? 1 : 3)
    }

    public var wantsKeyframe: Bool { verdicts.wantsKeyframe }

    public func accepts(_ payload: UnsafeRawBufferPointer) -> Bool {
        if let invalid = H265Payload.validate(payload, decodingOrderNumbers: decodingOrderNumbers) {
            invalidPayload[invalid, default: 0] += 1
            return false
        }
        H265Payload.forEachNALUnit(payload, decodingOrderNumbers: decodingOrderNumbers) { nalTypesSeen |= 1 << $0.type }
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

    public func restart() {
        depacketizer.restart()
        gate.restart()
    }

    public func refers(to memory: UnsafeRawBufferPointer) -> Bool { assembler.refers(to: memory) }
    public func stopReferring(to memory: UnsafeRawBufferPointer) { assembler.stopReferring(to: memory) }

    public func fold(into s: inout StreamStatistics) {
        s.invalidPayload = invalidPayload
        s.codec = .h265
        s.nalTypesSeen = nalTypesSeen
        verdicts.fold(into: &s)
        s.fragmentedUnitsDropped = depacketizer.fragmentedUnitsDropped
        s.strayFragments = depacketizer.strayFragments
        s.parameterSetChanges = assembler.parameterSetChanges
        s.video = assembler.parameterSets.latestSPS?.parameters
        s.interleaved = depacketizer.usesDecodingOrderNumbers
        s.decodingOrderGaps = depacketizer.decodingOrderGaps
        s.lateInterleavedUnits = depacketizer.decodingOrderBuffer?.lateUnits ?? 0
        s.aggregationUnitsOverrun = depacketizer.aggregationUnitsOverrun
        s.paciPackets = depacketizer.paciPackets
        s.reservedUnitsSkipped = depacketizer.reservedUnitsSkipped
    }
}
