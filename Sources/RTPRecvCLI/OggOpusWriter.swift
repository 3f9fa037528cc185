import FFmpeg
import RTPCore
import SystemIO

/// `--audio` of Opus: its packets, bit-exact, in an Ogg file (RFC 7845, the .opus players open)
/// through libavformat's muxer, which writes the identification and comment headers and each
/// page's granule position from the times. A lost packet leaves a gap in those times.
final class OggOpusWriter {
    private let muxer: MediaMuxer
    private var origin: Int64?

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

    func write(_ frame: AudioFrame) throws {
        let origin = origin ?? frame.pts
        self.origin = origin
        let pts = frame.pts &- origin
        try muxer.write(0, frame.bytes, pts: pts, dts: pts, duration: frame.duration, keyframe: true)
    }

    func finish() throws { try muxer.finish() }
}
