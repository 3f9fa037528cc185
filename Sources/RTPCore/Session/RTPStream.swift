/// What every RTP stream does before its payload format (RFC 3550): the structural check, sequence
/// bookkeeping (A.1), the reorder buffer, loss (A.3), jitter (A.8) and the sender's RTCP.
public struct RTPStreamConfiguration: Sendable {
    public var reorder = ReorderBuffer.Configuration()
    /// The caller keeps each packet's memory valid for as long as `refers(to:)` says it is in use
    /// (a capture read into buffers that are not reused until then): payloads of packets that
    /// arrive in order are then referenced by what the format gives, not copied.
    public var borrowsPayloads = false
    /// Follow what is missing, for NACKs (RFC 4585), up to `maxMissing` sequence numbers at once.
    public var tracksMissing = false
    public var maxMissing = 256

    public init() {}
}

/// One SSRC's stream: packets in, in sequence order with their losses, to its `Format`.
public final class RTPStream<Format: PayloadFormat> {
    public let configuration: RTPStreamConfiguration
    public let format: Format
    public private(set) var statistics: StreamStatistics
    public let firstArrival: Int64
    public private(set) var lastArrival: Int64
    /// Says what the stream does that is worked around, once each.
    public var onNotice: (RTPStream, StreamNotice) -> Void = { _, _ in }

    private var source: RTPSourceState?
    // For reception reports (A.3): the first sequence number, extended, packets counted since, and
    // what the last report said.
    private var baseExtended: Int64 = 0
    private var receivedPackets: Int64 = 0
    private var reception = ReceptionInterval()
    /// Generic NACK (RFC 4585): what is missing since a gap was seen, when it was last asked for
    /// and how often (with `configuration.tracksMissing`).
    private var missing: [Int64: (seen: Int64, asked: Int64, tries: Int)] = [:]
    /// Sequence numbers that came in retransmissions and filled a gap, until their frame is accounted.
    private var recoveredSequenceNumbers: [UInt16] = []
    private let reorder: ReorderBuffer
    private var lastDelivered: Int64?
    /// Packets lost before a padding-only packet, told to the format with the next packet of media.
    private var lossNotYetTold = 0
    private var highestArrived: Int64 = -1

    /// The packet that opened a possible new sequence, held until the next one confirms it.
    private var held: [UInt8] = []
    private var heldHeader: (timestamp: UInt32, marker: Bool, payloadCount: Int)?

    public init(ssrc: UInt32, payloadType: UInt8, arrival: Int64, format: Format, configuration: RTPStreamConfiguration) {
        self.configuration = configuration
        self.format = format
        statistics = StreamStatistics(ssrc: ssrc, payloadType: payloadType)
        statistics.clockRate = format.clockRate
        statistics.firstArrival = arrival
        firstArrival = arrival
        lastArrival = arrival
        reorder = ReorderBuffer(configuration.reorder)
        format.onNotice = { [unowned self] in self.notice($0) }
    }

    public var ssrc: UInt32 { statistics.ssrc }

    /// Time, not only packets, moves the stream on now: packets wait in the reorder buffer for a
    /// gap to fill or be given up on, or what is missing may be asked for again.
    public var isWaiting: Bool { reorder.count > 0 || !missing.isEmpty }
    public var payloadType: UInt8 { statistics.payloadType }

    public func setEndpoints(source: Endpoint?, destination: Endpoint?) {
        statistics.source = source
        statistics.destination = destination
    }

    /// A sender report from this stream's source (RFC 3550 §6.4.1): NTP time beside RTP time, and
    /// what the session clock made of it: a report it rejected is said once a reason, a step of the
    /// sender's clock each time.
    public func noteSenderReport(_ report: RTCPPacket.SenderReport, arrival: Int64, outcome: MediaClock.ReportOutcome = .accepted) {
        statistics.senderReports += 1
        statistics.lastSenderReport = report
        statistics.lastSenderReportArrival = arrival
        if statistics.firstSenderReportArrival == nil { statistics.firstSenderReportArrival = arrival }
        switch outcome {
        case .rejected(let why) where !statistics.notices.contains(.senderReportRejected(why)):
            notice(.senderReportRejected(why))
        case .stepped(let step):
            notice(.senderClockStepped(nanoseconds: step))
        default:
            break
        }
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

    /// Whether what the format has in progress refers to bytes in `memory`.
    public func refers(to memory: UnsafeRawBufferPointer) -> Bool { format.refers(to: memory) }

    /// Copies what the format has in progress of `memory`, which may then be reused.
    public func stopReferring(to memory: UnsafeRawBufferPointer) { format.stopReferring(to: memory) }

    // MARK: Packets

    /// `payload` is the RTP payload of `packet`, a view into the caller's buffer; `headerExtension`,
    /// as much, the data of the header extension element its format reads (the dependency
    /// descriptor), empty when none.
    /// `retransmitted`: it came in an RTX packet (RFC 4588), unwrapped: counted as recovered,
    /// duplicate or late, and kept out of the jitter, whose arrival it would distort.
    public func receive(_ packet: RTPPacket, payload: UnsafeRawBufferPointer, headerExtension: UnsafeRawBufferPointer = .empty,
                        arrival: Int64, retransmitted: Bool = false) throws {
        if retransmitted {
            let (duplicates, late) = (statistics.duplicates, statistics.late)
            // Noted before it goes in, since the frame it completes is accounted on the way.
            let noted = recoveredSequenceNumbers.count < configuration.maxMissing
            if noted { recoveredSequenceNumbers.append(packet.sequenceNumber) }
            try receive(packet, payload: payload, headerExtension: headerExtension, arrival: arrival, jitter: false)
            if statistics.duplicates > duplicates || statistics.late > late {
                if statistics.duplicates > duplicates { statistics.retransmissions.duplicate += 1 } else { statistics.retransmissions.late += 1 }
                if noted, let i = recoveredSequenceNumbers.lastIndex(of: packet.sequenceNumber) { recoveredSequenceNumbers.remove(at: i) }
            } else {
                statistics.retransmissions.recovered += 1
            }
            return
        }
        try receive(packet, payload: payload, headerExtension: headerExtension, arrival: arrival, jitter: true)
    }

    /// Whether the packet numbered `sequenceNumber` came (delivered lately, or waiting to be): a
    /// redundant copy of it (RFC 2198) is then not worth taking.
    public func hasArrived(_ sequenceNumber: UInt16) -> Bool {
        guard let source else { return false }
        let highest = source.extendedHighestSequenceNumber
        // bounded: a widening of a 16-bit distance
        return reorder.holds(highest + Int64(sequenceDistance(sequenceNumber, UInt16(truncatingIfNeeded: highest))))
    }

    /// A packet of another payload type on this SSRC (RFC 3550: the sequence space is the SSRC's):
    /// comfort noise or a telephone event beside a call's audio. The format takes what it knows
    /// of it; the sequence counts it as a packet with no media, out of the jitter (an event's
    /// packets all carry its start's timestamp).
    /// One that repeats the highest sequence number so far (Geovision's cameras send PT 50 after a
    /// packet with its number) takes no place in the sequence, where it would count as a duplicate.
    public func receive(otherPayloadType packet: RTPPacket, payload: UnsafeRawBufferPointer, arrival: Int64) throws {
        statistics.otherPayloadType += 1
        try format.otherPayloadType(packet, payload: payload)
        if let source, packet.sequenceNumber == UInt16(truncatingIfNeeded: source.extendedHighestSequenceNumber) {
            statistics.packets += 1
            statistics.bytes += payload.count
            return
        }
        try receive(packet, payload: payload, headerExtension: .empty, arrival: arrival, jitter: false, media: false)
    }

    @inline(__always)
    private func receive(_ packet: RTPPacket, payload whole: UnsafeRawBufferPointer, headerExtension: UnsafeRawBufferPointer,
                         arrival: Int64, jitter: Bool, media: Bool = true) throws {
        statistics.packets += 1
        statistics.bytes += whole.count
        lastArrival = arrival
        // Padding alone (a bandwidth probe) is a packet of the sequence with no media in it.
        let paddingOnly = whole.isEmpty && packet.padding
        if paddingOnly { statistics.paddingOnly += 1 }
        guard paddingOnly || !media || format.accepts(whole) else { return }
        let payload = media ? whole : .empty

        let extended: Int64
        if source == nil {
            source = RTPSourceState(firstSequenceNumber: packet.sequenceNumber)
            extended = source!.extendedHighestSequenceNumber
            baseExtended = extended
        } else {
            switch source!.update(packet.sequenceNumber) {
            case .accepted(let e):
                extended = e
            case .jumped:
                held.removeAll(keepingCapacity: true)
                held.append(contentsOf: payload)
                held.append(contentsOf: headerExtension)
                heldHeader = (packet.timestamp, packet.marker, payload.count)
                return
            case .restarted(let e):
                try restart()
                if let header = heldHeader {
                    heldHeader = nil
                    try held.withUnsafeBytes { heldPacket in
                        try arrive(extended: e - 1, timestamp: header.timestamp, marker: header.marker,
                                   payload: heldPacket.view(0..<header.payloadCount),
                                   headerExtension: heldPacket.view(header.payloadCount..<heldPacket.count),
                                   arrival: arrival, borrowing: false)
                    }
                }
                extended = e
            }
        }
        receivedPackets += 1
        // A.8 jitter, with arrival on the RTP clock relative to the first packet.
        // Capture times can be anything: wrapping arithmetic, microsecond steps.
        if jitter {
            let arrivalTicks = ((arrival &- firstArrival) / 1000) &* Int64(statistics.clockRate) / 1_000_000
            source!.updateJitter(arrival: arrivalTicks, timestamp: packet.timestamp)
        }
        try arrive(extended: extended, timestamp: packet.timestamp, marker: packet.marker,
                   payload: payload, headerExtension: headerExtension, arrival: arrival, borrowing: configuration.borrowsPayloads)
    }

    /// `borrowing`: `payload` outlives the stream, so what the format gives may reference it.
    @inline(__always)
    private func arrive(extended: Int64, timestamp: UInt32, marker: Bool,
                        payload: UnsafeRawBufferPointer, headerExtension: UnsafeRawBufferPointer, arrival: Int64,
                        borrowing: Bool) throws {
        if configuration.tracksMissing { noteMissing(extended, arrival: arrival) }
        if extended < highestArrived { statistics.reordered += 1 } else { highestArrived = extended }
        if reorder.deliversInOrder(extended) {
            // Nothing waits in the reorder buffer: only the format may have something due.
            try deliver(extended: extended, timestamp: timestamp, marker: marker, payload: payload,
                        headerExtension: headerExtension, arrival: arrival, borrowing: borrowing, ticking: true)
            return
        }
        while true {
            switch reorder.arrive(extended: extended, timestamp: timestamp, marker: marker,
                                  payload: payload, headerExtension: headerExtension, arrival: arrival) {
            case .deliverNow:
                reorder.markDelivered(extended)
                try deliver(extended: extended, timestamp: timestamp, marker: marker, payload: payload,
                            headerExtension: headerExtension, arrival: arrival, borrowing: borrowing)
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
        while reorder.count > 0, let p = reorder.pop(now: now, flushing: flushing) { try deliver(p) }
        if !flushing { try format.tick(now: now) }
    }

    private func deliver(_ p: ReorderBuffer.Released) throws {
        // The reorder buffer's copy is reused once released: never borrowed.
        try deliver(extended: p.extendedSequenceNumber, timestamp: p.timestamp, marker: p.marker, payload: p.payload,
                    headerExtension: p.headerExtension, arrival: p.arrival, borrowing: false)
    }

    /// `ticking`: then lets the format release what is due at `arrival` (`tick`).
    @inline(__always)
    private func deliver(extended: Int64, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer,
                         headerExtension: UnsafeRawBufferPointer, arrival: Int64, borrowing: Bool, ticking: Bool = false) throws {
        let lostBefore = lastDelivered.map { Int(extended - $0 - 1) } ?? 0
        lastDelivered = extended
        statistics.lost += lostBefore
        guard !payload.isEmpty else {
            lossNotYetTold += lostBefore
            if ticking { try format.tick(now: arrival) }
            return
        }
        if ticking {
            try format.processInOrder(payload: payload, headerExtension: headerExtension, timestamp: timestamp, marker: marker,
                                      lostBefore: lostBefore + lossNotYetTold, arrival: arrival, borrowing: borrowing,
                                      sequenceNumber: extended)
        } else {
            try format.process(payload: payload, headerExtension: headerExtension, timestamp: timestamp, marker: marker,
                               lostBefore: lostBefore + lossNotYetTold, arrival: arrival, borrowing: borrowing,
                               sequenceNumber: extended)
        }
        lossNotYetTold = 0
    }

    // MARK: Restart and end

    /// The source restarted: finish what was in flight, then start the format over.
    private func restart() throws {
        try drain(now: lastArrival, flushing: true)
        try format.flush()
        reorder.reset()
        format.restart()
        lastDelivered = nil
        lossNotYetTold = 0
        highestArrived = -1
        statistics.restarts += 1
    }

    /// Ends the stream: releases every waiting packet and what the format has in progress.
    public func finish() throws {
        try drain(now: lastArrival, flushing: true)
        try format.flush()
        statistics = snapshot()
    }

    private func noteMissing(_ extended: Int64, arrival: Int64) {
        if !missing.isEmpty { missing[extended] = nil }
        guard highestArrived >= 0, extended > highestArrived + 1 else { return }
        for gap in highestArrived + 1 ..< extended where missing.count < configuration.maxMissing {
            missing[gap] = (arrival, Int64.min, 0)
        }
    }

    /// The sequence numbers to ask for again now: missing, not asked for within `interval`, asked
    /// fewer than `maxTries` times, and still able to arrive before the reorder buffer gives up on
    /// them (`latency` after they were found missing). What is past that is forgotten.
    public func retransmissionRequests(now: Int64, interval: Int64, maxTries: Int, latency: Int64) -> [UInt16] {
        guard !missing.isEmpty else { return [] }
        var due: [UInt16] = []
        for (seq, entry) in missing {
            if entry.tries >= maxTries || now - entry.seen >= latency || seq <= (lastDelivered ?? -1) {
                missing[seq] = nil
            } else if entry.asked == Int64.min || now - entry.asked >= interval {
                missing[seq] = (entry.seen, now, entry.tries + 1)
                due.append(UInt16(truncatingIfNeeded: seq))
            }
        }
        statistics.retransmissions.requested += due.count
        return due
    }

    /// How many packets of the frame that ran from sequence number `first` to `last` came in
    /// retransmissions; what precedes `last` is forgotten, since frames are accounted in order.
    public func takeRetransmitted(first: UInt16, last: UInt16) -> Int {
        guard !recoveredSequenceNumbers.isEmpty else { return 0 }
        let span = last &- first
        let count = recoveredSequenceNumbers.count { $0 &- first <= span }
        recoveredSequenceNumbers.removeAll { Int16(bitPattern: $0 &- last) <= 0 }
        if count > 0 { statistics.retransmissions.framesRepaired += 1 }
        return count
    }

    /// The report block a receiver sends of this stream (RFC 3550 §6.4.1), `now` on the arrival
    /// clock; each call starts a new interval for the fraction lost. Nil before a packet counted.
    public func receptionReport(now: Int64) -> ReceptionReport? {
        guard let source else { return nil }
        let lastSR = statistics.lastSenderReport.map { ($0.ntpTimestamp, statistics.lastSenderReportArrival ?? now) }
        return reception.report(ssrc: ssrc, baseExtended: baseExtended, highestExtended: source.extendedHighestSequenceNumber,
                                received: receivedPackets, jitter: source.jitter, lastSR: lastSR, now: now)
    }

    /// What a timeline samples as each frame is accounted for: the interarrival jitter so far, in
    /// milliseconds, and the packets lost so far.
    public var progress: (jitterMilliseconds: Double, lost: Int) {
        ((source?.jitter ?? 0) * 1000 / Double(max(1, statistics.clockRate)), statistics.lost)
    }

    /// The statistics with the counters kept by the format folded in.
    public func snapshot() -> StreamStatistics {
        var s = statistics
        s.jitter = source?.jitter ?? 0
        format.fold(into: &s)
        return s
    }
}

/// A video stream, of either codec.
public typealias VideoStream = RTPStream<AnyVideoPayloadFormat>
/// An audio stream, of any of the audio payload formats.
public typealias AudioStream = RTPStream<AudioPayloadFormat>

/// What RTCP from a stream's sender updates.
protocol RTCPReceiving: AnyObject {
    func noteSenderReport(_ report: RTCPPacket.SenderReport, arrival: Int64, outcome: MediaClock.ReportOutcome)
    func noteCNAME(_ cname: String)
    func noteGoodbye()
}

extension RTPStream: RTCPReceiving {}
