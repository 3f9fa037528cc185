import RTPCore

/// The classic pcap format, walked in place over a mapped file: a 24-byte file header, then records
/// of a 16-byte header and the captured bytes. Either byte order; micro- or nanosecond timestamps.
///
///     file header: magic(32) version_major(16) version_minor(16) thiszone(32) sigfigs(32) snaplen(32) network(32)
///     record:      ts_sec(32) ts_frac(32) caplen(32) len(32) data[caplen]
struct ClassicPcap {
    static let microsecondMagic: UInt32 = 0xA1B2_C3D4
    static let nanosecondMagic: UInt32 = 0xA1B2_3C4D
    static let fileHeaderSize = 24
    static let recordHeaderSize = 16
    /// Records longer than this are corrupt, whatever the header's snaplen says.
    static let maxRecordLength = 256 << 20

    let bytes: UnsafeRawBufferPointer
    let swapped: Bool
    let nanoseconds: Bool
    let snaplen: Int
    let linkType: Int
    private(set) var offset = fileHeaderSize

    /// Nil unless `bytes` starts with a classic pcap header.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.fileHeaderSize else { return nil }
        let raw = bytes.loadUnaligned(as: UInt32.self)
        switch raw {
        case Self.microsecondMagic: (swapped, nanoseconds) = (false, false)
        case Self.nanosecondMagic: (swapped, nanoseconds) = (false, true)
        case Self.microsecondMagic.byteSwapped: (swapped, nanoseconds) = (true, false)
        case Self.nanosecondMagic.byteSwapped: (swapped, nanoseconds) = (true, true)
        default: return nil
        }
        self.bytes = bytes
        let s = swapped
        func u32(_ at: Int) -> UInt32 {
            let v = bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)
            return s ? v.byteSwapped : v
        }
        snaplen = Int(u32(16))
        // The upper bits of the link-type field carry FCS information.
        linkType = Int(u32(20) & 0x0FFF_FFFF)
    }

    @inline(__always) private func u32(_ at: Int) -> UInt32 {
        let v = bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)
        return swapped ? v.byteSwapped : v
    }

    mutating func next() -> CaptureFile.Next {
        if offset == bytes.count { return .end }
        guard offset + Self.recordHeaderSize <= bytes.count else {
            return .truncated(offset: Int64(offset), message: "the record header is cut short")
        }
        let seconds = Int64(u32(offset)), fraction = Int64(u32(offset + 4))
        let captured = Int(u32(offset + 8)), original = Int(u32(offset + 12))
        guard captured <= max(snaplen, 262_144), captured <= Self.maxRecordLength else {
            return .failed(offset: Int64(offset), message: "record length \(captured) is larger than the snaplen of \(snaplen)")
        }
        let start = offset + Self.recordHeaderSize
        guard start + captured <= bytes.count else {
            return .truncated(offset: Int64(offset), message: "a \(captured)-byte record has only \(bytes.count - start) bytes")
        }
        offset = start + captured
        let time = seconds * 1_000_000_000 + (nanoseconds ? fraction : fraction * 1000)
        return .record(CaptureFile.Record(time: time, bytes: bytes.view(start..<start + captured), originalLength: original))
    }
}
