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
public final class AccessUnitAssembler: NALAccessUnitAssembly {
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
    func deliver(_ unit: Assembled) throws { try onAccessUnit(unit) }

    let units: AccessUnitCollector
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
    /// How whole access units began: whether a packet after a loss can be the start of one.
    private var leadingTypes = LeadingNALTypes()

    // Counters a stream reports.
    public private(set) var parameterSetChanges = 0
    public private(set) var spsSeen = 0
    public private(set) var slicesSeen = 0
    public private(set) var repeatedParameterSetsRemoved = 0

    public init(maxAccessUnitBytes: Int, maxNALUnits: Int = 16384) {
        units = AccessUnitCollector(maxAccessUnitBytes: maxAccessUnitBytes, maxNALUnits: maxNALUnits)
    }

    static func isVCL(_ header: UInt8) -> Bool { NALUnitType.isVCL(nalUnitType(header)) }
    static var lossEndingAnAccessUnitPrecedesIt: Bool { false }

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

    // MARK: Where access units begin, and what a lost piece says

    func openAccessUnit(at ts: UInt32) {
        units.open(at: ts)
        nalRefIdc = nil
    }

    /// A lost piece of a slice still says whether its picture is a reference, and an IDR.
    func noteLostPiece(_ header: UInt8) {
        let type = nalUnitType(header)
        guard NALUnitType.isVCL(type) else { return }
        noteRefIdc(header)
        if type == NALUnitType.idrSlice { lostIDRSlice = true }
    }

    /// Before the access unit opens, it says nothing that is kept.
    func noteLostPieceBeforeOpening(_ header: UInt8) {}

    func startsCleanly(_ leading: (header: UInt8, body: UnsafeRawBufferPointer)?) -> Bool {
        guard let (header, _) = leading, startsPlausibly(leading) else { return false }
        let type = nalUnitType(header)
        if type == NALUnitType.accessUnitDelimiter { return true }
        return leadingTypes.admit(type, keyframeSlice: NALUnitType.isVCL(type) ? type == NALUnitType.idrSlice : nil)
    }

    /// A slice at macroblock 0, or a unit that precedes a picture (§7.4.1.2.3).
    func startsPlausibly(_ leading: (header: UInt8, body: UnsafeRawBufferPointer)?) -> Bool {
        guard let (header, body) = leading else { return false }
        let type = nalUnitType(header)
        if NALUnitType.isVCL(type) { return SliceHeaderPrefix(header: header, body: body)?.firstMbInSlice == 0 }
        return NALUnitType.startsAccessUnit(type)
    }

    // MARK: Access units

    func describe(_ records: ArraySlice<NALRecord>, byteCount: Int, packets: PacketSpan) -> Assembled {
        var a = Assembled(
            timestamp: units.timestamp, pieces: UnsafeBufferPointer(start: nil, count: 0), byteCount: byteCount,
            nalUnits: UnsafeBufferPointer(start: nil, count: 0), damage: units.damage, isIDR: false,
            hasRecoveryPoint: false, firstSlicePPSId: firstSlicePPSId, spsIds: 0, ppsIds: PPSIdSet(),
            slicePPSIds: slicePPSIds, slicesParsed: slicesParsed, startsAtFirstMacroblock: startsAtFirstMacroblock,
            nalRefIdc: nalRefIdc, frameNum: frameNum, followsLoss: units.lossSinceLastAccessUnit, packets: packets)
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
        if a.damage == nil, let first = records.first {
            // The first unit, and the first after SEI, which some senders put only in front of the first IDR.
            var types: UInt64 = 1 << first.type
            if let afterSEI = records.first(where: { $0.type != NALUnitType.sei }) { types |= 1 << afterSEI.type }
            leadingTypes.learn(types, keyframe: a.isIDR)
        }
        return a
    }

    func forgetPicture() {
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

    /// Forgets the access unit in progress and the learned stream habits (after a source restart).
    public func restart() {
        reset()
        units.restart()
        leadingTypes = LeadingNALTypes()
    }
}

extension AccessUnitAssembler.Assembled: HandedOnAccessUnit {}
