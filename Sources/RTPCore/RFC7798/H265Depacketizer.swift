/// Turns RFC 7798 payloads into H.265 NAL units for the assembler: single NAL unit packets (§4.4.1),
/// aggregation packets (§4.4.2), fragmentation units (§4.4.3), and PACI packets (§4.4.4) carrying any
/// of them, whose payload header extensions are skipped by their length.
///
/// Payloads arrive in sequence order, already checked by `H265Payload.validate`. Fragmentation is the
/// same strict state machine as H.264's: a unit needs its start and every fragment up to its end with
/// no sequence gap, or it is dropped whole. NAL unit types H.265 reserves are counted and skipped.
///
/// With decoding order numbers (`decodingOrder` non-nil: the SDP's sprop-max-don-diff or
/// sprop-depack-buf-nalus above 0), every unit's DON is read from its DONL or DOND, and units pass
/// through a `DeinterleavingBuffer` (the de-packetization buffer of §6) before the assembler; a gap
/// in the DONs marks the access units around it as damaged.
public final class H265Depacketizer {
    public let assembler: HEVCAccessUnitAssembler
    public private(set) var decodingOrderBuffer: DeinterleavingBuffer?

    private var fragmentation = NALFragmentation<HEVCAccessUnitAssembler>()

    public private(set) var decodingOrderGaps = 0
    public private(set) var aggregationUnitsOverrun = 0
    public private(set) var paciPackets = 0
    /// NAL units of reserved and unspecified types, skipped.
    public private(set) var reservedUnitsSkipped = 0
    /// Units that held Annex-B start codes, split (`deliverSplitting`).
    public private(set) var unitsWithStartCodes = 0
    /// Said once each, when first seen.
    public var onNotice: (StreamNotice) -> Void = { _ in }

    public init(assembler: HEVCAccessUnitAssembler, decodingOrder: DeinterleavingBuffer.Parameters? = nil,
                latencyNanoseconds: Int64 = 500_000_000) {
        self.assembler = assembler
                decodingOrderBuffer = decodingOrder.map {
            DeinterleavingBuffer(parameters: $0, latencyNanoseconds: latencyNanoseconds, startsAtKeyframe: true)
        }
    }

    public var usesDecodingOrderNumbers: Bool { decodingOrderBuffer != nil }

    @inline(__always)
    public func process(payload: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool, lostBefore: Int,
                        arrival: Int64 = 0, borrowing: Bool = false, sequenceNumber: Int64 = 0) throws {
        // Most packets of a video stream: an FU that goes on with the unit in progress, nothing lost
        // before it, no DONL. Decided inline; everything else takes the general path.
        if lostBefore == 0, decodingOrderBuffer == nil, fragmentation.continues(at: timestamp), payload.count >= 3,
           HEVCNALHeader(payload).type == H265Payload.fragmentationUnit, payload[2] & 0x80 == 0 {
            assembler.packet = sequenceNumber
            continueFragment(payload.view(2..<payload.count), borrowing: borrowing)
            try assembler.endOfPacket(marker: marker)
            return
        }
        try processAny(payload: payload, timestamp: timestamp, marker: marker, lostBefore: lostBefore, arrival: arrival,
                       borrowing: borrowing, sequenceNumber: sequenceNumber)
    }

    private func processAny(payload: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool, lostBefore: Int,
                            arrival: Int64, borrowing: Bool, sequenceNumber: Int64) throws {
        assembler.packet = sequenceNumber
        var header = HEVCNALHeader(payload)
        var rest = payload.view(2..<payload.count)
        if header.type == H265Payload.paci, let unwrapped = H265Payload.unwrapPACI(header, rest: rest) {
            paciPackets += 1
            (header, rest) = unwrapped
        }
        if let buffer = decodingOrderBuffer {
            // A lost packet shows up later as a gap in the DONs.
            if lostBefore > 0 { fragmentation.drop(assembler) }
            try processWithDecodingOrder(header, rest, timestamp: timestamp, arrival: arrival, sequenceNumber: sequenceNumber)
            try buffer.release(now: arrival, deliver)
            return
        }
        if lostBefore > 0 {
            fragmentation.noteLoss(assembler)
            try assembler.noteLoss(before: timestamp, leading: H265Payload.leadingNAL(header, rest: rest), missing: lostBefore)
        }
        let isFU = header.type == H265Payload.fragmentationUnit
        if !isFU || rest[0] & 0x80 != 0 { fragmentation.forgetInterruption() }
        switch header.type {
        case H265Payload.fragmentationUnit:
            try processFragment(header, rest, timestamp: timestamp, borrowing: borrowing)
        case H265Payload.aggregationPacket:
            fragmentation.drop(assembler)
            var units = H265AggregationUnits(rest, decodingOrderNumbers: false)
            while let unit = units.next() {
                try deliverSplitting(HEVCNALHeader(unit.nal), unit.nal.view(2..<unit.nal.count), timestamp: timestamp,
                                     borrowing: borrowing)
            }
            if units.overran {
                aggregationUnitsOverrun += 1
                assembler.noteLostUnit(header: nil, reason: .aggregationOverrun)
            }
        default:
            fragmentation.drop(assembler)
            try deliverSplitting(header, rest, timestamp: timestamp, borrowing: borrowing)
        }
        try assembler.endOfPacket(marker: marker)
    }

    /// `deliver`, or, where a sender put an Annex-B stream in a NAL unit's place (start codes in
    /// `body`, which no NAL unit holds), the units between them, each behind a header H.265 allows.
    @inline(__always)
    private func deliverSplitting(_ header: HEVCNALHeader, _ body: UnsafeRawBufferPointer, timestamp: UInt32,
                                  borrowing: Bool) throws {
        guard AnnexB.containsStartCode(body) else { return try deliver(header, body, timestamp: timestamp, borrowing: borrowing) }
        if unitsWithStartCodes == 0 { onNotice(.startCodesInNALUnits) }
        unitsWithStartCodes += 1
        for range in AnnexB.unitRanges(splitting: body) {
            if range.lowerBound == 0 {
                try deliver(header, body.view(range), timestamp: timestamp, borrowing: borrowing)
                continue
            }
            let unit = body.view(range)
            guard unit.count >= 2, case let inner = HEVCNALHeader(unit), !inner.forbiddenZeroBit, inner.temporalIdPlus1 != 0,
                  inner.type < H265Payload.aggregationPacket else { continue }
            try deliver(inner, unit.view(2..<unit.count), timestamp: timestamp, borrowing: borrowing)
        }
    }

    /// A whole NAL unit to the assembler, unless H.265 reserves its type.
    private func deliver(_ header: HEVCNALHeader, _ body: UnsafeRawBufferPointer, timestamp: UInt32, borrowing: Bool) throws {
        guard !HEVCNALUnitType.isReserved(header.type) else {
            reservedUnitsSkipped += 1
            return
        }
        try assembler.addNAL(header: header, body: body, timestamp: timestamp, borrowing: borrowing)
    }

    private func processFragment(_ header: HEVCNALHeader, _ rest: UnsafeRawBufferPointer, timestamp: UInt32,
                                 borrowing: Bool) throws {
        let fuHeader = rest[0]
        let unitHeader = header.with(type: fuHeader & 0x3F)
        let reserved = HEVCNALUnitType.isReserved(unitHeader.type)
        if fuHeader & 0x80 != 0 {
            if reserved { reservedUnitsSkipped += 1 }
            // S and E together are invalid (§4.4.3), but taken as a whole unit, as for H.264.
            try fragmentation.start(assembler, header: unitHeader, body: rest.view(1..<rest.count), timestamp: timestamp,
                                    end: fuHeader & 0x40 != 0, skip: reserved, borrowing: borrowing)
        } else if fragmentation.continues(at: timestamp) {
            continueFragment(rest, borrowing: borrowing)
        } else {
            try fragmentation.stray(assembler, header: reserved ? nil : unitHeader, timestamp: timestamp)
        }
    }

    /// A later fragment of the open unit (FU, S clear; `rest` from its FU header on): its bytes, and
    /// the unit's end at E.
    @inline(__always)
    private func continueFragment(_ rest: UnsafeRawBufferPointer, borrowing: Bool) {
        fragmentation.append(assembler, rest.view(1..<rest.count), end: rest[0] & 0x40 != 0, borrowing: borrowing)
    }

    // MARK: Decoding order numbers

    private func processWithDecodingOrder(_ header: HEVCNALHeader, _ rest: UnsafeRawBufferPointer, timestamp: UInt32,
                                          arrival: Int64, sequenceNumber: Int64) throws {
        switch header.type {
        case H265Payload.aggregationPacket:
            fragmentation.drop(assembler)
            var units = H265AggregationUnits(rest, decodingOrderNumbers: true)
            while let unit = units.next() {
                insert(don: unit.decodingOrderNumber, HEVCNALHeader(unit.nal), unit.nal.view(2..<unit.nal.count),
                       timestamp: timestamp, arrival: arrival, packet: sequenceNumber)
            }
            // A unit lost here shows up as a DON gap.
            if units.overran { aggregationUnitsOverrun += 1 }
        case H265Payload.fragmentationUnit:
            let fuHeader = rest[0]
            let unitHeader = header.with(type: fuHeader & 0x3F)
            if fuHeader & 0x80 != 0 {
                // The first fragment carries the DONL (§4.4.3).
                let don = UInt16(rest[1]) << 8 | UInt16(rest[2])  // bounded: bytes, widened
                let whole = withUnsafeBytes(of: (unitHeader.byte0, unitHeader.byte1)) {
                    fragmentation.startRebuilding(assembler, header: $0, body: rest.view(3..<rest.count), don: don, timestamp: timestamp,
                                                  packet: sequenceNumber, end: fuHeader & 0x40 != 0)
                }
                if whole { insertFragment(arrival: arrival) }
            } else if !fragmentation.continues(at: timestamp) {
                try fragmentation.stray(assembler, header: nil, timestamp: timestamp)
            } else if fragmentation.appendRebuilt(rest.view(1..<rest.count), end: fuHeader & 0x40 != 0) {
                insertFragment(arrival: arrival)
            }
        default:
            fragmentation.drop(assembler)
            let don = UInt16(rest[0]) << 8 | UInt16(rest[1])
            insert(don: don, header, rest.view(2..<rest.count), timestamp: timestamp, arrival: arrival, packet: sequenceNumber)
        }
    }

    private func insertFragment(arrival: Int64) {
        fragmentation.withRebuiltUnit { nal, don, timestamp, packet in
            insert(don: don, HEVCNALHeader(nal), nal.view(2..<nal.count), timestamp: timestamp, arrival: arrival, packet: packet)
        }
    }

    private func insert(don: UInt16, _ header: HEVCNALHeader, _ body: UnsafeRawBufferPointer, timestamp: UInt32,
                        arrival: Int64, packet: Int64) {
        withUnsafeBytes(of: (header.byte0, header.byte1)) { head in
            decodingOrderBuffer?.insert(don: don, timestamp: timestamp, head: head, body: body, counted: true,
                                        isKeyframe: HEVCNALUnitType.isIRAP(header.type), arrival: arrival, packet: packet)
        }
    }

    /// A NAL unit leaving the de-packetization buffer, in DON order.
    private func deliver(_ unit: DeinterleavingBuffer.Unit) throws {
        let header = HEVCNALHeader(unit.nal), body = unit.nal.view(2..<unit.nal.count)
        if try assembler.noteDecodingOrder(of: unit, header: header, body: body) { decodingOrderGaps += 1 }
        try deliver(header, body, timestamp: unit.timestamp, borrowing: false)
    }

    /// Lets the de-packetization buffer give up waiting (time passes with no packet).
    public func tick(now: Int64) throws {
        try decodingOrderBuffer?.release(now: now, deliver)
    }

    public func fold(into s: inout StreamStatistics) {
        fragmentation.fold(into: &s)
        s.interleaved = usesDecodingOrderNumbers
        s.decodingOrderGaps = decodingOrderGaps
        s.lateInterleavedUnits = decodingOrderBuffer?.lateUnits ?? 0
        s.aggregationUnitsOverrun = aggregationUnitsOverrun
        s.paciPackets = paciPackets
        s.reservedUnitsSkipped = reservedUnitsSkipped
        s.unitsWithStartCodes = unitsWithStartCodes
    }

    public func flush() throws {
        fragmentation.drop(assembler)
        try decodingOrderBuffer?.flush(deliver)
        try assembler.flush()
    }

    public func restart() {
        fragmentation.reset()
        if let buffer = decodingOrderBuffer {
            decodingOrderBuffer = DeinterleavingBuffer(parameters: buffer.parameters, latencyNanoseconds: buffer.latencyNanoseconds,
                                                       startsAtKeyframe: true)
        }
        assembler.restart()
    }
}
