import RTPCore

/// The classic pcap format: a 24-byte file header, then records of a 16-byte header and the captured
/// bytes. Either byte order; micro- or nanosecond timestamps. Records are read in place from
/// whatever window of the file is in memory.
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

    let swapped: Bool
    let nanoseconds: Bool
    let snaplen: Int
    let linkType: Int

    /// Nil unless `header` starts with a classic pcap file header.
    init?(header: UnsafeRawBufferPointer) {
        guard header.count >= Self.fileHeaderSize else { return nil }
        switch header.loadUnaligned(as: UInt32.self) {
        case Self.microsecondMagic: (swapped, nanoseconds) = (false, false)
        case Self.nanosecondMagic: (swapped, nanoseconds) = (false, true)
        case Self.microsecondMagic.byteSwapped: (swapped, nanoseconds) = (true, false)
        case Self.nanosecondMagic.byteSwapped: (swapped, nanoseconds) = (true, true)
        default: return nil
        }
        let s = swapped
        func u32(_ at: Int) -> UInt32 {
            let v = header.loadUnaligned(fromByteOffset: at, as: UInt32.self)
            return s ? v.byteSwapped : v
        }
        snaplen = Int(u32(16))
        // The upper bits of the link-type field carry FCS information.
        linkType = Int(u32(20) & 0x0FFF_FFFF)
    }

    /// The record at `offset` in `window`.
    @inline(__always)
    func step(_ window: UnsafeRawBufferPointer, at offset: Int) -> RecordStep {
        // Offsets within the window, 32-bit fields: wrapping arithmetic cannot wrap.
        guard offset &+ Self.recordHeaderSize <= window.count else {
            return .needsMore(at: offset, bytes: Self.recordHeaderSize, shortfall: .recordHeaderCutShort)
        }
        @inline(__always) func u32(_ at: Int) -> UInt32 {
            let v = window.loadUnaligned(fromByteOffset: at, as: UInt32.self)
            return swapped ? v.byteSwapped : v
        }
        let seconds = Int64(u32(offset)), fraction = Int64(u32(offset &+ 4))
        let captured = Int(u32(offset &+ 8)), original = Int(u32(offset &+ 12))
        guard captured <= max(snaplen, 262_144), captured <= Self.maxRecordLength else {
            return .failed(at: offset, problem: .recordOverSnaplen(length: captured, snaplen: snaplen))
        }
        let start = offset &+ Self.recordHeaderSize
        guard start &+ captured <= window.count else {
            return .needsMore(at: offset, bytes: Self.recordHeaderSize + captured,
                              shortfall: .recordCutShort(length: captured, available: window.count - start))
        }
        let time = seconds &* 1_000_000_000 &+ (nanoseconds ? fraction : fraction &* 1000)
        return .record(CaptureFile.Record(time: time, bytes: window.view(start..<start &+ captured), originalLength: original),
                       next: start &+ captured)
    }
}
