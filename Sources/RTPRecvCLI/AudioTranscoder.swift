import FFmpeg
import RTPCore

/// G.711, G.722, G.726 and linear PCM (L16, L24) made AAC where the container does not carry them
/// (MP4 and MPEG-TS none of them, Matroska G.726): decoded and encoded through libavcodec, timed on
/// the session timeline. The encoder counts samples, so a gap
/// in the input (lost packets, a sender's silence suppression) up to `maxFillNanoseconds` is filled
/// with silence to keep that count the timeline's; a longer gap, or a step back, ends the encoding
/// and begins another at the frame after it. Each encoding's first AAC frame, which holds the
/// encoder's priming before the first sample, is left out: the rest then sit at their own times,
/// in sync with the video, and a player's decoder starts at the next frame as it would after a seek.
final class AudioTranscoder {
    /// The codec taken in, and the track given out.
    let source: AudioCodec
    let track: AudioTrack
    private let decoder: AudioDecoder
    private var encoder: AudioEncoder?
    /// The timeline time of the encoding's first sample (nil before one), and the samples (a channel) given it since.
    private var start: Int64?
    private var given: Int64 = 0
    private var silence: [Int16] = []

    static let maxFillNanoseconds: Int64 = 10_000_000_000
    /// Four bits a sample: 32 kbit/s for G.711's 8 kHz, 64 kbit/s for G.722's 16 kHz, where AAC-LC
    /// is transparent for speech (the encoder takes at most six), 192 kbit/s a channel at 48 kHz.
    let bitRate: Int

    /// G.711, G.722, G.726, L16 or L24, mono or stereo (an SDP may say any channel count; a call has one).
    static func transcodes(_ track: AudioTrack) -> Bool {
        switch track.codec {
        case .pcmu, .pcma, .g722, .l16, .l24, .g726: (1...2).contains(track.channels)
        default: false
        }
    }

    init(from input: AudioTrack) throws {
        source = input.codec
        let channels = max(1, input.channels)
        decoder = try AudioWAV.decoder(for: input)
        bitRate = 4 * input.sampleRate * channels
        let first = try AudioEncoder(sampleRate: input.sampleRate, channels: channels, bitRate: bitRate)
        let config = try AudioSpecificConfig(bytes: first.extradata)
        track = AudioTrack(codec: .aac(config), clockRate: input.sampleRate, sampleRate: input.sampleRate, channels: channels)
        encoder = first
    }

    /// `bytes`, one frame of the source at `time`; `body` gets each AAC frame that came out, with
    /// its time and duration in nanoseconds.
    func transcode(_ bytes: UnsafeRawBufferPointer, at time: Int64, _ body: (UnsafeRawBufferPointer, Int64, Int64) throws -> Void) throws {
        try decoder.decode(bytes) { samples, rate, channels in
            guard rate > 0, channels == track.channels else { return }
            if let start {
                let gap = time &- (start &+ ClockTicks.nanoseconds(given, clockRate: rate))
                if gap > Self.maxFillNanoseconds || gap < -Self.maxFillNanoseconds / 10 {
                    try finish(body)
                } else if gap > 0 {
                    try fill(Int(gap * Int64(rate) / 1_000_000_000), channels: channels, body)
                }
            }
            if start == nil {
                encoder = try encoder ?? AudioEncoder(sampleRate: track.sampleRate, channels: track.channels, bitRate: bitRate)
                (start, given) = (time, 0)
            }
            try encode(samples, body)
        }
    }

    /// What the encoder holds, given out; the next frame begins another encoding.
    func finish(_ body: (UnsafeRawBufferPointer, Int64, Int64) throws -> Void) throws {
        guard let encoder else { return }
        try encoder.flush { try emit($0, $1, $2, body) }
        (self.encoder, start) = (nil, nil)
    }

    private func fill(_ count: Int, channels: Int, _ body: (UnsafeRawBufferPointer, Int64, Int64) throws -> Void) throws {
        guard count > 0 else { return }
        if silence.count < count * channels { silence = Array(repeating: 0, count: count * channels) }
        try silence.withUnsafeBufferPointer { try encode(UnsafeBufferPointer(rebasing: $0[0..<count * channels]), body) }
    }

    private func encode(_ samples: UnsafeBufferPointer<Int16>, _ body: (UnsafeRawBufferPointer, Int64, Int64) throws -> Void) throws {
        try encoder?.encode(samples) { try emit($0, $1, $2, body) }
        given += Int64(samples.count / track.channels)
    }

    private func emit(_ bytes: UnsafeRawBufferPointer, _ pts: Int64, _ duration: Int64, _ body: (UnsafeRawBufferPointer, Int64, Int64) throws -> Void) throws {
        guard pts >= 0, let start else { return }
        try body(bytes, start &+ ClockTicks.nanoseconds(pts, clockRate: track.sampleRate), ClockTicks.nanoseconds(duration, clockRate: track.sampleRate))
    }
}
