import RTPCore

/// What an Opus stream did not carry before a frame (packets lost, a silence the sender left), to
/// be written as packets that ask the player to conceal it (RFC 7845 §4.1, `OpusGapPackets`): an
/// Ogg page's granule position and an MP4 sample's duration (Opus in ISOBMFF §4.3.4) count the
/// samples its packets hold, so a gap is not the packet before's to stretch over.
struct OpusGapFiller {
    /// The TOC byte of the last packet, which the concealing packets take after.
    private var lastTOC: UInt8?

    /// The samples at 48 kHz to conceal before `frame` (to the nearest 2.5 ms, for at most
    /// `WAVOutput.maxFillSeconds`) and the TOC byte they take after; nil where nothing is missing.
    /// `frame` is then the last packet.
    mutating func gap(before frame: AudioFrame) -> (samples: Int, after: UInt8)? {
        defer { lastTOC = frame.bytes.first }
        guard frame.gapBefore > 0, let toc = lastTOC else { return nil }
        let rate = Int64(max(1, frame.track.clockRate))
        // bounded: at most an hour of a clock rate below 2^32, times 48000; an hour at 48 kHz fits an Int
        let samples = OpusGapPackets.rounded(Int(min(frame.gapBefore, WAVOutput.maxFillSeconds * rate) * 48000 / rate))
        return samples > 0 ? (samples, toc) : nil
    }
}
