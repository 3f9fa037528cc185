/// Groups NAL units into access units in Annex-B form (4-byte start codes), and tracks whether each
/// one is whole.
///
/// An access unit ends at the marker bit, at a change of RTP timestamp, or where H.264 §7.4.1.2.3
/// says a new one begins: an AUD/SEI/SPS/PPS after a picture's slices, or a slice with
/// first_mb_in_slice 0. Parameter sets and SEI that arrive without a picture are carried into the next
/// access unit. Bytes are copied once, from the packet into a reused buffer.
public final class AccessUnitAssembler {
    public struct NALRecord: Sendable {
        /// Offset of the start code in the access unit.
        public var offset: Int
        /// Length with the start code.
        public var length: Int
        public var type: UInt8
    }

    /// A finished access unit, valid only during the delegate call.
    public struct Assembled {
        public var timestamp: UInt32
        public var bytes: UnsafeRawBufferPointer
        public var nalUnits: UnsafeBufferPointer<NALRecord>
        public var damaged: Bool
        public var isIDR: Bool
        public var hasRecoveryPoint: Bool
        public var firstSlicePPSId: UInt32?
        /// Bit n set when the access unit carries SPS n.
        public var spsIds: UInt32
        public var ppsIds: PPSIdSet
        public var isKeyframe: Bool { isIDR || hasRecoveryPoint }
    }

    public struct PPSIdSet: Sendable {
        private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        public init() {}
        public mutating func insert(_ id: UInt32) {
            let bit = UInt64(1) << (id & 63)
            switch id >> 6 {
            case 0: words.0 |= bit
            case 1: words.1 |= bit
            case 2: words.2 |= bit
            default: words.3 |= bit
            }
        }
        public func contains(_ id: UInt32) -> Bool {
            let bit = UInt64(1) << (id & 63)
            switch id >> 6 {
            case 0: return words.0 & bit != 0
            case 1: return words.1 & bit != 0
            case 2: return words.2 & bit != 0
            default: return words.3 & bit != 0
            }
        }
    }

    public let maxAccessUnitBytes: Int
    public let maxNALUnits: Int
    public var parameterSets = ParameterSetCache()
    public var onAccessUnit: (Assembled) throws -> Void = { _ in }

    private var buffer: [UInt8] = []
    private var nals: [NALRecord] = []
    private var open = false
    private var timestamp: UInt32 = 0
    private var hasVCL = false
    private var damaged = false
    private var isIDR = false
    private var hasRecoveryPoint = false
    private var firstSlicePPSId: UInt32?
    private var spsIds: UInt32 = 0
    private var ppsIds = PPSIdSet()
    private var nalStart: Int?
    private var nalType: UInt8 = 0
    private var pendingHeadDamage = false
    private var markersSeen = false
    /// The first NAL type of whole access units seen so far, for IDR and other pictures: tells whether a
    /// packet after a loss can be the true start of an access unit.
    private var leadingTypeIDR: UInt8?
    private var leadingTypeOther: UInt8?

    // Counters a stream reports.
    public private(set) var oversizedAccessUnits = 0
    public private(set) var parameterSetChanges = 0
    public private(set) var spsSeen = 0
    public private(set) var slicesSeen = 0

    public init(maxAccessUnitBytes: Int, maxNALUnits: Int = 16384) {
        self.maxAccessUnitBytes = maxAccessUnitBytes
        self.maxNALUnits = maxNALUnits
        buffer.reserveCapacity(min(maxAccessUnitBytes, 1 << 20))
        nals.reserveCapacity(64)
    }

    // MARK: NAL units

    /// Starts a NAL unit. `body` is what follows its header: the whole unit, or a first fragment.
    public func beginNAL(header: UInt8, body: UnsafeRawBufferPointer, timestamp ts: UInt32) throws {
        let type = nalUnitType(header)
        var slice: SliceHeaderPrefix?
        if NALUnitType.isVCL(type) { slice = SliceHeaderPrefix(header: header, body: body) }
        if open {
            if ts != timestamp {
                try finish()
            } else if hasVCL && (NALUnitType.startsAccessUnit(type) || slice?.firstMbInSlice == 0) {
                try finish()
            }
        }
        if !open {
            open = true
            timestamp = ts
            damaged = damaged || pendingHeadDamage
            pendingHeadDamage = false
        }
        nalType = type
        if NALUnitType.isVCL(type) {
            hasVCL = true
            slicesSeen += 1
            if type == NALUnitType.idrSlice { isIDR = true }
            if firstSlicePPSId == nil { firstSlicePPSId = slice?.picParameterSetId }
        }
        guard buffer.count + 5 + body.count <= maxAccessUnitBytes, nals.count < maxNALUnits else {
            oversize()
            return
        }
        nalStart = buffer.count
        // A 4-byte start code on every NAL unit: always valid, and what --out promises.
        buffer.append(0)
        buffer.append(0)
        buffer.append(0)
        buffer.append(1)
        buffer.append(header)
        buffer.append(contentsOf: body)
    }

    /// Appends a later fragment to the NAL unit begun last.
    public func appendNAL(_ bytes: UnsafeRawBufferPointer) {
        guard nalStart != nil else { return }
        guard buffer.count + bytes.count <= maxAccessUnitBytes else {
            oversize()
            return
        }
        buffer.append(contentsOf: bytes)
    }

    public func endNAL() {
        guard let start = nalStart else { return }
        nalStart = nil
        nals.append(NALRecord(offset: start, length: buffer.count - start, type: nalType))
        switch nalType {
        case NALUnitType.sps, NALUnitType.pps, NALUnitType.sei:
            buffer.withUnsafeBytes { all in
                let nal = all.view(start + 4..<all.count)
                if nalType == NALUnitType.sei {
                    if SEI.containsRecoveryPoint(nal: nal) { hasRecoveryPoint = true }
                    return
                }
                if parameterSets.store(nal: nal) { parameterSetChanges += 1 }
                if nalType == NALUnitType.sps, let sps = SequenceParameterSet(nal: nal) {
                    spsIds |= 1 << sps.seqParameterSetId
                    spsSeen += 1
                } else if let ids = PictureParameterSetIds(nal: nal) {
                    ppsIds.insert(ids.picParameterSetId)
                }
            }
        default:
            break
        }
    }

    /// Drops the NAL unit begun last: a piece of it is missing.
    public func abortNAL() {
        guard let start = nalStart else { return }
        buffer.removeSubrange(start...)
        nalStart = nil
        damaged = true
    }

    private func oversize() {
        if let start = nalStart { buffer.removeSubrange(start...) }
        nalStart = nil
        if !damaged { oversizedAccessUnits += 1 }
        damaged = true
    }

    // MARK: Packets and loss

    public func endOfPacket(marker: Bool) throws {
        guard marker else { return }
        markersSeen = true
        if open { try finish() }
    }

    /// Packets are missing before the one now arriving with `timestamp`, whose first NAL unit is
    /// `leading` (nil for an FU-A continuation). Marks what the loss may have touched.
    public func noteLoss(before ts: UInt32, leading: (header: UInt8, body: UnsafeRawBufferPointer)?) throws {
        if open {
            damaged = true
            if ts == timestamp { return }
            try finish()
        } else if !buffer.isEmpty {
            // Carried parameter sets: what was lost may have belonged with them.
            pendingHeadDamage = true
        }
        if !startsCleanly(leading) { pendingHeadDamage = true }
    }

    private func startsCleanly(_ leading: (header: UInt8, body: UnsafeRawBufferPointer)?) -> Bool {
        guard let (header, body) = leading else { return false }
        let type = nalUnitType(header)
        if NALUnitType.isVCL(type) {
            guard SliceHeaderPrefix(header: header, body: body)?.firstMbInSlice == 0 else { return false }
            let learned = type == NALUnitType.idrSlice ? leadingTypeIDR : leadingTypeOther
            return learned.map(NALUnitType.isVCL) ?? true
        }
        if type == NALUnitType.accessUnitDelimiter { return true }
        guard NALUnitType.startsAccessUnit(type) else { return false }
        if leadingTypeIDR == nil && leadingTypeOther == nil { return true }
        return type == leadingTypeIDR || type == leadingTypeOther
    }

    /// Ends the stream: a NAL unit in progress is incomplete, and so is an access unit without its
    /// marker when the sender uses markers.
    public func flush() throws {
        if nalStart != nil { abortNAL() }
        if open {
            if markersSeen { damaged = true }
            try finish()
        }
        reset()
    }

    // MARK: Access units

    private func finish() throws {
        if nalStart != nil { abortNAL() }
        open = false
        guard hasVCL else {
            // No picture: carry the parameter sets and SEI into the next access unit, unless damaged.
            if damaged { reset() }
            return
        }
        if !damaged, let first = nals.first {
            if isIDR { leadingTypeIDR = first.type } else { leadingTypeOther = first.type }
        }
        var assembled = Assembled(
            timestamp: timestamp, bytes: UnsafeRawBufferPointer(start: nil, count: 0),
            nalUnits: UnsafeBufferPointer(start: nil, count: 0), damaged: damaged, isIDR: isIDR,
            hasRecoveryPoint: hasRecoveryPoint, firstSlicePPSId: firstSlicePPSId, spsIds: spsIds, ppsIds: ppsIds)
        defer { reset() }
        try buffer.withUnsafeBytes { bytes in
            try nals.withUnsafeBufferPointer { records in
                assembled.bytes = bytes
                assembled.nalUnits = records
                try onAccessUnit(assembled)
            }
        }
    }

    private func reset() {
        buffer.removeAll(keepingCapacity: true)
        nals.removeAll(keepingCapacity: true)
        open = false
        hasVCL = false
        damaged = false
        isIDR = false
        hasRecoveryPoint = false
        firstSlicePPSId = nil
        spsIds = 0
        ppsIds = PPSIdSet()
        nalStart = nil
    }

    /// Forgets the access unit in progress and the learned stream habits (after a source restart).
    public func restart() {
        reset()
        pendingHeadDamage = false
        leadingTypeIDR = nil
        leadingTypeOther = nil
    }
}
