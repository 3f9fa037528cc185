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
    /// Where the unit's first frame or frame header OBU begins, and its type.
    private var firstFrameHeader: (offset: Int, headerSize: Int)?

    static let temporalDelimiter: [UInt8] = [0x12, 0x00]

    init() {}

    mutating func begin(_ bytes: inout [UInt8]) {
        bytes.append(contentsOf: Self.temporalDelimiter)
        (inFragment, unitHasSequenceHeader, firstFrameHeader) = (false, false, nil)
        fragment.removeAll(keepingCapacity: true)
    }

    mutating func append(_ data: UnsafeRawBufferPointer, of header: AV1AggregationHeader, to bytes: inout [UInt8]) -> FrameRecord.Reason? {
        var damage: FrameRecord.Reason?
        var first = true
        let read = header.forEachElement(data) { element, last in
            defer { first = false }
            if first && header.continuesOBU {
                // The continuation of an OBU whose start was lost is nothing to read.
                if inFragment { fragment.append(contentsOf: element) } else { damage = .missingFragmentStart }
            } else {
                if inFragment { damage = .unfinishedFragment }
                fragment.removeAll(keepingCapacity: true)
                fragment.append(contentsOf: element)
                inFragment = true
            }
            if last && header.continuesInNextPacket { return }
            if inFragment && !emit(&bytes) { damage = damage ?? .missingPackets }
            inFragment = false
        }
        return read ? damage : damage ?? .aggregationOverrun
    }

    mutating func end(_ bytes: inout [UInt8]) -> FrameRecord.Reason? {
        defer { inFragment = false }
        if inFragment { return .unfinishedFragment }
        if !unitHasSequenceHeader, !sequenceHeader.isEmpty, isKeyframe(bytes) {
            bytes.insert(contentsOf: sequenceHeader, at: Self.temporalDelimiter.count)
        }
        return nil
    }

    /// Writes the OBU in `fragment` with its size (an obu_size it came with decides its end);
    /// false when its header cannot be read.
    private mutating func emit(_ bytes: inout [UInt8]) -> Bool {
        fragment.withUnsafeBytes { obu -> Bool in
            guard let header = OBUHeader(obu), let payload = header.payload(of: obu) else { return false }
            if header.type == OBUHeader.temporalDelimiter || header.type == OBUHeader.tileList { return true }
            let start = bytes.count
            bytes.append(obu[0] | 0x02)
            if header.hasExtension { bytes.append(obu[1]) }
            LEB128.append(payload.count, to: &bytes)
            bytes.append(contentsOf: payload)
            note(header, payload: payload, at: start, in: bytes)
            return true
        }
    }

    private mutating func note(_ header: OBUHeader, payload: UnsafeRawBufferPointer, at start: Int, in bytes: [UInt8]) {
        switch header.type {
        case OBUHeader.sequenceHeader:
            unitHasSequenceHeader = true
            sequenceHeader = Array(bytes[start...])
            reducedStillPictureHeader = AV1SequenceHeader(payload)?.reducedStillPictureHeader ?? false
        case OBUHeader.frame, OBUHeader.frameHeader:
            if firstFrameHeader == nil { firstFrameHeader = (start, bytes.count - start - payload.count) }
        default:
            break
        }
    }

    /// Whether the unit's first frame header says KEY_FRAME (show_existing_frame 0, frame_type 0).
    private func isKeyframe(_ bytes: [UInt8]) -> Bool {
        guard let (offset, headerSize) = firstFrameHeader, offset + headerSize < bytes.count else { return false }
        return AV1FrameType.isKeyframe(firstByte: bytes[offset + headerSize], reduced: reducedStillPictureHeader)
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
