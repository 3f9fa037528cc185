/// The RIFF/WAVE header (Microsoft RIFF, "WAVE" form): `fmt ` (WAVEFORMATEX), `fact` for the
/// non-PCM formats, then `data`. Sizes unknown while the file is written are 0xFFFFFFFF, which
/// readers take as "to the end"; a seekable file gets the true ones at the end.
struct WAVHeader {
    enum FormatTag: UInt16 {
        case pcm = 1
        case alaw = 6
        case mulaw = 7
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
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian) { out.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: v).littleEndian) { out.append(contentsOf: $0) } }
        let unknown = 0xFFFF_FFFF
        let blockAlign = channels * bitsPerSample / 8
        out += Array("RIFF".utf8)
        u32(dataBytes.map { size - 8 + $0 + ($0 & 1) } ?? unknown)
        out += Array("WAVEfmt ".utf8)
        u32(format == .pcm ? 16 : 18)
        u16(Int(format.rawValue))
        u16(channels)
        u32(sampleRate)
        u32(sampleRate * blockAlign)
        u16(blockAlign)
        u16(bitsPerSample)
        if format != .pcm {
            u16(0)  // cbSize
            out += Array("fact".utf8)
            u32(4)
            u32(dataBytes.map { $0 / max(1, blockAlign) } ?? unknown)
        }
        out += Array("data".utf8)
        u32(dataBytes ?? unknown)
        return out
    }
}
