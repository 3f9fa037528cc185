/// Groups H.265 NAL units into access units in Annex-B form (4-byte start codes), and tracks whether
/// each one is whole, as `AccessUnitAssembler` does for H.264.
///
/// An access unit ends at the marker bit, at a change of RTP timestamp, or where H.265 §7.4.2.4.4
/// says the next begins: a base-layer slice segment with first_slice_segment_in_pic_flag 1, or an
/// AUD, VPS, SPS, PPS or prefix SEI after the picture's slices. Those may also stand between the
/// slice segments of one picture, so the boundary they make holds only if the next slice segment
/// begins a picture. Units of other layers (nuh_layer_id > 0) stay in the access unit of the base
/// picture. Parameter sets and SEI that arrive without a picture are carried into the next one.
public final class HEVCAccessUnitAssembler {
    /// A finished access unit, valid only during the delegate call.
    public struct Assembled {
        public var timestamp: UInt32
        /// The Annex-B bytes, in order.
        public var pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>
        public var byteCount: Int
        public var nalUnits: UnsafeBufferPointer<NALUnitRecord>
        /// What it lost; nil when whole.
        public var damage: AccessUnitDamage?
        /// nal_unit_type and TemporalId of its base-layer picture, from a slice segment that came or
        /// one lost with its header known; nil when none was seen.
        public var pictureType: UInt8?
        public var temporalId: Int
        public var firstSlicePPSId: UInt32?
        /// The PPS every slice segment that arrived names.
        public var slicePPSIds: ParameterSetIdSet
        /// Every slice segment that arrived had a header that parses.
        public var slicesParsed: Bool
        /// The first slice segment that arrived begins the picture.
        public var startsAtFirstSlice: Bool
        /// The VPS, SPS and PPS ids it carries itself.
        public var carried: ParameterSetIdSet
        /// Packets were lost after the previous access unit was handed on and before this one ended.
        public var followsLoss: Bool
        public var packets: PacketSpan

        public var isIRAP: Bool { pictureType.map(HEVCNALUnitType.isIRAP) ?? false }
        public var isRASL: Bool { pictureType.map(HEVCNALUnitType.isRASL) ?? false }
        public var isKeyframe: Bool { isIRAP }
        public var isDamaged: Bool { damage != nil }
    }

    /// `carried` holds VPS ids from 0, SPS ids from 16 and PPS ids from 32.
    public static func carriedId(_ kind: HEVCParameterSetCache.Kind, _ id: Int) -> UInt32 {
        UInt32(kind.rawValue * 16 + id)
    }

    /// The kind and id a `carried` member stands for.
    public static func carriedSet(_ member: UInt32) -> (HEVCParameterSetCache.Kind, Int) {
        member < 32 ? (member < 16 ? .vps : .sps, Int(member % 16)) : (.pps, Int(member - 32))
    }

    public let maxAccessUnitBytes: Int
    public let maxNALUnits: Int
    public let parameterSets = HEVCParameterSetCache()
    public var onAccessUnit: (Assembled) throws -> Void = { _ in }
    /// The packet whose units come in now; the depacketizer sets it.
    public var packet: Int64 = 0

    private let buffer: AccessUnitBuffer
    private var nals: [NALUnitRecord] = []
    private var open = false
    private var timestamp: UInt32 = 0
    private var hasVCL = false
    private var damage: AccessUnitDamage?
    private var span = PacketSpan()
    private var spanBeforeBoundary: PacketSpan?
    private var nalFirstPacket: Int64 = 0
    private var nalStart: Int?
    private var nalType: UInt8 = 0
    private var pictureType: UInt8?
    private var temporalId = 0
    private var firstSlicePPSId: UInt32?
    private var slicePPSIds = ParameterSetIdSet()
    private var slicesParsed = true
    private var startsAtFirstSlice = false
    /// Where a run of AUD/VPS/SPS/PPS/prefix SEI after the slices began: the next picture starts
    /// there if a slice segment that begins a picture follows.
    private var tentativeBoundary: Int?
    private var lossSinceLastAccessUnit = false
    private var pendingHeadDamage: AccessUnitDamage?
    private var pendingPicture: (type: UInt8, temporalId: Int)?
    private var markersSeen = false
    /// The first NAL types of whole access units so far (bit n for type n, types below 64), for IRAP
    /// and other pictures: whether a packet after a loss can be the true start of an access unit.
    private var leadingTypesIRAP: UInt64 = 0
    private var leadingTypesOther: UInt64 = 0

    // Counters a stream reports.
    public private(set) var parameterSetChanges = 0
    public private(set) var spsSeen = 0
    public private(set) var slicesSeen = 0

    public init(maxAccessUnitBytes: Int, maxNALUnits: Int = 16384) {
        self.maxAccessUnitBytes = maxAccessUnitBytes
        self.maxNALUnits = maxNALUnits
        buffer = AccessUnitBuffer(capacity: min(maxAccessUnitBytes, 1 << 20))
        nals.reserveCapacity(64)
    }

    public func refers(to memory: UnsafeRawBufferPointer) -> Bool { buffer.refers(to: memory) }
    public func stopReferring(to memory: UnsafeRawBufferPointer) { buffer.copyViews(pointingInto: memory) }

    // MARK: NAL units

    /// Starts a NAL unit. `body` is what follows its two header bytes: the whole unit, or a first
    /// fragment. `borrowing`: `body` stays valid until the access unit is handed on.
    public func beginNAL(header: HEVCNALHeader, body: UnsafeRawBufferPointer, timestamp ts: UInt32,
                         borrowing: Bool = false) throws {
        let type = header.type
        let isVCL = HEVCNALUnitType.isVCL(type)
        let baseLayer = header.layerId == 0
        let slice = isVCL ? HEVCSliceSegmentHeaderPrefix(type: type, body: body) : nil
        let beginsPicture = slice?.firstSliceSegmentInPicFlag == true
        if open {
            if ts != timestamp {
                try finish()
            } else if hasVCL && baseLayer {
                if type == HEVCNALUnitType.accessUnitDelimiter {
                    try finish()
                } else if HEVCNALUnitType.startsAccessUnit(type) {
                    if tentativeBoundary == nil {
                        tentativeBoundary = nals.count
                        spanBeforeBoundary = span
                    }
                } else if isVCL {
                    if beginsPicture {
                        try finish(before: tentativeBoundary ?? nals.count)
                    } else {
                        tentativeBoundary = nil
                        spanBeforeBoundary = nil
                    }
                }
            }
        }
        if !open { openAccessUnit(at: ts) }
        span.add(packet)
        nalFirstPacket = packet
        nalType = type
        if isVCL {
            if let slice {
                if firstSlicePPSId == nil { firstSlicePPSId = slice.slicePicParameterSetId }
                slicePPSIds.insert(slice.slicePicParameterSetId)
                if baseLayer { slicesSeen += 1 }
            } else {
                slicesParsed = false
            }
            if baseLayer {
                if !hasVCL { startsAtFirstSlice = beginsPicture }
                notePicture(header)
            }
            hasVCL = true
        }
        guard buffer.count + 6 + body.count <= maxAccessUnitBytes, nals.count < maxNALUnits else {
            oversize()
            return
        }
        nalStart = buffer.count
        buffer.appendStartCode(header: header.byte0, header.byte1)
        // Only slice data is borrowed: everything else is read again.
        buffer.append(body, borrowing: borrowing && isVCL)
    }

    /// Appends a later fragment to the NAL unit begun last.
    public func appendNAL(_ bytes: UnsafeRawBufferPointer, borrowing: Bool = false) {
        guard nalStart != nil else { return }
        span.add(packet)
        guard buffer.count + bytes.count <= maxAccessUnitBytes else {
            oversize()
            return
        }
        buffer.append(bytes, borrowing: borrowing && HEVCNALUnitType.isVCL(nalType))
    }

    public func endNAL() {
        guard let start = nalStart else { return }
        nalStart = nil
        nals.append(NALUnitRecord(offset: start, length: buffer.count - start, type: nalType,
                                  firstPacket: nalFirstPacket, lastPacket: packet))
        if HEVCParameterSetCache.Kind.of(type: nalType) != nil {
            buffer.withBytes(start + 4..<buffer.count) { nal in
                guard let stored = parameterSets.store(nal: nal) else { return }
                if stored.replaced { parameterSetChanges += 1 }
                if stored.kind == .sps { spsSeen += 1 }
            }
        }
    }

    /// Drops the NAL unit begun last: a piece of it is missing.
    public func abortNAL() {
        guard let start = nalStart else { return }
        buffer.remove(start..<buffer.count)
        nalStart = nil
        addDamage(.unfinishedFragment, beforeFirstSlice: !hasVCL)
    }

    private func oversize() {
        if let start = nalStart { buffer.remove(start..<buffer.count) }
        nalStart = nil
        addDamage(.overMaxFrameBytes, beforeFirstSlice: false)
    }

    private func addDamage(_ reason: FrameRecord.Reason, missing: Int = 0, beforeFirstSlice: Bool) {
        var d = damage ?? AccessUnitDamage()
        d.add(reason, missing: missing, beforeFirstSlice: beforeFirstSlice)
        damage = d
    }

    private func addPendingHeadDamage(_ reason: FrameRecord.Reason, missing: Int = 0, beforeFirstSlice: Bool = true) {
        var d = pendingHeadDamage ?? AccessUnitDamage()
        d.add(reason, missing: missing, beforeFirstSlice: beforeFirstSlice)
        pendingHeadDamage = d
    }

    /// A base-layer slice segment (or a lost piece of one) says what its picture is.
    private func notePicture(_ header: HEVCNALHeader) {
        guard pictureType == nil, HEVCNALUnitType.isVCL(header.type), header.layerId == 0 else { return }
        pictureType = header.type
        temporalId = header.temporalId
    }

    // MARK: Packets and loss

    public func endOfPacket(marker: Bool) throws {
        guard marker else { return }
        markersSeen = true
        if open { try finish() }
    }

    /// `missing` packets (or DONs) are missing before the one now arriving with `timestamp`, whose
    /// first NAL unit is `leading` (nil for an FU continuation). Marks what the loss may have touched,
    /// as H.264's assembler does.
    public func noteLoss(before ts: UInt32, leading: (header: HEVCNALHeader, body: UnsafeRawBufferPointer)?,
                         missing: Int, reason: FrameRecord.Reason = .missingPackets) throws {
        lossSinceLastAccessUnit = true
        if open {
            if ts == timestamp {
                addDamage(reason, missing: missing, beforeFirstSlice: !hasVCL)
                return
            }
            addDamage(reason, missing: missing, beforeFirstSlice: false)
            try finish()
            lossSinceLastAccessUnit = true
            // One packet lost where a marker was due: most likely the one that carried it.
            if reason == .missingPackets && missing == 1 && markersSeen && startsPlausibly(leading) { return }
        }
        if !buffer.isEmpty || !startsCleanly(leading) { addPendingHeadDamage(reason, missing: missing) }
    }

    /// A fragment of a unit not begun here: the unit is lost, and the access unit at its timestamp
    /// damaged (the open one, or one opened for it).
    public func noteStrayFragment(header: HEVCNALHeader, timestamp ts: UInt32, startLost: Bool = true) throws {
        let isVCL = HEVCNALUnitType.isVCL(header.type)
        lossSinceLastAccessUnit = true
        if open && ts != timestamp { try finish() }
        if !open { openAccessUnit(at: ts) }
        span.add(packet)
        notePicture(header)
        addDamage(startLost ? .missingFragmentStart : .missingPackets, beforeFirstSlice: !hasVCL && !isVCL)
    }

    /// A unit of the packet now arriving is lost (one that ran past its aggregation packet).
    public func noteLostUnit(header: HEVCNALHeader?, reason: FrameRecord.Reason) {
        let isVCL = header.map { HEVCNALUnitType.isVCL($0.type) } ?? true
        guard open else {
            if let header, HEVCNALUnitType.isVCL(header.type), header.layerId == 0 {
                pendingPicture = (header.type, header.temporalId)
            }
            addPendingHeadDamage(reason, beforeFirstSlice: !isVCL)
            return
        }
        span.add(packet)
        if let header { notePicture(header) }
        addDamage(reason, beforeFirstSlice: !hasVCL && !isVCL)
    }

    private func openAccessUnit(at ts: UInt32) {
        open = true
        timestamp = ts
        if let pending = pendingHeadDamage { damage = damage.map { $0.merged(with: pending) } ?? pending }
        if let picture = pendingPicture { (pictureType, temporalId) = (picture.type, picture.temporalId) }
        pendingHeadDamage = nil
        pendingPicture = nil
    }

    /// Whether `leading` begins access units the way this stream's whole ones began.
    private func startsCleanly(_ leading: (header: HEVCNALHeader, body: UnsafeRawBufferPointer)?) -> Bool {
        guard let (header, _) = leading, startsPlausibly(leading) else { return false }
        let type = header.type
        if type == HEVCNALUnitType.accessUnitDelimiter { return true }
        let learned = HEVCNALUnitType.isVCL(type)
            ? (HEVCNALUnitType.isIRAP(type) ? leadingTypesIRAP : leadingTypesOther)
            : leadingTypesIRAP | leadingTypesOther
        return learned == 0 || learned & 1 << type != 0
    }

    /// Whether `leading` can begin an access unit at all.
    private func startsPlausibly(_ leading: (header: HEVCNALHeader, body: UnsafeRawBufferPointer)?) -> Bool {
        guard let (header, body) = leading, header.layerId == 0 else { return false }
        let type = header.type
        if HEVCNALUnitType.isVCL(type) {
            return HEVCSliceSegmentHeaderPrefix(type: type, body: body)?.firstSliceSegmentInPicFlag == true
        }
        return HEVCNALUnitType.startsAccessUnit(type)
    }

    /// Ends the stream: a NAL unit in progress is incomplete, and so is an access unit without its
    /// marker when the sender uses markers.
    public func flush() throws {
        if nalStart != nil { abortNAL() }
        if open {
            if markersSeen { addDamage(.incompleteAtEnd, beforeFirstSlice: false) }
            try finish()
        }
        reset()
    }

    // MARK: Access units

    /// Hands on the access unit made of the NAL units before index `boundary`; those from
    /// `boundary` on are carried into the next one.
    private func finish(before boundary: Int? = nil) throws {
        if nalStart != nil { abortNAL() }
        open = false
        tentativeBoundary = nil
        guard hasVCL || damage != nil else { return }
        let end = boundary ?? nals.count
        let byteEnd = end < nals.count ? nals[end].offset : buffer.count
        var assembled = Assembled(
            timestamp: timestamp, pieces: UnsafeBufferPointer(start: nil, count: 0), byteCount: byteEnd,
            nalUnits: UnsafeBufferPointer(start: nil, count: 0), damage: damage, pictureType: pictureType,
            temporalId: temporalId, firstSlicePPSId: firstSlicePPSId, slicePPSIds: slicePPSIds,
            slicesParsed: slicesParsed, startsAtFirstSlice: startsAtFirstSlice, carried: ParameterSetIdSet(),
            followsLoss: lossSinceLastAccessUnit, packets: span)
        for record in nals[0..<end] where HEVCParameterSetCache.Kind.of(type: record.type) != nil {
            if let (kind, id) = buffer.withBytes(record.offset + 4..<record.offset + record.length, HEVCParameterSetCache.identify) {
                assembled.carried.insert(Self.carriedId(kind, id))
            }
        }
        var carriedSpan = PacketSpan()
        if end < nals.count, let before = spanBeforeBoundary {
            for record in nals[end...] {
                for p in record.firstPacket...max(record.firstPacket, record.lastPacket) { carriedSpan.add(p) }
            }
            assembled.packets = before
        }
        if assembled.damage == nil, let first = nals.first, first.type < 64 {
            if assembled.isIRAP { leadingTypesIRAP |= 1 << first.type } else { leadingTypesOther |= 1 << first.type }
        }
        try buffer.withPieces(upTo: byteEnd) { pieces in
            try nals.withUnsafeBufferPointer { records in
                assembled.pieces = pieces
                assembled.nalUnits = UnsafeBufferPointer(rebasing: records[0..<end])
                try onAccessUnit(assembled)
            }
        }
        lossSinceLastAccessUnit = false
        if end < nals.count {
            buffer.removeFirst(byteEnd)
            nals.removeSubrange(0..<end)
            for i in nals.indices { nals[i].offset -= byteEnd }
            if let d = damage { addPendingHeadDamage(d.reasons.first ?? .missingPackets, missing: d.missingPackets) }
            forgetPicture()
            span = carriedSpan
        } else {
            reset()
        }
    }

    private func forgetPicture() {
        hasVCL = false
        firstSlicePPSId = nil
        damage = nil
        pictureType = nil
        temporalId = 0
        slicePPSIds = ParameterSetIdSet()
        slicesParsed = true
        startsAtFirstSlice = false
        spanBeforeBoundary = nil
    }

    private func reset() {
        buffer.removeAll()
        nals.removeAll(keepingCapacity: true)
        open = false
        forgetPicture()
        span = PacketSpan()
        tentativeBoundary = nil
        nalStart = nil
    }

    /// Forgets the access unit in progress and the learned stream habits (after a source restart).
    public func restart() {
        reset()
        pendingHeadDamage = nil
        pendingPicture = nil
        lossSinceLastAccessUnit = false
        leadingTypesIRAP = 0
        leadingTypesOther = 0
    }
}
