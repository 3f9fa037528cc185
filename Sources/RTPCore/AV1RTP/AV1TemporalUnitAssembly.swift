/// Temporal units from AV1 RTP payloads, in the low-overhead bitstream format a decoder and IVF
/// take (AV1 specification §5): a temporal delimiter first (RTP leaves it out), then each OBU with
/// its obu_size, fragments joined across packets. Temporal delimiters and tile lists that come are
/// dropped, as the payload specification says. The last sequence header is kept and put in front of
/// a keyframe that comes without one, as parameter sets are for H.264.
struct AV1TemporalUnitAssembly: FrameAssembly {
    /// An OBU whose fragments are still coming.
    private var fragment: [UInt8] = []
    private var inFragment = false
    /// The last sequence header OBU (with its size field), and whether this unit carried one.
    private var sequenceHeader: [UInt8] = []
    private var unitHasSequenceHeader = false
    private var reducedStillPictureHeader = false
    /// Whether the unit's first frame or frame header OBU came, and the first byte of its payload.
    private var sawFrameHeader = false
    private var firstFrameHeaderByte: UInt8?
    /// The OBU being written: its header and size field.
    private var prefix: [UInt8] = []

    static let temporalDelimiter: [UInt8] = [0x12, 0x00]

    init() {}

    mutating func begin(_ bytes: AccessUnitBuffer) {
        Self.temporalDelimiter.withUnsafeBytes { bytes.append($0, borrowing: false) }
        (inFragment, unitHasSequenceHeader, sawFrameHeader, firstFrameHeaderByte) = (false, false, false, nil)
        fragment.removeAll(keepingCapacity: true)
    }

    /// The unit is read whole for its header, so its bytes are copied (into one piece), never referred to.
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
                fragment.append(contentsOf: element)
                if continues { return }
                if !fragment.withUnsafeBytes({ emit($0, to: bytes) }) { damage = damage ?? .missingPackets }
            } else {
                if inFragment { damage = .unfinishedFragment }
                fragment.removeAll(keepingCapacity: true)
                inFragment = continues
                if continues {
                    fragment.append(contentsOf: element)
                    return
                }
                // A whole OBU in this packet: written from where it lies.
                if !emit(element, to: bytes) { damage = damage ?? .missingPackets }
            }
            inFragment = false
        }
        return read ? damage : damage ?? .aggregationOverrun
    }

    mutating func end(_ bytes: AccessUnitBuffer) -> FrameRecord.Reason? {
        defer { inFragment = false }
        if inFragment { return .unfinishedFragment }
        if !unitHasSequenceHeader, !sequenceHeader.isEmpty, isKeyframe {
            sequenceHeader.withUnsafeBytes { bytes.insert($0, at: Self.temporalDelimiter.count) }
        }
        return nil
    }

    /// Writes `obu` with its size (an obu_size it came with decides its end); false when its
    /// header cannot be read.
    private mutating func emit(_ obu: UnsafeRawBufferPointer, to bytes: AccessUnitBuffer) -> Bool {
        guard let header = OBUHeader(obu), let payload = header.payload(of: obu) else { return false }
        if header.type == OBUHeader.temporalDelimiter || header.type == OBUHeader.tileList { return true }
        prefix.removeAll(keepingCapacity: true)
        prefix.append(obu[0] | 0x02)
        if header.hasExtension { prefix.append(obu[1]) }
        LEB128.append(payload.count, to: &prefix)
        prefix.withUnsafeBytes { bytes.append($0, borrowing: false) }
        bytes.append(payload, borrowing: false)
        note(header, payload: payload)
        return true
    }

    private mutating func note(_ header: OBUHeader, payload: UnsafeRawBufferPointer) {
        switch header.type {
        case OBUHeader.sequenceHeader:
            unitHasSequenceHeader = true
            sequenceHeader = prefix + Array(payload)
            reducedStillPictureHeader = AV1SequenceHeader(payload)?.reducedStillPictureHeader ?? false
        case OBUHeader.frame, OBUHeader.frameHeader:
            if !sawFrameHeader { (sawFrameHeader, firstFrameHeaderByte) = (true, payload.first) }
        default:
            break
        }
    }

    /// Whether the unit's first frame header says KEY_FRAME (show_existing_frame 0, frame_type 0).
    private var isKeyframe: Bool {
        firstFrameHeaderByte.map { AV1FrameType.isKeyframe(firstByte: $0, reduced: reducedStillPictureHeader) } ?? false
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
