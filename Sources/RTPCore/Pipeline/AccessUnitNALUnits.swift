/// An access unit of NAL units walked by where the receiver said they lie, and copied as MP4 and
/// Matroska keep their samples (ISO/IEC 14496-15): each unit behind its length in four bytes rather
/// than a start code, the parameter sets also kept apart in the track
/// (`VideoTrack.decoderConfigurationRecord`).
extension AccessUnit {
    /// Its bytes in that form, into `out` (emptied first). Where the receiver said where its NAL
    /// units lie (`nalUnitOffsets`), each 4-byte start code is overwritten with the unit's length;
    /// a unit made by hand has its start codes looked for.
    public func copyLengthPrefixed(into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        for piece in pieces { out.append(contentsOf: piece) }
        guard Self.startCodes(at: nalUnitOffsets, in: out) else { return Self.lengthPrefixByScanning(&out) }
        out.withUnsafeMutableBytes { bytes in
            for unit in nalUnitRanges(in: bytes.count) {
                bytes.storeBytes(of: UInt32(truncatingIfNeeded: unit.count - 4).bigEndian, toByteOffset: unit.lowerBound, as: UInt32.self)
            }
        }
    }

    /// Calls `body` with each of its NAL units (without their start codes) in one piece, found by the
    /// receiver's offsets or, in a unit made by hand, by its start codes; `scratch` gathers the
    /// unit when it is in several pieces.
    public func forEachNALUnit(scratch: inout [UInt8], _ body: (UnsafeRawBufferPointer) -> Void) {
        withContiguousBytes(scratch: &scratch) { bytes in
            guard Self.startCodes(at: nalUnitOffsets, in: bytes) else { return AnnexB.forEachNALUnit(bytes, body) }
            for unit in nalUnitRanges(in: bytes.count) where unit.count > 4 {
                body(bytes.view(unit.lowerBound + 4..<unit.upperBound))
            }
        }
    }

    /// By `nalUnitOffsets`, the NAL units before the first for which `stop` (reading its header
    /// only) says so, each behind a 4-byte start code where `keep` takes it; nil where the unit
    /// carries no offsets or they name no start code.
    func leadingNALUnits(until stop: (UnsafeRawBufferPointer) -> Bool, _ keep: (UnsafeRawBufferPointer) -> Bool) -> [UInt8]? {
        guard nalUnitOffsets.first == 0 else { return nil }
        let count = pieces.reduce(0) { $0 + $1.count }
        var kept: [UInt8] = [], nal: [UInt8] = []
        for unit in nalUnitRanges(in: count) {
            let (start, end) = (unit.lowerBound, unit.upperBound)
            guard start + 4 <= end, end <= count else { return nil }
            if end == start + 4 { continue }
            // Its start code and header (H.265's is two bytes), then the rest if it is kept.
            nal.removeAll(keepingCapacity: true)
            append(start..<min(end, start + 6), to: &nal)
            guard nal[0] == 0, nal[1] == 0, nal[2] == 0, nal[3] == 1 else { return nil }
            if nal.withUnsafeBytes({ stop($0.view(4..<$0.count)) }) { break }
            append(start + 6..<max(end, start + 6), to: &nal)
            if nal.withUnsafeBytes({ keep($0.view(4..<$0.count)) }) { kept += nal }
        }
        return kept
    }

    /// Bytes `range` of the unit, across its pieces, appended to `out`.
    private func append(_ range: Range<Int>, to out: inout [UInt8]) {
        var at = 0
        for piece in pieces {
            defer { at += piece.count }
            let lower = max(range.lowerBound, at), upper = min(range.upperBound, at + piece.count)
            if lower < upper { out.append(contentsOf: piece.view(lower - at..<upper - at)) }
            if at + piece.count >= range.upperBound { break }
        }
    }

    /// Where each NAL unit lies by `nalUnitOffsets`, its start code included, in a unit of `count`
    /// bytes: each runs to the next, the last to the end (empty, never trapping, where the offsets
    /// go back: a unit made by hand).
    private func nalUnitRanges(in count: Int) -> some Sequence<Range<Int>> {
        let offsets = nalUnitOffsets
        return offsets.indices.lazy.map { i in offsets[i]..<max(offsets[i], i + 1 < offsets.count ? offsets[i + 1] : count) }
    }

    /// Whether `offsets` begin at 0 and each names a 4-byte start code, in order, within `bytes`.
    private static func startCodes<Bytes: RandomAccessCollection>(at offsets: UnsafeBufferPointer<Int>, in bytes: Bytes) -> Bool
        where Bytes.Element == UInt8, Bytes.Index == Int {
        guard offsets.first == 0 else { return false }
        var previous = -4
        for offset in offsets {
            guard offset >= previous + 4, offset + 4 <= bytes.count, bytes[offset] == 0, bytes[offset + 1] == 0,
                  bytes[offset + 2] == 0, bytes[offset + 3] == 1 else { return false }
            previous = offset
        }
        return true
    }

    /// The start codes of `bytes` (of 3 bytes or 4) looked for and each unit put behind its length.
    private static func lengthPrefixByScanning(_ bytes: inout [UInt8]) {
        var prefixed: [UInt8] = []
        prefixed.reserveCapacity(bytes.count + 16)
        bytes.withUnsafeBytes { annexB in
            AnnexB.forEachNALUnit(annexB) { (nal: UnsafeRawBufferPointer) -> Void in
                withUnsafeBytes(of: UInt32(truncatingIfNeeded: nal.count).bigEndian) { prefixed.append(contentsOf: $0) }
                prefixed.append(contentsOf: nal)
            }
        }
        bytes = prefixed
    }
}
