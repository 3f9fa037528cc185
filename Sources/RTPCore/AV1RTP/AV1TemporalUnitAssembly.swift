/// Temporal units from AV1 RTP payloads, in the low-overhead bitstream format a decoder and IVF
/// take (AV1 specification §5): a temporal delimiter first (RTP leaves it out), then each OBU with
/// its obu_size, fragments joined across packets. Temporal delimiters and tile lists that come are
/// dropped, as the payload specification says. The last sequence header is kept and put in front of
/// a keyframe that comes without one, as parameter sets are for H.264.
struct AV1TemporalUnitAssembly: FrameAssembly {
    /// An OBU whose fragments are still coming, when they are joined in a buffer (`inPlace` nil).
    private var fragment: [UInt8] = []
    private var inFragment = false
    /// An OBU whose fragments are referred to where they lie, behind room for its header and size.
    private var inPlace: (room: AccessUnitBuffer.Reservation, first: UInt8, extensionByte: UInt8?, size: Int)?
    /// The last sequence header OBU (with its size field), as written and as read.
    private var sequenceHeader: [UInt8] = []
    private var lastSequenceHeader: AV1SequenceHeader?
    /// This unit's last sequence header, when it carried one.
    private var unitSequenceHeader: AV1SequenceHeader?
    private var unitHasSequenceHeader = false
    /// The first byte of the payload of the unit's first frame or frame header OBU that has one.
    private var firstFrameHeaderByte: UInt8?
    /// Every OBU written is of a defined type with its reserved bits clear.
    private var wellFormed = true
    /// The OBU being written: its header and size field.
    private var prefix: [UInt8] = []
    /// The unit's header, once it ended: what `AV1TemporalUnitHeader` reads of the whole unit, from
    /// its OBUs as they were written; nil when one of them is not well formed.
    private(set) var unitHeader: AV1TemporalUnitHeader?

    static let temporalDelimiter: [UInt8] = [0x12, 0x00]

    init() {}

    mutating func begin(_ bytes: AccessUnitBuffer) {
        Self.temporalDelimiter.withUnsafeBytes { bytes.append($0, borrowing: false) }
        (inFragment, unitHasSequenceHeader, unitSequenceHeader, firstFrameHeaderByte) = (false, false, nil, nil)
        (wellFormed, unitHeader) = (true, nil)
        fragment.removeAll(keepingCapacity: true)
        inPlace = nil
    }

    /// OBUs are referred to where they lie when `borrowing`, whole or in fragments.
    mutating func append(_ data: UnsafeRawBufferPointer, of header: AV1AggregationHeader, to bytes: AccessUnitBuffer,
                         borrowing: Bool) -> FrameRecord.Reason? {
        var damage: FrameRecord.Reason?
        var first = true
        let read = header.forEachElement(data) { element, last in
            defer { first = false }
            let continues = last && header.continuesInNextPacket
            if first && header.continuesOBU {
                // The continuation of an OBU whose start was lost is nothing to read.
                guard inFragment else {
                    damage = .missingFragmentStart
                    return
                }
                addFragment(element, to: bytes, borrowing: borrowing)
                if continues { return }
                if !endFragments(to: bytes) { damage = damage ?? .missingPackets }
            } else {
                if inFragment { damage = .unfinishedFragment }
                inFragment = continues
                if continues {
                    beginFragments(element, to: bytes, borrowing: borrowing)
                    return
                }
                if !emit(element, to: bytes, borrowing: borrowing) { damage = damage ?? .missingPackets }
            }
            inFragment = false
        }
        return read ? damage : damage ?? .aggregationOverrun
    }

    /// An OBU's first fragment. Its payload goes in place, behind room for its header and the size
    /// known at its end; joined in `fragment` are those whose payload is read whole (a sequence
    /// header), or left out (a temporal delimiter, a tile list), or with a size field of their own,
    /// or whose header or payload's first byte is not all in this fragment.
    private mutating func beginFragments(_ element: UnsafeRawBufferPointer, to bytes: AccessUnitBuffer, borrowing: Bool) {
        fragment.removeAll(keepingCapacity: true)
        inPlace = nil
        guard let header = OBUHeader(element), !header.hasSizeField, element.count > header.size,
              ![OBUHeader.sequenceHeader, OBUHeader.temporalDelimiter, OBUHeader.tileList].contains(header.type) else {
            fragment.append(contentsOf: element)
            return
        }
        let payload = element.view(header.size..<element.count)
        inPlace = (bytes.reserve(2 + LEB128.maxBytes), element[0] | 0x02, header.hasExtension ? element[1] : nil, payload.count)
        bytes.append(payload, borrowing: borrowing)
        note(header, payload: payload)
    }

    private mutating func addFragment(_ element: UnsafeRawBufferPointer, to bytes: AccessUnitBuffer, borrowing: Bool) {
        guard inPlace != nil else { return fragment.append(contentsOf: element) }
        inPlace?.size += element.count
        bytes.append(element, borrowing: borrowing)
    }

    /// The OBU's last fragment came: its header and size go in the room kept, or the fragments
    /// joined are written.
    private mutating func endFragments(to bytes: AccessUnitBuffer) -> Bool {
        guard let obu = inPlace else { return fragment.withUnsafeBytes { emit($0, to: bytes, borrowing: false) } }
        inPlace = nil
        prefix.removeAll(keepingCapacity: true)
        prefix.append(obu.first)
        if let extensionByte = obu.extensionByte { prefix.append(extensionByte) }
        LEB128.append(obu.size, to: &prefix)
        prefix.withUnsafeBytes { bytes.fill(obu.room, with: $0) }
        return true
    }

    mutating func end(_ bytes: AccessUnitBuffer) -> FrameRecord.Reason? {
        defer { inFragment = false }
        if inFragment { return .unfinishedFragment }
        if !unitHasSequenceHeader, !sequenceHeader.isEmpty, isKeyframe {
            sequenceHeader.withUnsafeBytes { bytes.insert($0, at: Self.temporalDelimiter.count) }
            unitSequenceHeader = lastSequenceHeader
        }
        unitHeader = wellFormed ? AV1TemporalUnitHeader(sequenceHeader: unitSequenceHeader, frameHeader: firstFrameHeaderByte) : nil
        return nil
    }

    /// Writes `obu` with its size (an obu_size it came with decides its end); false when its
    /// header cannot be read.
    private mutating func emit(_ obu: UnsafeRawBufferPointer, to bytes: AccessUnitBuffer, borrowing: Bool) -> Bool {
        guard let header = OBUHeader(obu), let payload = header.payload(of: obu) else { return false }
        if header.type == OBUHeader.temporalDelimiter || header.type == OBUHeader.tileList { return true }
        prefix.removeAll(keepingCapacity: true)
        prefix.append(obu[0] | 0x02)
        if header.hasExtension { prefix.append(obu[1]) }
        LEB128.append(payload.count, to: &prefix)
        prefix.withUnsafeBytes { bytes.append($0, borrowing: false) }
        bytes.append(payload, borrowing: borrowing)
        note(header, payload: payload)
        return true
    }

    private mutating func note(_ header: OBUHeader, payload: UnsafeRawBufferPointer) {
        if !header.isDefined || header.setsReservedBits { wellFormed = false }
        switch header.type {
        case OBUHeader.sequenceHeader:
            unitHasSequenceHeader = true
            sequenceHeader = prefix + Array(payload)
            lastSequenceHeader = AV1SequenceHeader(payload)
            unitSequenceHeader = lastSequenceHeader
        case OBUHeader.frame, OBUHeader.frameHeader:
            if firstFrameHeaderByte == nil { firstFrameHeaderByte = payload.first }
        default:
            break
        }
    }

    /// Whether the unit's first frame header says KEY_FRAME (show_existing_frame 0, frame_type 0).
    private var isKeyframe: Bool {
        firstFrameHeaderByte.map {
            AV1FrameType.isKeyframe(firstByte: $0, reduced: lastSequenceHeader?.reducedStillPictureHeader ?? false)
        } ?? false
    }
}

/// The first bits of an uncompressed frame header (AV1 specification §5.9.2).
enum AV1FrameType {
    /// With a reduced still picture header every frame is a keyframe; else show_existing_frame (1)
    /// is 0 and frame_type (2) is KEY_FRAME (0).
    static func isKeyframe(firstByte: UInt8, reduced: Bool) -> Bool {
        reduced || firstByte & 0xE0 == 0
    }
}
