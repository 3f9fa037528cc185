/// One RTP stream's path from packets to access units:
/// structural check → sequence bookkeeping (RFC 3550 A.1) → reorder buffer → depacketizer →
/// access-unit assembler → frame gate (repair, keyframes, parameter sets) → `output`.
public final class StreamReceiver {
    public struct Configuration: Sendable {
        public var reorder = ReorderBuffer.Configuration()
        public var maxAccessUnitBytes = 32 << 20
        /// After a dropped access unit, also drop until the next keyframe.
        public var waitForKeyframeAfterLoss = false
        public var clockRate = 90000
        /// Packetization mode 2 from the SDP, with its sprop-* parameters; nil until packets say so.
        public var interleaving: DeinterleavingBuffer.Parameters?
        /// The caller keeps each packet's memory valid for as long as `refers(to:)` says it is in use
        /// (a capture read into buffers that are not reused until then): slices of packets that
        /// arrive in order are then referenced by the access units, not copied.
        public var borrowsPayloads = false

        public init() {}
    }

    public let configuration: Configuration
    public private(set) var statistics: StreamStatistics
    public let firstArrival: Int64
    public private(set) var lastArrival: Int64
    /// Receives the verdict on every access unit from the first keyframe on, with its bytes when it
    /// is to be written; returns false when it was not taken (a stream not selected for output).
    public var output: (StreamReceiver, FrameRecord, AccessUnit?) throws -> Bool = { _, _, _ in false }
    /// Says what the stream does that is worked around, once each.
    public var onNotice: (StreamReceiver, StreamNotice) -> Void = { _, _ in }

    private var source: RTPSourceState?
    private let reorder: ReorderBuffer
    private let assembler: AccessUnitAssembler
    private let depacketizer: Depacketizer
    private let gate: FrameGate
    private var lastDelivered: Int64?
    private var highestArrived: Int64 = -1
    /// Arrival of the packet being depacketized: an access unit it completes carries it.
    private var deliveringArrival: Int64 = 0

    /// The packet that opened a possible new sequence, held until the next one confirms it.
    private var held: [UInt8] = []
    private var heldHeader: (timestamp: UInt32, marker: Bool)?

    public init(ssrc: UInt32, payloadType: UInt8, arrival: Int64, configuration: Configuration) {
        self.configuration = configuration
        statistics = StreamStatistics(ssrc: ssrc, payloadType: payloadType)
        statistics.clockRate = configuration.clockRate
        firstArrival = arrival
        lastArrival = arrival
        reorder = ReorderBuffer(configuration.reorder)
        assembler = AccessUnitAssembler(maxAccessUnitBytes: configuration.maxAccessUnitBytes)
        depacketizer = Depacketizer(assembler: assembler, interleaving: configuration.interleaving,
                                    latencyNanoseconds: configuration.reorder.latencyNanoseconds)
        var gateConfiguration = FrameGate.Configuration()
        gateConfiguration.waitForKeyframeAfterLoss = configuration.waitForKeyframeAfterLoss
        gateConfiguration.clockRate = configuration.clockRate
        gate = FrameGate(ssrc: ssrc, configuration: gateConfiguration)
        // The stream owns both, and they call back once per access unit: no reference counting.
        assembler.onAccessUnit = { [unowned(unsafe) self] in
            try self.gate.admit($0, from: self.assembler, arrival: self.deliveringArrival)
        }
        gate.emit = { [unowned(unsafe) self] record, accessUnit in try self.output(self, record, accessUnit) }
        gate.onNotice = { [unowned self] in self.notice($0) }
        depacketizer.onNotice = { [unowned self] in self.notice($0) }
    }

    /// A sender report from this stream's source (RFC 3550 §6.4.1): NTP time beside RTP time.
    public func noteSenderReport(_ report: RTCPPacket.SenderReport, arrival: Int64) {
        statistics.senderReports += 1
        statistics.lastSenderReport = report
        statistics.lastSenderReportArrival = arrival
        if statistics.firstSenderReportArrival == nil { statistics.firstSenderReportArrival = arrival }
    }

    public func noteCNAME(_ cname: String) {
        if statistics.cname == nil { statistics.cname = String(cname.prefix(255)) }
    }

    public func noteGoodbye() { statistics.goodbye = true }

    private func notice(_ notice: StreamNotice) {
        guard statistics.notices.count < 8 else { return }
        statistics.notices.append(notice)
        onNotice(self, notice)
    }

    public var ssrc: UInt32 { statistics.ssrc }
    public var payloadType: UInt8 { statistics.payloadType }

    public func setEndpoints(source: Endpoint?, destination: Endpoint?) {
        statistics.source = source
        statistics.destination = destination
    }

    /// Parameter sets known before any packet (the SDP's sprop-parameter-sets).
    public func addParameterSets(_ nalUnits: [[UInt8]]) {
        for nal in nalUnits { nal.withUnsafeBytes { _ = assembler.parameterSets.store(nal: $0) } }
    }

    /// Whether an access unit in progress refers to bytes in `memory`.
    public func refers(to memory: UnsafeRawBufferPointer) -> Bool { assembler.refers(to: memory) }

    /// Copies what an access unit in progress holds of `memory`, which may then be reused.
    public func stopReferring(to memory: UnsafeRawBufferPointer) { assembler.stopReferring(to: memory) }

    /// Evidence that this stream carries H.264: an SPS that parses, or slices whose headers do.
    public var parsedSPSCount: Int { assembler.spsSeen }
    public var parsedSliceCount: Int { assembler.slicesSeen }

    // MARK: Packets

    /// `payload` is the RTP payload of `packet`, a view into the caller's buffer.
    public func receive(_ packet: RTPPacket, payload: UnsafeRawBufferPointer, arrival: Int64) throws {
        statistics.packets += 1
        statistics.bytes += payload.count
        lastArrival = arrival
        if let invalid = H264Payload.validate(payload) {
            statistics.invalidPayload[invalid, default: 0] += 1
            return
        }
        noteNALTypes(payload)

        let extended: Int64
        if source == nil {
            source = RTPSourceState(firstSequenceNumber: packet.sequenceNumber)
            extended = source!.extendedHighestSequenceNumber
        } else {
            switch source!.update(packet.sequenceNumber) {
            case .accepted(let e):
                extended = e
            case .jumped:
                held.removeAll(keepingCapacity: true)
                held.append(contentsOf: payload)
                heldHeader = (packet.timestamp, packet.marker)
                return
            case .restarted(let e):
                try restart()
                if let header = heldHeader {
                    heldHeader = nil
                    try held.withUnsafeBytes { heldPayload in
                        try arrive(extended: e - 1, timestamp: header.timestamp, marker: header.marker,
                                   payload: heldPayload, arrival: arrival, borrowing: false)
                    }
                }
                extended = e
            }
        }
        // A.8 jitter, with arrival on the RTP clock relative to the first packet.
        // Capture times can be anything: wrapping arithmetic, microsecond steps.
        let arrivalTicks = ((arrival &- firstArrival) / 1000) &* Int64(configuration.clockRate) / 1_000_000
        source!.updateJitter(arrival: arrivalTicks, timestamp: packet.timestamp)
        try arrive(extended: extended, timestamp: packet.timestamp, marker: packet.marker,
                   payload: payload, arrival: arrival, borrowing: configuration.borrowsPayloads)
    }

    /// `borrowing`: `payload` outlives the stream, so the access units may reference it.
    private func arrive(extended: Int64, timestamp: UInt32, marker: Bool,
                        payload: UnsafeRawBufferPointer, arrival: Int64, borrowing: Bool) throws {
        if extended < highestArrived { statistics.reordered += 1 } else { highestArrived = extended }
        while true {
            switch reorder.arrive(extended: extended, timestamp: timestamp, marker: marker,
                                  payload: payload, arrival: arrival) {
            case .deliverNow:
                reorder.markDelivered(extended)
                try deliver(extended: extended, timestamp: timestamp, marker: marker, payload: payload,
                            arrival: arrival, borrowing: borrowing)
            case .buffered:
                break
            case .duplicate:
                statistics.duplicates += 1
                if extended < highestArrived { statistics.reordered -= 1 }
            case .late:
                statistics.late += 1
                statistics.lost -= 1
            case .tooLarge:
                statistics.tooLarge += 1
            case .needsRoom(let limit):
                while reorder.next.map({ $0 < limit }) ?? false, let p = reorder.pop(now: arrival, through: limit) {
                    try deliver(p)
                }
                continue
            }
            break
        }
        try drain(now: arrival)
    }

    /// Releases what the reorder buffer may release at `now` on the packet clock.
    public func drain(now: Int64, flushing: Bool = false) throws {
        while let p = reorder.pop(now: now, flushing: flushing) { try deliver(p) }
        if !flushing { try depacketizer.tick(now: now) }
    }

    private func deliver(_ p: ReorderBuffer.Released) throws {
        // The reorder buffer's copy is reused once released: never borrowed.
        try deliver(extended: p.extendedSequenceNumber, timestamp: p.timestamp, marker: p.marker, payload: p.payload,
                    arrival: p.arrival, borrowing: false)
    }

    private func deliver(extended: Int64, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer,
                         arrival: Int64, borrowing: Bool) throws {
        let lostBefore = lastDelivered.map { Int(extended - $0 - 1) } ?? 0
        lastDelivered = extended
        statistics.lost += lostBefore
        deliveringArrival = arrival
        try depacketizer.process(payload: payload, timestamp: timestamp, marker: marker, lostBefore: lostBefore,
                                 arrival: arrival, borrowing: borrowing, sequenceNumber: extended)
    }

    private func noteNALTypes(_ payload: UnsafeRawBufferPointer) {
        statistics.nalTypesSeen |= 1 << nalUnitType(payload[0])
        H264Payload.forEachNALUnit(payload) { type, _ in statistics.nalTypesSeen |= 1 << type }
    }

    // MARK: Restart and end

    /// The source restarted: finish what was in flight, then wait for parameter sets and a keyframe.
    private func restart() throws {
        try drain(now: lastArrival, flushing: true)
        try depacketizer.flush()
        reorder.reset()
        depacketizer.restart()
        lastDelivered = nil
        highestArrived = -1
        gate.restart()
        statistics.restarts += 1
    }

    /// Ends the stream: releases every waiting packet and the access unit in progress.
    public func finish() throws {
        try drain(now: lastArrival, flushing: true)
        try depacketizer.flush()
        statistics = snapshot()
    }

    /// The statistics with the counters kept by the stages folded in.
    public func snapshot() -> StreamStatistics {
        var s = statistics
        s.frames = gate.tally
        s.droppedTimestamps = gate.droppedTimestamps
        s.retimedFrames = gate.clock.retimed
        s.fragmentedUnitsDropped = depacketizer.fragmentedUnitsDropped
        s.strayFragments = depacketizer.strayFragments
        s.repeatedParameterSetsRemoved = assembler.repeatedParameterSetsRemoved
        s.parameterSetChanges = assembler.parameterSetChanges
        s.jitter = source?.jitter ?? 0
        s.sps = assembler.parameterSets.latestSPS
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
        return s
    }
}
