/// Groups NAL units into access units in Annex-B form (4-byte start codes), and tracks whether each
/// one is whole.
///
/// An access unit ends at the marker bit, at a change of RTP timestamp, or where H.264 §7.4.1.2.3
/// says a new one begins: an AUD/SEI/SPS/PPS after a picture's slices, or a slice with
/// first_mb_in_slice 0 — unless that slice is the picture's first macroblock arriving late (arbitrary
/// slice order), which §7.4.1.2.4's comparison with the picture's first slice tells. Parameter sets
/// and SEI that arrive without a picture are carried into the next access unit. Bytes are copied
/// once, from the packet into a reused buffer, or not at all when the packets' memory outlives the
/// access unit (see `AccessUnitBuffer`).
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
        /// The Annex-B bytes, in order.
        public var pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>
        public var byteCount: Int
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

    private var buffer: AccessUnitBuffer
    private var nals: [NALRecord] = []
    private var open = false
    private var timestamp: UInt32 = 0
    private var hasVCL = false
    private var damaged = false
    /// Where a run of SEI/SPS/PPS after the slices began: the next picture starts there if a slice
    /// with first_mb_in_slice 0 follows, while more slices of this picture mean it belongs here
    /// (rtph264pay repeats SPS/PPS between the slices of an IDR picture).
    private var tentativeBoundary: Int?
    private var nalStart: Int?
    private var nalType: UInt8 = 0
    /// pic_parameter_set_id of the access unit's first slice, read as it arrives.
    private var firstSlicePPSId: UInt32?
    /// A slice of the access unit begins at macroblock 0.
    private var hasFirstMacroblock = false
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
    public private(set) var repeatedParameterSetsRemoved = 0

    public init(maxAccessUnitBytes: Int, maxNALUnits: Int = 16384) {
        self.maxAccessUnitBytes = maxAccessUnitBytes
        self.maxNALUnits = maxNALUnits
        buffer = AccessUnitBuffer(capacity: min(maxAccessUnitBytes, 1 << 20))
        nals.reserveCapacity(64)
    }

    /// Whether the access unit in progress refers to bytes in `memory` (see `beginNAL`'s `borrowing`).
    public func refers(to memory: UnsafeRawBufferPointer) -> Bool { buffer.refers(to: memory) }

    /// Copies what the access unit in progress holds of `memory`, which may then be reused.
    public func stopReferring(to memory: UnsafeRawBufferPointer) { buffer.copyViews(pointingInto: memory) }

    // MARK: NAL units

    /// Starts a NAL unit. `body` is what follows its header: the whole unit, or a first fragment.
    /// `borrowing`: `body` stays valid until the access unit is handed on, so a slice's bytes can be
    /// referenced instead of copied.
    public func beginNAL(header: UInt8, body: UnsafeRawBufferPointer, timestamp ts: UInt32,
                         borrowing: Bool = false) throws {
        let type = nalUnitType(header)
        let slice = NALUnitType.isVCL(type) ? SliceHeaderPrefix(header: header, body: body) : nil
        let atFirstMacroblock = slice?.firstMbInSlice == 0
        if open {
            if ts != timestamp {
                try finish()
            } else if hasVCL {
                if type == NALUnitType.accessUnitDelimiter {
                    try finish()
                } else if NALUnitType.startsAccessUnit(type) {
                    if tentativeBoundary == nil { tentativeBoundary = nals.count }
                } else if NALUnitType.isVCL(type) {
                    if atFirstMacroblock && (hasFirstMacroblock || !samePicture(header: header, body: body)) {
                        try finish(before: tentativeBoundary ?? nals.count)
                    } else if let boundary = tentativeBoundary {
                        removeRepeatedParameterSets(from: boundary)
                        tentativeBoundary = nil
                    }
                }
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
            if firstSlicePPSId == nil && (type == NALUnitType.idrSlice || type == NALUnitType.nonIDRSlice) {
                firstSlicePPSId = slice?.picParameterSetId
            }
            if atFirstMacroblock { hasFirstMacroblock = true }
            hasVCL = true
            slicesSeen += 1
        }
        guard buffer.count + 5 + body.count <= maxAccessUnitBytes, nals.count < maxNALUnits else {
            oversize()
            return
        }
        nalStart = buffer.count
        // A 4-byte start code on every NAL unit: always valid, and what --out promises.
        buffer.appendStartCode(header: header)
        // Only slices are borrowed: everything else is read again (parameter sets, SEI).
        buffer.append(body, borrowing: borrowing && NALUnitType.isVCL(type))
    }

    /// Appends a later fragment to the NAL unit begun last.
    public func appendNAL(_ bytes: UnsafeRawBufferPointer, borrowing: Bool = false) {
        guard nalStart != nil else { return }
        guard buffer.count + bytes.count <= maxAccessUnitBytes else {
            oversize()
            return
        }
        buffer.append(bytes, borrowing: borrowing && NALUnitType.isVCL(nalType))
    }

    public func endNAL() {
        guard let start = nalStart else { return }
        nalStart = nil
        nals.append(NALRecord(offset: start, length: buffer.count - start, type: nalType))
        if nalType == NALUnitType.sps || nalType == NALUnitType.pps {
            buffer.withBytes(start + 4..<buffer.count) { nal in
                if parameterSets.store(nal: nal) { parameterSetChanges += 1 }
                if nalType == NALUnitType.sps && SequenceParameterSet(nal: nal) != nil { spsSeen += 1 }
            }
        }
    }

    /// SPS and PPS repeated between the slices of one picture, byte for byte the same as ones earlier
    /// in the access unit, are dropped: decoders take them for the start of a new picture.
    private func removeRepeatedParameterSets(from start: Int) {
        var index = nals.count - 1
        while index >= start {
            let record = nals[index]
            if record.type == NALUnitType.sps || record.type == NALUnitType.pps {
                let repeated = buffer.withBytes(record.offset..<record.offset + record.length) { bytes in
                    nals[0..<start].contains { earlier in
                        earlier.type == record.type && earlier.length == record.length
                            && buffer.withBytes(earlier.offset..<earlier.offset + earlier.length) { $0.elementsEqual(bytes) }
                    }
                }
                if repeated {
                    buffer.remove(record.offset..<record.offset + record.length)
                    nals.remove(at: index)
                    for i in index..<nals.count { nals[i].offset -= record.length }
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
        guard let first = nals.first(where: { $0.type == NALUnitType.idrSlice || $0.type == NALUnitType.nonIDRSlice }),
              let ppsId = firstSlicePPSId, let pps = parameterSets.pps(id: ppsId),
              let spsBytes = parameterSets.sps(id: pps.spsId),
              let sps = spsBytes.withUnsafeBytes({ SequenceParameterSet(nal: $0) }) else { return false }
        // The first slice's header and the start of its body, from the access unit itself.
        let head = first.offset + 4..<first.offset + min(first.length, 4 + 65)
        return pps.bytes.withUnsafeBytes { ppsBytes in
            buffer.withBytes(head) { nal in
                guard let later = PictureIdentity(header: header, body: body, sps: sps, pps: ppsBytes),
                      let earlier = PictureIdentity(header: nal[0], body: nal.view(1..<nal.count), sps: sps, pps: ppsBytes)
                else { return false }
                return later == earlier
            }
        }
    }

    /// Drops the NAL unit begun last: a piece of it is missing.
    public func abortNAL() {
        guard let start = nalStart else { return }
        buffer.remove(start..<buffer.count)
        nalStart = nil
        damaged = true
    }

    private func oversize() {
        if let start = nalStart { buffer.remove(start..<buffer.count) }
        nalStart = nil
        if !damaged { oversizedAccessUnits += 1 }
        damaged = true
    }

    // MARK: Packets and loss

    public func endOfPacket(marker: Bool) throws {
        guard marker else { return }
        markersSeen = true
        if open { try finish(atMarker: true) }
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

    /// Hands on the access unit made of the NAL units before index `boundary`; those from
    /// `boundary` on (SEI and parameter sets of the next picture) are carried into the next one.
    private func finish(before boundary: Int? = nil, atMarker: Bool = false) throws {
        if nalStart != nil { abortNAL() }
        open = false
        tentativeBoundary = nil
        guard hasVCL || (damaged && atMarker) else {
            // No picture: carry the parameter sets and SEI into the next access unit, unless damaged.
            if damaged { reset() }
            return
        }
        // (A damaged group the marker closes was a picture whose slices were lost: report it.)
        let end = boundary ?? nals.count
        let byteEnd = end < nals.count ? nals[end].offset : buffer.count
        var assembled = describe(nals[0..<end])
        assembled.byteCount = byteEnd
        if !damaged, let first = nals.first {
            if assembled.isIDR { leadingTypeIDR = first.type } else { leadingTypeOther = first.type }
        }
        try buffer.withPieces(upTo: byteEnd) { pieces in
            try nals.withUnsafeBufferPointer { records in
                assembled.pieces = pieces
                assembled.nalUnits = UnsafeBufferPointer(rebasing: records[0..<end])
                try onAccessUnit(assembled)
            }
        }
        let carriedDamage = damaged && end < nals.count
        if end < nals.count {
            buffer.removeFirst(byteEnd)
            nals.removeSubrange(0..<end)
            for i in nals.indices { nals[i].offset -= byteEnd }
            forgetPicture()
        } else {
            reset()
        }
        pendingHeadDamage = pendingHeadDamage || carriedDamage
    }

    /// What the NAL units of an access unit say about it, read once at its end.
    private func describe(_ records: ArraySlice<NALRecord>) -> Assembled {
        var a = Assembled(
            timestamp: timestamp, pieces: UnsafeBufferPointer(start: nil, count: 0), byteCount: 0,
            nalUnits: UnsafeBufferPointer(start: nil, count: 0), damaged: damaged, isIDR: false,
            hasRecoveryPoint: false, firstSlicePPSId: firstSlicePPSId, spsIds: 0, ppsIds: PPSIdSet())
        for record in records {
            let nal = record.offset + 4..<record.offset + record.length
            switch record.type {
            case NALUnitType.idrSlice:
                a.isIDR = true
            case NALUnitType.sei:
                if buffer.withBytes(nal, { SEI.containsRecoveryPoint(nal: $0) }) { a.hasRecoveryPoint = true }
            case NALUnitType.sps:
                if let sps = buffer.withBytes(nal, { SequenceParameterSet(nal: $0) }) { a.spsIds |= 1 << sps.seqParameterSetId }
            case NALUnitType.pps:
                if let ids = buffer.withBytes(nal, { PictureParameterSetIds(nal: $0) }) { a.ppsIds.insert(ids.picParameterSetId) }
            default:
                break
            }
        }
        return a
    }

    /// Forgets what the slices so far said (the NAL units carried into the next access unit stay).
    private func forgetPicture() {
        hasVCL = false
        firstSlicePPSId = nil
        hasFirstMacroblock = false
        damaged = false
    }

    private func reset() {
        buffer.removeAll()
        nals.removeAll(keepingCapacity: true)
        open = false
        forgetPicture()
        tentativeBoundary = nil
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
