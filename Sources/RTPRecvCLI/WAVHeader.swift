import RTPCore
import SystemIO

/// The RIFF/WAVE header (Microsoft RIFF, "WAVE" form): `fmt ` (WAVEFORMATEX), `fact` for the
/// non-PCM formats, then `data`. Sizes unknown while the file is written are 0xFFFFFFFF, which
/// readers take as "to the end", and the `fact` sample count 0, which they ignore (0xFFFFFFFF there
/// claims 149 hours of G.711); a seekable file gets the true ones as it grows (`WAVHeaderKeeper`).
struct WAVHeader {
    enum FormatTag: UInt16 {
        case pcm = 1
        case alaw = 6
        case mulaw = 7
        /// G.722: 4 bits a sample at 16 kHz, as FFmpeg and Windows read it.
        case g722 = 0x028F
        /// G.726, its codes packed from each octet's most significant bit (as AAL2's are).
        case g726 = 0x0045
    }

    var format: FormatTag
    var channels: Int
    var sampleRate: Int
    var bitsPerSample: Int

    /// Bytes before the samples.
    var size: Int { format == .pcm ? 44 : 58 }

    /// The header for `dataBytes` of samples (nil: not known yet).
    func bytes(dataBytes: Int?) -> [UInt8] {
        var out: [UInt8] = []
        func u32(_ v: Int) { out.appendLittleEndian(UInt32(truncatingIfNeeded: v)) }
        func u16(_ v: Int) { out.appendLittleEndian(UInt16(truncatingIfNeeded: v)) }
        let unknown = 0xFFFF_FFFF
        let blockAlign = max(1, channels * bitsPerSample / 8)
        out += Array("RIFF".utf8)
        u32(dataBytes.map { size - 8 + $0 + ($0 & 1) } ?? unknown)
        out += Array("WAVEfmt ".utf8)
        u32(format == .pcm ? 16 : 18)
        u16(Int(format.rawValue))
        u16(channels)
        u32(sampleRate)
        u32(sampleRate * channels * bitsPerSample / 8)
        u16(blockAlign)
        u16(bitsPerSample)
        if format != .pcm {
            u16(0)  // cbSize
            out += Array("fact".utf8)
            u32(4)
            u32(dataBytes.map { $0 * 8 / max(1, channels * bitsPerSample) } ?? 0)
        }
        out += Array("data".utf8)
        u32(dataBytes ?? unknown)
        return out
    }
}

/// Keeps a WAV's header true on disk while its samples are written: patched, when the file can
/// seek, at most once a second while the data grows (as it is written, and on the live loop's
/// ticks once it stops), and at the end; so a run killed at any point leaves a WAV of its length
/// to within a second.
struct WAVHeaderKeeper {
    let header: WAVHeader
    private(set) var dataBytes = 0
    private var patchedBytes = 0
    private var patchedAt: Int64

    /// Writes `header`, sizes unknown, at the start of `file`.
    init(_ header: WAVHeader, file: OutputFile) throws {
        self.header = header
        patchedAt = Terminal.monotonicNanoseconds()
        try header.bytes(dataBytes: nil).withUnsafeBytes { try file.write($0) }
    }

    /// `count` more bytes of samples were written.
    mutating func wrote(_ count: Int, to file: OutputFile) throws {
        dataBytes += count
        try tick(file)
    }

    /// Patches the header if the data grew since it was, and a second has passed.
    mutating func tick(_ file: OutputFile) throws {
        guard dataBytes != patchedBytes, file.isSeekable else { return }
        let now = Terminal.monotonicNanoseconds()
        guard now - patchedAt >= 1_000_000_000 else { return }
        (patchedAt, patchedBytes) = (now, dataBytes)
        try file.write(header.bytes(dataBytes: dataBytes), at: 0)
    }

    /// The true sizes, with RIFF's pad byte after an odd-sized data chunk.
    func finish(_ file: OutputFile) throws {
        guard file.isSeekable else { return }
        if dataBytes & 1 == 1 { try file.write([0], at: header.size + dataBytes) }
        try file.write(header.bytes(dataBytes: dataBytes), at: 0)
    }
}
