/// Groups NAL units into access units in Annex-B form (4-byte start codes), and tracks whether each
/// one is whole: what it lost, where (before its first slice, or in its picture), and which packets
/// it came in.
///
/// An access unit ends at the marker bit, at a change of RTP timestamp, or where H.264 §7.4.1.2.3
/// says a new one begins: an AUD/SEI/SPS/PPS after a picture's slices, or a slice with
/// first_mb_in_slice 0 — unless that slice is the picture's first macroblock arriving late (arbitrary
/// slice order), which §7.4.1.2.4's comparison with the picture's first slice tells. Parameter sets
/// and SEI that arrive without a picture are carried into the next access unit. Bytes are copied
/// once, from the packet into a reused buffer, or not at all when the packets' memory outlives the
/// access unit (see `AccessUnitBuffer`); `AccessUnitCollector` keeps those books, this type the
/// rules of H.264.
public final class AccessUnitAssembler {
    public typealias NALRecord = NALUnitRecord
    public typealias PPSIdSet = ParameterSetIdSet

    /// A finished access unit, valid only during the delegate call.
    public struct Assembled {
        public var timestamp: UInt32
        /// The Annex-B bytes, in order.
        public var pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>
        public var byteCount: Int
        public var nalUnits: UnsafeBufferPointer<NALRecord>
        /// What it lost; nil when whole.
        public var damage: AccessUnitDamage?
        public var isIDR: Bool
        public var hasRecoveryPoint: Bool
        public var firstSlicePPSId: UInt32?
        /// Bit n set when the access unit carries SPS n.
        public var spsIds: UInt32
        public var ppsIds: PPSIdSet
        /// The PPS every slice that arrived names.
        public var slicePPSIds: PPSIdSet
        /// Every slice that arrived had a slice header that parses.
        public var slicesParsed: Bool
        /// The first slice that arrived begins the picture (first_mb_in_slice 0).
        public var startsAtFirstMacroblock: Bool
        /// The highest nal_ref_idc among the slices that arrived, or were lost with their header
        /// known; nil when none was seen.
        public var nalRefIdc: UInt8?
        /// The first slice's frame_num, when its parameter sets are cached (`firstSlicePicture()`
        /// reads the rest of its header, on demand).
        public var frameNum: FrameNum?
        /// Packets were lost after the previous access unit was handed on and before this one ended:
        /// whole pictures may have gone with them.
        public var followsLoss: Bool
        /// The packets it came in.
        public var packets: PacketSpan
        public var isKeyframe: Bool { isIDR || hasRecoveryPoint }
        public var isDamaged: Bool { damage != nil }
    }

    public let parameterSets = ParameterSetCache()
    public var onAccessUnit: (Assembled) throws -> Void = { _ in }

    private let units: AccessUnitCollector
    /// The packet whose units come in now; the depacketizer sets it.
    public var packet: Int64 {
        get { units.packet }
        set { units.packet = newValue }
    }
    private var nalRefIdc: UInt8?
    private var slicePPSIds = PPSIdSet()
    private var slicesParsed = true
    private var startsAtFirstMacroblock = false
    private var frameNum: FrameNum?
    /// The first slice's header byte and the start of its body: enough for its slice header, kept
    /// so that reading it later reads nothing of the access unit's pieces.
    private var firstSliceHead: [UInt8] = []
    /// A piece of an IDR slice was lost (or dropped, unfinished or too large): the damaged access
    /// unit was a keyframe.
    private var lostIDRSlice = false
    /// pic_parameter_set_id of the access unit's first slice, read as it arrives.
    private var firstSlicePPSId: UInt32?
    /// A slice of the access unit begins at macroblock 0.
    private var hasFirstMacroblock = false
    private var pendingRefIdc: UInt8?
    /// The first NAL types of whole access units seen so far (bit n for type n), for IDR and other
    /// pictures: tells whether a packet after a loss can be the true start of an access unit.
    private var leadingTypesIDR: UInt32 = 0
    private var leadingTypesOther: UInt32 = 0

    // Counters a stream reports.
    public private(set) var parameterSetChanges = 0
    public private(set) var spsSeen = 0
    public private(set) var slicesSeen = 0
    public private(set) var repeatedParameterSetsRemoved = 0

    public init(maxAccessUnitBytes: Int, maxNALUnits: Int = 16384) {
        units = AccessUnitCollector(maxAccessUnitBytes: maxAccessUnitBytes, maxNALUnits: maxNALUnits)
    }

    /// Whether the access unit in progress refers to bytes in `memory` (see `beginNAL`'s `borrowing`).
    public func refers(to memory: UnsafeRawBufferPointer) -> Bool { units.refers(to: memory) }

    /// Copies what the access unit in progress holds of `memory`, which may then be reused.
    public func stopReferring(to memory: UnsafeRawBufferPointer) { units.stopReferring(to: memory) }

    // MARK: NAL units

    /// Starts a NAL unit. `body` is what follows its header: the whole unit, or a first fragment.
    /// `borrowing`: `body` stays valid until the access unit is handed on, so a slice's bytes can be
    /// referenced instead of copied.
    public func beginNAL(header: UInt8, body: UnsafeRawBufferPointer, timestamp ts: UInt32,
                         borrowing: Bool = false) throws {
        let type = nalUnitType(header)
        let slice = NALUnitType.isVCL(type) ? SliceHeaderPrefix(header: header, body: body) : nil
        let atFirstMacroblock = slice?.firstMbInSlice == 0
        if units.isOpen {
            if ts != units.timestamp {
                try finish()
            } else if units.hasVCL {
                // A run of SEI/SPS/PPS after the slices: the next picture starts there if a slice
                // with first_mb_in_slice 0 follows, while more slices of this picture mean it belongs
                // here (rtph264pay repeats SPS/PPS between the slices of an IDR picture).
                if type == NALUnitType.accessUnitDelimiter {
                    try finish()
                } else if NALUnitType.startsAccessUnit(type) {
                    units.markTentativeBoundary()
                } else if NALUnitType.isVCL(type) {
                    if atFirstMacroblock && (hasFirstMacroblock || !samePicture(header: header, body: body)) {
                        try finish(before: units.tentativeBoundary ?? units.nals.count)
                    } else if let boundary = units.tentativeBoundary {
                        removeRepeatedParameterSets(from: boundary)
                        units.dropTentativeBoundary()
                    }
                }
            }
        }
        if !units.isOpen { openAccessUnit(at: ts) }
        if NALUnitType.isVCL(type) {
            let isSlice = type == NALUnitType.idrSlice || type == NALUnitType.nonIDRSlice
            if isSlice {
                if firstSlicePPSId == nil, let slice {
                    firstSlicePPSId = slice.picParameterSetId
                    frameNum = parameterSets.frameNumbering(forPPS: slice.picParameterSetId)
                        .flatMap { FrameNum(body: body, numbering: $0) }
                    firstSliceHead.removeAll(keepingCapacity: true)
                    firstSliceHead.append(header)
                    firstSliceHead.append(contentsOf: body.view(0..<min(body.count, 64)))
                }
                if let slice { slicePPSIds.insert(slice.picParameterSetId) } else { slicesParsed = false }
            }
            if !units.hasVCL { startsAtFirstMacroblock = atFirstMacroblock }
            if atFirstMacroblock { hasFirstMacroblock = true }
            noteRefIdc(header)
            units.hasVCL = true
            // Evidence of H.264: slices (not data partitions, which H.265's headers pose as) that parse.
            if isSlice && slice != nil { slicesSeen += 1 }
        }
        // A 4-byte start code on every NAL unit: always valid, and what --out promises.
        let started = units.startNAL(type: type, isVCL: NALUnitType.isVCL(type), headerSize: 1, body: body,
                                     borrowing: borrowing) { $0.appendStartCode(header: header) }
        if !started { noteDroppedNAL() }
    }

    /// Appends a later fragment to the NAL unit begun last.
    @inline(__always)
    public func appendNAL(_ bytes: UnsafeRawBufferPointer, borrowing: Bool = false) {
        if !units.appendNAL(bytes, borrowing: borrowing) { noteDroppedNAL() }
    }

    public func endNAL() {
        guard let record = units.endNAL(), record.type == NALUnitType.sps || record.type == NALUnitType.pps else { return }
        units.withBytes(record.offset + 4..<record.offset + record.length) { nal in
            guard let stored = parameterSets.store(nal: nal) else { return }
            if stored.replaced { parameterSetChanges += 1 }
            if stored.isSPS { spsSeen += 1 }
        }
    }

    /// SPS and PPS repeated between the slices of one picture, byte for byte the same as ones earlier
    /// in the access unit, are dropped: decoders take them for the start of a new picture.
    private func removeRepeatedParameterSets(from start: Int) {
        var index = units.nals.count - 1
        while index >= start {
            let record = units.nals[index]
            if record.type == NALUnitType.sps || record.type == NALUnitType.pps {
                let repeated = units.withBytes(record.offset..<record.offset + record.length) { bytes in
                    units.nals[0..<start].contains { earlier in
                        earlier.type == record.type && earlier.length == record.length
                            && units.withBytes(earlier.offset..<earlier.offset + earlier.length) { $0.hasSameBytes(as: bytes) }
                    }
                }
                if repeated {
                    units.removeNAL(at: index)
                    repeatedParameterSetsRemoved += 1
                }
            }
            index -= 1
        }
    }

    /// Whether a slice starting at macroblock 0, in a picture that has none yet, belongs to that
    /// picture (arbitrary slice order): its §7.4.1.2.4 fields equal the first slice's. Without the
    /// parameter sets to read them, it starts a new picture.
    private func samePicture(header: UInt8, body: UnsafeRawBufferPointer) -> Bool {
        guard let (earlier, sps, pps) = firstSliceIdentity() else { return false }
        let later = pps.withUnsafeBytes { PictureIdentity(header: header, body: body, sps: sps, pps: $0) }
        return later == earlier
    }

    /// The §7.4.1.2.4 fields (frame_num, field, POC, reference) of the access unit's first slice,
    /// with the SPS they were read with; during `onAccessUnit`, of the access unit handed on. Nil
    /// without its parameter sets.
    public func firstSlicePicture() -> (picture: PictureIdentity, sps: SequenceParameterSet)? {
        firstSliceIdentity().map { ($0.0, $0.1) }
    }

    private func firstSliceIdentity() -> (PictureIdentity, SequenceParameterSet, [UInt8])? {
        guard let ppsId = firstSlicePPSId, let spsId = parameterSets.spsId(forPPS: ppsId),
              let sps = parameterSets.parsedSPS(id: spsId), let pps = parameterSets.pps(id: ppsId) else { return nil }
        let identity = pps.withUnsafeBytes { ppsBytes in
            firstSliceHead.withUnsafeBytes { nal in
                PictureIdentity(header: nal[0], body: nal.view(1..<nal.count), sps: sps, pps: ppsBytes)
            }
        }
        return identity.map { ($0, sps, pps) }
    }

    /// Drops the NAL unit begun last: a piece of it is missing.
    public func abortNAL() {
        if units.abortNAL() { noteDroppedNAL() }
    }

    /// The NAL unit begun last was dropped (incomplete, or over a bound): if it was an IDR slice,
    /// the damaged access unit was a keyframe.
    private func noteDroppedNAL() {
        if units.nalType == NALUnitType.idrSlice { lostIDRSlice = true }
    }

    private func noteRefIdc(_ header: UInt8) {
        nalRefIdc = max(nalRefIdc ?? 0, header >> 5 & 3)
    }

    // MARK: Packets and loss

    @inline(__always)
    public func endOfPacket(marker: Bool) throws {
        guard marker else { return }
        units.noteMarker()
        if units.isOpen { try finish() }
    }

    /// `missing` packets (or, in the interleaved mode, decoding order numbers) are missing before
    /// the one now arriving with `timestamp`, whose first NAL unit is `leading` (nil for an FU-A
    /// continuation). Marks what the loss may have touched: the access unit open at that timestamp
    /// (at its head when no slice of it has come yet), or the open one and the next.
    public func noteLoss(before ts: UInt32, leading: (header: UInt8, body: UnsafeRawBufferPointer)?,
                         missing: Int, reason: FrameRecord.Reason = .missingPackets) throws {
        if units.isOpen {
            if ts == units.timestamp {
                units.addDamage(reason, missing: missing, beforeFirstSlice: !units.hasVCL)
                units.lossSinceLastAccessUnit = true
                return
            }
            // Whatever was lost may have been this access unit's end.
            units.addDamage(reason, missing: missing, beforeFirstSlice: false)
            try finish()
            units.lossSinceLastAccessUnit = true
            // One packet lost where a marker was due: most likely the one that carried it, so a
            // plausible first unit starts the next access unit whole.
            if reason == .missingPackets && missing == 1 && units.markersSeen && startsPlausibly(leading) { return }
        }
        units.lossSinceLastAccessUnit = true
        // Carried parameter sets, or a first unit that is not how this stream's access units begin:
        // what was lost belonged to the next access unit.
        if !units.isEmpty || !startsCleanly(leading) { units.addPendingHeadDamage(reason, missing: missing) }
    }

    /// A fragment of a unit not begun here (`header` rebuilt from its FU indicator and header): its
    /// start was lost (`startLost`), or a loss cut the unit short before it. The unit is lost, and
    /// the access unit at its timestamp damaged: the open one, or one opened for it, so that it is
    /// accounted for even if nothing of it but such fragments came.
    public func noteStrayFragment(header: UInt8, timestamp ts: UInt32, startLost: Bool = true) throws {
        let isVCL = NALUnitType.isVCL(nalUnitType(header))
        units.lossSinceLastAccessUnit = true
        if units.isOpen && ts != units.timestamp { try finish() }
        if !units.isOpen { openAccessUnit(at: ts) }
        units.notePacket()
        notePiece(header)
        units.addDamage(startLost ? .missingFragmentStart : .missingPackets, beforeFirstSlice: !units.hasVCL && !isVCL)
    }

    /// A unit of the packet now arriving is lost (one that ran past its aggregation packet, `header`
    /// its NAL header byte when known): the access unit open at that time is damaged.
    public func noteLostUnit(header: UInt8?, reason: FrameRecord.Reason) {
        // An unknown unit may have been a slice.
        let isVCL = header.map { NALUnitType.isVCL(nalUnitType($0)) } ?? true
        guard units.isOpen else {
            units.addPendingHeadDamage(reason, beforeFirstSlice: !isVCL)
            return
        }
        units.notePacket()
        if let header { notePiece(header) }
        units.addDamage(reason, beforeFirstSlice: !units.hasVCL && !isVCL)
    }

    private func openAccessUnit(at ts: UInt32) {
        units.open(at: ts)
        nalRefIdc = pendingRefIdc
        pendingRefIdc = nil
    }

    /// A lost piece of a slice still says whether its picture is a reference, and an IDR.
    private func notePiece(_ header: UInt8) {
        let type = nalUnitType(header)
        guard NALUnitType.isVCL(type) else { return }
        noteRefIdc(header)
        if type == NALUnitType.idrSlice { lostIDRSlice = true }
    }

    /// Whether `leading` begins access units the way this stream's whole ones began.
    private func startsCleanly(_ leading: (header: UInt8, body: UnsafeRawBufferPointer)?) -> Bool {
        guard let (header, _) = leading, startsPlausibly(leading) else { return false }
        let type = nalUnitType(header)
        if NALUnitType.isVCL(type) {
            let learned = type == NALUnitType.idrSlice ? leadingTypesIDR : leadingTypesOther
            return learned == 0 || learned & 1 << type != 0
        }
        if type == NALUnitType.accessUnitDelimiter { return true }
        let learned = leadingTypesIDR | leadingTypesOther
        return learned == 0 || learned & 1 << type != 0
    }

    /// Whether `leading` can begin an access unit at all: a slice at macroblock 0, or a unit that
    /// precedes a picture (§7.4.1.2.3).
    private func startsPlausibly(_ leading: (header: UInt8, body: UnsafeRawBufferPointer)?) -> Bool {
        guard let (header, body) = leading else { return false }
        let type = nalUnitType(header)
        if NALUnitType.isVCL(type) { return SliceHeaderPrefix(header: header, body: body)?.firstMbInSlice == 0 }
        return NALUnitType.startsAccessUnit(type)
    }

    /// Ends the stream: a NAL unit in progress is incomplete, and so is an access unit without its
    /// marker when the sender uses markers.
    public func flush() throws {
        abortNAL()
        if units.isOpen {
            if units.markersSeen { units.addDamage(.incompleteAtEnd, beforeFirstSlice: false) }
            try finish()
        }
        reset()
    }

    // MARK: Access units

    /// Hands on the access unit made of the NAL units before index `boundary`; those from
    /// `boundary` on (SEI and parameter sets of the next picture) are carried into the next one.
    private func finish(before boundary: Int? = nil) throws {
        abortNAL()
        units.close()
        // No picture yet: carry the parameter sets and SEI into the next access unit. A damaged group
        // without slices was a picture whose slices were lost (such units carry their access unit's
        // timestamp, RFC 6184 §5.1): report it.
        guard units.hasVCL || units.damage != nil else { return }
        let carried = try units.handOn(before: boundary, describe: { records, byteCount, packets in
            var assembled = describe(records)
            assembled.byteCount = byteCount
            assembled.packets = packets
            if assembled.damage == nil, let first = records.first {
                // The first unit, and the first after SEI, which some senders put only in front of the first IDR.
                var types: UInt32 = 1 << first.type
                if let afterSEI = records.first(where: { $0.type != NALUnitType.sei }) { types |= 1 << afterSEI.type }
                if assembled.isIDR { leadingTypesIDR |= types } else { leadingTypesOther |= types }
            }
            return assembled
        }, to: onAccessUnit)
        if carried { forgetPicture() } else { reset() }
    }

    /// What the NAL units of an access unit say about it, read once at its end.
    private func describe(_ records: ArraySlice<NALRecord>) -> Assembled {
        var a = Assembled(
            timestamp: units.timestamp, pieces: UnsafeBufferPointer(start: nil, count: 0), byteCount: 0,
            nalUnits: UnsafeBufferPointer(start: nil, count: 0), damage: units.damage, isIDR: false,
            hasRecoveryPoint: false, firstSlicePPSId: firstSlicePPSId, spsIds: 0, ppsIds: PPSIdSet(),
            slicePPSIds: slicePPSIds, slicesParsed: slicesParsed, startsAtFirstMacroblock: startsAtFirstMacroblock,
            nalRefIdc: nalRefIdc, frameNum: frameNum, followsLoss: units.lossSinceLastAccessUnit, packets: units.span)
        a.isIDR = lostIDRSlice
        for record in records {
            let nal = record.offset + 4..<record.offset + record.length
            switch record.type {
            case NALUnitType.idrSlice:
                a.isIDR = true
            case NALUnitType.sei:
                if units.withBytes(nal, { SEI.containsRecoveryPoint(nal: $0) }) { a.hasRecoveryPoint = true }
            case NALUnitType.sps:
                let id = units.withBytes(nal) { parameterSets.cachedSPSId(nal: $0) ?? SequenceParameterSet(nal: $0)?.seqParameterSetId }
                if let id { a.spsIds |= 1 << id }
            case NALUnitType.pps:
                if let ids = units.withBytes(nal, { PictureParameterSetIds(nal: $0) }) { a.ppsIds.insert(ids.picParameterSetId) }
            default:
                break
            }
        }
        return a
    }

    /// Forgets what the slices so far said (the NAL units carried into the next access unit stay).
    private func forgetPicture() {
        units.forgetPicture()
        firstSlicePPSId = nil
        hasFirstMacroblock = false
        nalRefIdc = nil
        slicePPSIds = PPSIdSet()
        slicesParsed = true
        startsAtFirstMacroblock = false
        frameNum = nil
        lostIDRSlice = false
    }

    private func reset() {
        units.reset()
        forgetPicture()
    }

    /// Forgets the access unit in progress and the learned stream habits (after a source restart).
    public func restart() {
        reset()
        units.restart()
        pendingRefIdc = nil
        leadingTypesIDR = 0
        leadingTypesOther = 0
    }
}

extension AccessUnitAssembler.Assembled: HandedOnAccessUnit {}
