/// Turns RTP payloads into NAL units for the assembler, in every packetization mode of RFC 6184:
/// single NAL units (§5.6), STAP-A and STAP-B (§5.7.1), MTAP16 and MTAP24 (§5.7.2), FU-A and FU-B (§5.8).
///
/// Payloads arrive in sequence order, already checked by `H264Payload.validate`. Fragmentation is a
/// strict state machine: a unit needs its start fragment and every fragment up to its end, with no
/// sequence gap, or the whole unit is dropped.
///
/// In the interleaved mode (packetization-mode 2, from the SDP or from the first STAP-B, MTAP or FU-B),
/// NAL units carry decoding order numbers and go through a `DeinterleavingBuffer` before the
/// assembler; a gap in the numbers marks the access units around it as damaged. Single NAL unit
/// packets and STAP-A are not allowed there (§6.4): they are counted and dropped.
///
/// An aggregation unit that runs past its packet is lost alone: the units before it are kept.
/// MTAP unit sizes are read as §5.7.2 says unless a packet fits, to the last byte, only the other
/// way (sizes that count DOND and the TS offset too); the stream is then read that way.
public final class Depacketizer {
    public let assembler: AccessUnitAssembler
    public private(set) var deinterleaver: DeinterleavingBuffer?
    private let interleavingParameters: DeinterleavingBuffer.Parameters
    private let latencyNanoseconds: Int64

    private var fragmentation = NALFragmentation<AccessUnitAssembler>()

    public private(set) var notAllowedInInterleavedMode = 0
    public private(set) var decodingOrderGaps = 0
    /// Aggregation units that ran past their packet, lost.
    public private(set) var aggregationUnitsOverrun = 0
    /// MTAP packets read with sizes that count DOND and the TS offset.
    public private(set) var mtapPacketsWithPrefixInSize = 0
    /// The stream's MTAP size reading, once a packet showed it.
    public private(set) var mtapSizeCountsPrefix = false
    /// Units that held Annex-B start codes, split (`addNAL`).
    public private(set) var unitsWithStartCodes = 0
    /// Said once each, when first seen.
    public var onNotice: (StreamNotice) -> Void = { _ in }
    private var depthGrowthNoticed = false

    /// `interleaving` non-nil starts in the interleaved mode (the SDP said packetization-mode=2).
    public init(assembler: AccessUnitAssembler, interleaving: DeinterleavingBuffer.Parameters? = nil,
                latencyNanoseconds: Int64 = 500_000_000) {
        self.assembler = assembler
                interleavingParameters = interleaving ?? DeinterleavingBuffer.Parameters()
        self.latencyNanoseconds = latencyNanoseconds
        if interleaving != nil { deinterleaver = makeDeinterleaver() }
    }

    /// Output starts at a keyframe, so the buffer's start may wait for one.
    private func makeDeinterleaver() -> DeinterleavingBuffer {
        DeinterleavingBuffer(parameters: interleavingParameters, latencyNanoseconds: latencyNanoseconds, startsAtKeyframe: true)
    }

    public var isInterleaved: Bool { deinterleaver != nil }

    /// `lostBefore` counts the packets missing between this one and the one processed before it;
    /// `arrival` is on the packet clock; `borrowing`: `payload` stays valid until the access units it
    /// goes into are handed on, so they may reference it. `sequenceNumber` is the packet's, extended.
    @inline(__always)
    public func process(payload: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool, lostBefore: Int,
                        arrival: Int64 = 0, borrowing: Bool = false, sequenceNumber: Int64 = 0) throws {
        // Most packets of a video stream: an FU-A that goes on with the unit in progress, nothing
        // lost before it. Decided inline; everything else takes the general path.
        if lostBefore == 0, deinterleaver == nil, fragmentation.continues(at: timestamp), payload.count >= 2,
           payload[0] & 0x1F == H264Payload.fuA, payload[1] & 0x80 == 0 {
            assembler.packet = sequenceNumber
            continueFragment(payload, borrowing: borrowing)
            try assembler.endOfPacket(marker: marker)
            return
        }
        try processAny(payload: payload, timestamp: timestamp, marker: marker, lostBefore: lostBefore, arrival: arrival,
                       borrowing: borrowing, sequenceNumber: sequenceNumber)
    }

    private func processAny(payload: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool, lostBefore: Int,
                            arrival: Int64, borrowing: Bool, sequenceNumber: Int64) throws {
        let type = nalUnitType(payload[0])
        assembler.packet = sequenceNumber
        if deinterleaver == nil && H264Payload.isInterleavedType(type) {
            // The SDP said otherwise, or nothing: the packets decide.
            deinterleaver = makeDeinterleaver()
        }
        if let deinterleaver {
            try processInterleaved(payload, type: type, timestamp: timestamp, lostBefore: lostBefore, arrival: arrival,
                                   sequenceNumber: sequenceNumber)
            try deinterleaver.release(now: arrival, deliver)
            return
        }
        if lostBefore > 0 {
            fragmentation.noteLoss(assembler)
            try assembler.noteLoss(before: timestamp, leading: H264Payload.leadingNAL(payload), missing: lostBefore)
        }
        if type != H264Payload.fuA || payload[1] & 0x80 != 0 { fragmentation.forgetInterruption() }
        switch type {
        case H264Payload.fuA:
            try processFragment(payload, timestamp: timestamp, borrowing: borrowing)
        case H264Payload.stapA:
            fragmentation.drop(assembler)
            var units = AggregationUnits(payload)
            while let unit = units.next() { try addNAL(unit.nal, timestamp: timestamp, borrowing: borrowing) }
            if units.overran {
                aggregationUnitsOverrun += 1
                assembler.noteLostUnit(header: units.overrunHeader, reason: .aggregationOverrun)
            }
        default:
            fragmentation.drop(assembler)
            try addNAL(payload, timestamp: timestamp, borrowing: borrowing)
        }
        try assembler.endOfPacket(marker: marker)
    }

    /// A whole NAL unit to the assembler; where a sender put an Annex-B stream in its place (start
    /// codes inside, which no NAL unit holds), the units between them, those of a type a packet may
    /// carry alone.
    @inline(__always)
    private func addNAL(_ nal: UnsafeRawBufferPointer, timestamp: UInt32, borrowing: Bool) throws {
        guard AnnexB.containsStartCode(nal) else {
            return try assembler.addNAL(header: nal[0], body: nal.view(1..<nal.count), timestamp: timestamp, borrowing: borrowing)
        }
        if unitsWithStartCodes == 0 { onNotice(.startCodesInNALUnits) }
        unitsWithStartCodes += 1
        for range in AnnexB.unitRanges(splitting: nal) where H264Payload.isAggregatable(nal[range.lowerBound]) {
            try assembler.addNAL(header: nal[range.lowerBound], body: nal.view(range.lowerBound + 1..<range.upperBound),
                                 timestamp: timestamp, borrowing: borrowing)
        }
    }

    private func processFragment(_ payload: UnsafeRawBufferPointer, timestamp: UInt32, borrowing: Bool) throws {
        let fuHeader = payload[1]
        // The NAL header comes back from the FU indicator's F and NRI and the FU header's type.
        let header = (payload[0] & 0xE0) | (fuHeader & 0x1F)
        if fuHeader & 0x80 != 0 {
            try fragmentation.start(assembler, header: header, body: payload.view(2..<payload.count), timestamp: timestamp,
                                    end: fuHeader & 0x40 != 0, borrowing: borrowing)
        } else if fragmentation.continues(at: timestamp) {
            continueFragment(payload, borrowing: borrowing)
        } else {
            // A fragment of a unit whose start never came: the unit is lost, and its picture with it.
            try fragmentation.stray(assembler, header: header, timestamp: timestamp)
        }
    }

    /// A later fragment of the open unit (FU-A, S clear): its bytes, and the unit's end at E.
    @inline(__always)
    private func continueFragment(_ payload: UnsafeRawBufferPointer, borrowing: Bool) {
        fragmentation.append(assembler, payload.view(2..<payload.count), end: payload[1] & 0x40 != 0, borrowing: borrowing)
    }

    // MARK: Interleaved mode

    private func processInterleaved(_ payload: UnsafeRawBufferPointer, type: UInt8, timestamp: UInt32,
                                    lostBefore: Int, arrival: Int64, sequenceNumber: Int64) throws {
        // A lost packet shows up later as a gap in the decoding order numbers.
        if lostBefore > 0 { fragmentation.drop(assembler) }
        guard let deinterleaver else { return }
        let depthBefore = deinterleaver.interleavingDepth
        defer { noteDepth(from: depthBefore) }
        switch type {
        case H264Payload.stapB:
            fragmentation.drop(assembler)
            // Units after the first take the next DON each (§5.7.1).
            var units = AggregationUnits(payload)
            var don = units.decodingOrderNumber!
            while let unit = units.next() {
                deinterleaver.insert(don: don, timestamp: timestamp, header: unit.nal[0], body: unit.nal.view(1..<unit.nal.count),
                                     arrival: arrival, packet: sequenceNumber)
                don &+= 1
            }
            // A unit lost here shows up as a DON gap.
            if units.overran { aggregationUnitsOverrun += 1 }
        case H264Payload.mtap16, H264Payload.mtap24:
            fragmentation.drop(assembler)
            // Each unit: DON = DONB + DOND; time = RTP timestamp + its own offset, never accumulated.
            var units = AggregationUnits(payload, sizeCountsPrefix: readsMTAPSizeWithPrefix(payload))
            let base = units.decodingOrderNumber!
            while let unit = units.next() {
                deinterleaver.insert(don: base &+ UInt16(unit.donDelta), timestamp: timestamp &+ unit.timestampOffset,
                                     header: unit.nal[0], body: unit.nal.view(1..<unit.nal.count), arrival: arrival,
                                     packet: sequenceNumber)
            }
            if units.overran { aggregationUnitsOverrun += 1 }
        case H264Payload.fuB:
            // The first fragment, with the DON; the rest come as FU-A (§5.8).
            let fuHeader = payload[1]
            let header = (payload[0] & 0xE0) | (fuHeader & 0x1F)
            let whole = withUnsafeBytes(of: header) {
                fragmentation.startRebuilding(assembler, header: $0, body: payload.view(4..<payload.count),
                                              don: payload.loadUnaligned(fromByteOffset: 2, as: UInt16.self).bigEndian,
                                              timestamp: timestamp, packet: sequenceNumber, end: fuHeader & 0x40 != 0)
            }
            if whole { insertFragment(arrival: arrival) }
        case H264Payload.fuA where payload[1] & 0x80 == 0:
            guard fragmentation.continues(at: timestamp) else {
                try fragmentation.stray(assembler, header: nil, timestamp: timestamp)
                return
            }
            if fragmentation.appendRebuilt(payload.view(2..<payload.count), end: payload[1] & 0x40 != 0) {
                insertFragment(arrival: arrival)
            }
        default:
            // Single NAL units, STAP-A and FU-A first fragments carry no DON: nowhere to put them.
            fragmentation.drop(assembler)
            notAllowedInInterleavedMode += 1
        }
    }

    private func insertFragment(arrival: Int64) {
        fragmentation.withRebuiltUnit { nal, don, timestamp, packet in
            deinterleaver?.insert(don: don, timestamp: timestamp, header: nal[0], body: nal.view(1..<nal.count),
                                  arrival: arrival, packet: packet)
        }
    }

    /// Whether this MTAP's sizes are to be read as counting DOND and the TS offset: the stream's
    /// reading, unless only the other one fits the packet to its last byte.
    private func readsMTAPSizeWithPrefix(_ payload: UnsafeRawBufferPointer) -> Bool {
        let usual = mtapSizeCountsPrefix
        let reading = AggregationUnits.fitExactly(payload, sizeCountsPrefix: usual) ? usual
            : AggregationUnits.fitExactly(payload, sizeCountsPrefix: !usual) ? !usual : usual
        if reading && !mtapSizeCountsPrefix {
            mtapSizeCountsPrefix = true
            onNotice(.mtapSizeCountsPrefix)
        }
        if reading { mtapPacketsWithPrefixInSize += 1 }
        return reading
    }

    private func noteDepth(from before: Int) {
        guard let deinterleaver, deinterleaver.interleavingDepth > before, !depthGrowthNoticed else { return }
        depthGrowthNoticed = true
        onNotice(.interleavingDepthGrown(declared: deinterleaver.parameters.interleavingDepth,
                                         needed: deinterleaver.neededDepth))
    }

    /// A NAL unit leaving the de-interleaving buffer, in decoding order.
    private func deliver(_ unit: DeinterleavingBuffer.Unit) throws {
        let header = unit.nal[0], body = unit.nal.view(1..<unit.nal.count)
        if try assembler.noteDecodingOrder(of: unit, header: header, body: body) { decodingOrderGaps += 1 }
        try assembler.addNAL(header: header, body: body, timestamp: unit.timestamp, borrowing: false)
    }

    /// Lets the de-interleaving buffer give up waiting (time passes with no packet).
    public func tick(now: Int64) throws {
        try deinterleaver?.release(now: now, deliver)
    }

    public func fold(into s: inout StreamStatistics) {
        fragmentation.fold(into: &s)
        s.interleaved = isInterleaved
        s.decodingOrderGaps = decodingOrderGaps
        s.lateInterleavedUnits = deinterleaver?.lateUnits ?? 0
        s.notAllowedInInterleavedMode = notAllowedInInterleavedMode
        s.aggregationUnitsOverrun = aggregationUnitsOverrun
        s.mtapPacketsWithPrefixInSize = mtapPacketsWithPrefixInSize
        s.unitsWithStartCodes = unitsWithStartCodes
        if let deinterleaver {
            s.interleavingDepth = (deinterleaver.parameters.interleavingDepth,
                                   max(deinterleaver.parameters.interleavingDepth, deinterleaver.neededDepth))
        }
    }

    /// Ends the stream: an open fragmented unit is incomplete; the de-interleaving buffer empties.
    public func flush() throws {
        fragmentation.drop(assembler)
        try deinterleaver?.flush(deliver)
        try assembler.flush()
    }

    public func restart() {
        fragmentation.reset()
        if deinterleaver != nil {
            deinterleaver = makeDeinterleaver()
        }
        assembler.restart()
    }
}
