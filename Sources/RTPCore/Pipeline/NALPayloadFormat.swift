/// A NAL-based payload format (RFC 6184, RFC 7798) behind `VideoPayloadFormat`: depacketizer →
/// access-unit assembler → frame gate (repair, keyframes, parameter sets) → `output`.
final class NALPayloadFormat<Depacketizer: NALDepacketization>: VideoPayloadFormat {
    public var output: (FrameRecord, AccessUnit?) throws -> Bool = { _, _ in false }
    public var onNotice: (StreamNotice) -> Void = { _ in }
    public var codec: VideoCodec { Depacketizer.codec }
    public let clockRate: Int
    public private(set) var invalidPayload: [VideoPayloadInvalid: Int] = [:]

    private let assembler: Depacketizer.Assembler
    private let depacketizer: Depacketizer
    private let gate: Depacketizer.Gate
    private let verdicts: FrameVerdicts
    /// Arrival of the packet being depacketized: an access unit it completes carries it.
    private var deliveringArrival: Int64 = 0
    /// Bit n set when NAL unit type n was seen.
    private var nalTypesSeen: UInt64 = 0

    /// `parameters`: what the SDP's fmtp says of the packetization.
    init(ssrc: UInt32, configuration: VideoFormatConfiguration, parameters: Depacketizer.Parameters) {
        clockRate = configuration.clockRate
        assembler = Depacketizer.Assembler(maxAccessUnitBytes: configuration.maxAccessUnitBytes,
                                           maxNALUnits: configuration.maxNALUnitsPerAccessUnit)
        depacketizer = Depacketizer(assembler: assembler, parameters: parameters,
                                    latencyNanoseconds: configuration.latencyNanoseconds)
        verdicts = FrameVerdicts(ssrc: ssrc, configuration: configuration)
        gate = Depacketizer.Gate(verdicts: verdicts)
        // The format owns them all, and they call back once per access unit: no reference counting.
        assembler.onAccessUnit = { [unowned(unsafe) self] in
            try self.gate.admit($0, from: self.assembler, arrival: self.deliveringArrival)
        }
        verdicts.emit = { [unowned(unsafe) self] record, accessUnit in try self.output(record, accessUnit) }
        verdicts.onNotice = { [unowned self] in self.onNotice($0) }
        depacketizer.onNotice = { [unowned self] in self.onNotice($0) }
    }

    public func addParameterSets(_ nalUnits: [[UInt8]]) {
        for nal in nalUnits { nal.withUnsafeBytes(assembler.storeParameterSet) }
    }

    public func provesCodec(given: Bool) -> Bool {
        assembler.spsSeen > 0 || assembler.slicesSeen >= (given ? 1 : 3)
    }

    /// Whether the output waits for, or would be mended by, a keyframe (`FrameVerdicts.wantsKeyframe`).
    public var wantsKeyframe: Bool { verdicts.wantsKeyframe }
    public func outputWithdrew(_ record: FrameRecord) { verdicts.withdraw(record) }

    @inline(__always)
    public func accepts(_ payload: UnsafeRawBufferPointer) -> Bool {
        if let invalid = depacketizer.validate(payload) {
            invalidPayload[invalid, default: 0] += 1
            return false
        }
        nalTypesSeen |= depacketizer.typesCarried(by: payload)
        return true
    }

    @inline(__always)
    public func process(payload: UnsafeRawBufferPointer, headerExtension: UnsafeRawBufferPointer, timestamp: UInt32,
                        marker: Bool, lostBefore: Int, arrival: Int64, borrowing: Bool, sequenceNumber: Int64) throws {
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
        s.codec = codec
        s.nalTypesSeen = nalTypesSeen
        verdicts.fold(into: &s)
        assembler.fold(into: &s)
        depacketizer.fold(into: &s)
    }
}
