/// Groups H.265 NAL units into access units in Annex-B form (4-byte start codes), and tracks whether
/// each one is whole, as `AccessUnitAssembler` does for H.264.
///
/// An access unit ends at the marker bit, at a change of RTP timestamp, or where H.265 §7.4.2.4.4
/// says the next begins: a base-layer slice segment with first_slice_segment_in_pic_flag 1, or an
/// AUD, VPS, SPS, PPS or prefix SEI after the picture's slices. Those may also stand between the
/// slice segments of one picture, so the boundary they make holds only if the next slice segment
/// begins a picture. Units of other layers (nuh_layer_id > 0) stay in the access unit of the base
/// picture. Parameter sets and SEI that arrive without a picture are carried into the next one.
/// `AccessUnitCollector` keeps the books, this type the rules of H.265.
public final class HEVCAccessUnitAssembler: NALAccessUnitAssembly {
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

    public let parameterSets = HEVCParameterSetCache()
    public var onAccessUnit: (Assembled) throws -> Void = { _ in }
    func deliver(_ unit: Assembled) throws { try onAccessUnit(unit) }
    let units: AccessUnitCollector
    private var pictureType: UInt8?
    private var temporalId = 0
    private var firstSlicePPSId: UInt32?
    private var slicePPSIds = ParameterSetIdSet()
    private var slicesParsed = true
    private var startsAtFirstSlice = false
    private var pendingPicture: (type: UInt8, temporalId: Int)?
    /// How whole access units began: whether a packet after a loss can be the start of one.
    private var leadingTypes = LeadingNALTypes()

    // Counters a stream reports.
    public private(set) var parameterSetChanges = 0
    public private(set) var spsSeen = 0
    public private(set) var slicesSeen = 0

    public init(maxAccessUnitBytes: Int, maxNALUnits: Int = 16384) {
        units = AccessUnitCollector(maxAccessUnitBytes: maxAccessUnitBytes, maxNALUnits: maxNALUnits)
    }

    static func isVCL(_ header: HEVCNALHeader) -> Bool { HEVCNALUnitType.isVCL(header.type) }
    static var lossEndingAnAccessUnitPrecedesIt: Bool { true }

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
        if units.isOpen {
            if ts != units.timestamp {
                try finish()
            } else if units.hasVCL && baseLayer {
                // A run of AUD/VPS/SPS/PPS/prefix SEI after the slices: the next picture starts
                // there if a slice segment that begins a picture follows.
                if type == HEVCNALUnitType.accessUnitDelimiter {
                    try finish()
                } else if HEVCNALUnitType.startsAccessUnit(type) {
                    units.markTentativeBoundary()
                } else if isVCL {
                    if beginsPicture {
                        try finish(before: units.tentativeBoundary ?? units.nals.count)
                    } else {
                        units.dropTentativeBoundary()
                    }
                }
            }
        }
        if !units.isOpen { openAccessUnit(at: ts) }
        if isVCL {
            if let slice {
                if firstSlicePPSId == nil { firstSlicePPSId = slice.slicePicParameterSetId }
                slicePPSIds.insert(slice.slicePicParameterSetId)
                if baseLayer { slicesSeen += 1 }
            } else {
                slicesParsed = false
            }
            if baseLayer {
                if !units.hasVCL { startsAtFirstSlice = beginsPicture }
                notePicture(header)
            }
            units.hasVCL = true
        }
        // Only slice data is borrowed: everything else is read again.
        _ = units.startNAL(type: type, isVCL: isVCL, headerSize: 2, body: body, borrowing: borrowing) {
            $0.appendStartCode(header: header.byte0, header.byte1)
        }
    }

    /// Appends a later fragment to the NAL unit begun last.
    public func appendNAL(_ bytes: UnsafeRawBufferPointer, borrowing: Bool = false) {
        _ = units.appendNAL(bytes, borrowing: borrowing)
    }

    public func endNAL() {
        guard let record = units.endNAL(), HEVCParameterSetCache.Kind.of(type: record.type) != nil else { return }
        units.withBytes(record.offset + 4..<record.offset + record.length) { nal in
            guard let stored = parameterSets.store(nal: nal) else { return }
            if stored.replaced { parameterSetChanges += 1 }
            if stored.kind == .sps { spsSeen += 1 }
        }
    }

    public func abortNAL() {
        units.abortNAL()
    }

    /// A base-layer slice segment (or a lost piece of one) says what its picture is.
    private func notePicture(_ header: HEVCNALHeader) {
        guard pictureType == nil, HEVCNALUnitType.isVCL(header.type), header.layerId == 0 else { return }
        pictureType = header.type
        temporalId = header.temporalId
    }

    // MARK: Where access units begin, and what a lost piece says

    func noteLostPiece(_ header: HEVCNALHeader) { notePicture(header) }

    /// A lost base-layer slice segment before its access unit opened says what the next picture is.
    func noteLostPieceBeforeOpening(_ header: HEVCNALHeader) {
        if HEVCNALUnitType.isVCL(header.type), header.layerId == 0 { pendingPicture = (header.type, header.temporalId) }
    }

    func openAccessUnit(at ts: UInt32) {
        units.open(at: ts)
        if let picture = pendingPicture { (pictureType, temporalId) = (picture.type, picture.temporalId) }
        pendingPicture = nil
    }

    func startsCleanly(_ leading: (header: HEVCNALHeader, body: UnsafeRawBufferPointer)?) -> Bool {
        guard let (header, _) = leading, startsPlausibly(leading) else { return false }
        let type = header.type
        if type == HEVCNALUnitType.accessUnitDelimiter { return true }
        return leadingTypes.admit(type, keyframeSlice: HEVCNALUnitType.isVCL(type) ? HEVCNALUnitType.isIRAP(type) : nil)
    }

    /// A base-layer slice segment that begins a picture, or a unit that precedes one (§7.4.2.4.4).
    func startsPlausibly(_ leading: (header: HEVCNALHeader, body: UnsafeRawBufferPointer)?) -> Bool {
        guard let (header, body) = leading, header.layerId == 0 else { return false }
        let type = header.type
        if HEVCNALUnitType.isVCL(type) {
            return HEVCSliceSegmentHeaderPrefix(type: type, body: body)?.firstSliceSegmentInPicFlag == true
        }
        return HEVCNALUnitType.startsAccessUnit(type)
    }

    // MARK: Access units

    func describe(_ records: ArraySlice<NALUnitRecord>, byteCount: Int, packets: PacketSpan) -> Assembled {
        var assembled = Assembled(
            timestamp: units.timestamp, pieces: UnsafeBufferPointer(start: nil, count: 0), byteCount: byteCount,
            nalUnits: UnsafeBufferPointer(start: nil, count: 0), damage: units.damage, pictureType: pictureType,
            temporalId: temporalId, firstSlicePPSId: firstSlicePPSId, slicePPSIds: slicePPSIds,
            slicesParsed: slicesParsed, startsAtFirstSlice: startsAtFirstSlice, carried: ParameterSetIdSet(),
            followsLoss: units.lossSinceLastAccessUnit, packets: packets)
        for record in records where HEVCParameterSetCache.Kind.of(type: record.type) != nil {
            if let (kind, id) = units.withBytes(record.offset + 4..<record.offset + record.length, HEVCParameterSetCache.identify) {
                assembled.carried.insert(Self.carriedId(kind, id))
            }
        }
        if assembled.damage == nil, let first = records.first {
            leadingTypes.learn(1 << first.type, keyframe: assembled.isIRAP)
        }
        return assembled
    }

    func forgetPicture() {
        units.forgetPicture()
        firstSlicePPSId = nil
        pictureType = nil
        temporalId = 0
        slicePPSIds = ParameterSetIdSet()
        slicesParsed = true
        startsAtFirstSlice = false
    }

    /// Forgets the access unit in progress and the learned stream habits (after a source restart).
    public func restart() {
        reset()
        units.restart()
        pendingPicture = nil
        leadingTypes = LeadingNALTypes()
    }
}

extension HEVCAccessUnitAssembler.Assembled: HandedOnAccessUnit {}
