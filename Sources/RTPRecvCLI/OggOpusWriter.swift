import FFmpeg
import RTPCore
import SystemIO

/// `--audio` of Opus: its packets, bit-exact, in an Ogg file (RFC 7845, the .opus players open)
/// through libavformat's muxer, which writes the identification and comment headers and each
/// page's granule position from the times. What the stream did not carry (packets lost, a silence
/// the sender left) is filled with packets that ask the player to conceal it (RFC 7845 §4.1), so
/// that the file plays for as long as the call lasted, every packet in its place.
final class OggOpusWriter {
    private let muxer: MediaMuxer
    /// Where the next packet begins, in samples at 48 kHz from the first: the sum of the packets'
    /// lengths, so that a page's granule position counts the samples up to its end (RFC 7845 §4)
    /// however the sender's timestamps wobble or jump.
    private var next: Int64 = 0
    /// What the stream did not carry, to conceal.
    private var gaps = OpusGapFiller()

    init(_ track: AudioTrack, file: OutputFile) throws {
        // Ogg never goes back: nothing is overwritten. Bit-exact: the stream's serial number is
        // otherwise random, and one capture would make a different file each time.
        muxer = try MediaMuxer(format: "ogg", seekable: false, bitExact: true, append: { try file.write($0) }, overwrite: { _, _ in })
        _ = try muxer.add(MediaMuxer.Track(audio: "opus", sampleRate: 48000, channels: min(max(track.channels, 1), 2),
                                           extradata: track.configuration))
        try muxer.begin(options: [])
    }

    /// The file's size so far.
    var size: Int { muxer.size }

    /// The packet, after packets concealing what the stream did not carry before it; the
    /// milliseconds concealed.
    func write(_ frame: AudioFrame) throws -> Int64 {
        let gap = gaps.gap(before: frame)
        if let gap { try OpusGapPackets.forEach(lasting: gap.samples, after: gap.after) { try put($0, samples: $1) } }
        try put(frame.bytes, samples: OpusPayload.samples(frame.bytes) ?? 0)
        return Int64((gap?.samples ?? 0) / 48)
    }

    private func put(_ packet: UnsafeRawBufferPointer, samples: Int) throws {
        try muxer.write(0, packet, pts: next, dts: next, duration: Int64(samples), keyframe: true)
        next += Int64(samples)
    }

    func finish() throws { try muxer.finish() }
}
