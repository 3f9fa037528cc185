import FFmpeg
import RTPCore
import SystemIO

/// `--wav`: the audio stream decoded through libavcodec into 16-bit PCM WAV, for every audio codec
/// taken (AAC, MPEG audio, G.711, G.722, G.726, Opus, L16 and L24, the last cut to its top 16
/// bits). A lost frame becomes silence of its duration, whatever the codec, so that what follows
/// stays in time. A silence the sender sent as comfort noise (RFC 3389) is filled with noise at
/// its level, and one it left with no packet missing (silence suppression, Opus's DTX) with
/// silence. All are counted.
final class WAVOutput {
    private let file: OutputFile
    private let quiet: Bool
    private var decoder: AudioDecoder?
    private(set) var track: AudioTrack?
    private var header: WAVHeaderKeeper?
    private(set) var samplesWritten = 0
    private(set) var framesDecoded = 0
    /// Frames of a second codec, or of one that would not open.
    private(set) var framesSkipped = 0
    /// Losses filled with silence, and how long the silence was.
    private(set) var gapsFilled = 0
    private(set) var silenceMilliseconds: Int64 = 0
    /// Silences sent as comfort noise, filled with noise, and how long they were.
    private(set) var comfortNoiseFilled = 0
    private(set) var comfortNoiseMilliseconds: Int64 = 0
    /// Silences the sender left, filled with silence, and how long they were.
    private(set) var silencesFilled = 0
    private(set) var silencesFilledMilliseconds: Int64 = 0
    private var silence: [Int16] = []
    private var noise: [Int16] = []

    init(file: OutputFile, quiet: Bool) {
        self.file = file
        self.quiet = quiet
    }

    var decodeErrors: Int { decoder?.decodeErrors ?? 0 }

    /// Every count of the file, declared once: the report, the JSON and the metrics read this.
    var counts: [Count] {
        [Count(name: "frames_decoded", help: "audio frames decoded", value: framesDecoded),
         Count(name: "samples", help: "samples written", value: samplesWritten),
         Count(name: "decode_errors", help: "audio frames the decoder refused", value: decodeErrors),
         Count(name: "gaps_filled_with_silence", help: "lost stretches filled with silence", value: gapsFilled),
         Count(name: "silence_ms", help: "silence written for lost stretches", value: Int(clamping: silenceMilliseconds)),
         Count(name: "comfort_noise_filled", help: "silences filled with comfort noise", value: comfortNoiseFilled),
         Count(name: "comfort_noise_ms", help: "comfort noise written", value: Int(clamping: comfortNoiseMilliseconds)),
         Count(name: "silences_filled", help: "silences the sender left (no packet missing) filled with silence", value: silencesFilled),
         Count(name: "silences_filled_ms", help: "silence written for them", value: Int(clamping: silencesFilledMilliseconds)),
         Count(name: "frames_skipped", help: "audio frames of a second codec, or of one that would not open, skipped", value: framesSkipped)]
    }

    func write(_ frame: AudioFrame) throws {
        if track == nil {
            track = frame.track
            do {
                decoder = try AudioWAV.decoder(for: frame.track)
            } catch {
                if !quiet { Terminal.printError("warning: \(file.displayName): cannot decode \(frame.track.description): \(error)\n") }
            }
        }
        guard let decoder, frame.track.codec == track!.codec else {
            framesSkipped += 1
            return
        }
        if frame.gapBefore > 0, let level = frame.comfortNoiseLevel {
            try fill(comfortNoise: level, gap: frame.gapBefore, of: frame.track)
        } else if frame.gapBefore > 0 && frame.senderWasSilent {
            try fill(silence: frame.gapBefore, of: frame.track)
        } else if frame.gapBefore > 0 {
            try fill(gap: frame.gapBefore, frameDuration: frame.duration, of: frame.track)
        }
        framesDecoded += 1
        try decoder.decode(frame.bytes) { samples, rate, channels in try put(samples, rate: rate, channels: channels) }
    }

    /// Silence as long as the lost frames: for AAC and MPEG audio a whole number of frames
    /// (senders' timestamps wobble by a few ticks), for the others every sample. The decoder goes
    /// on from the frame after as it would without it.
    private func fill(gap measured: Int64, frameDuration: Int64, of track: AudioTrack) throws {
        var gap = Self.capped(measured, of: track)
        switch track.codec {
        case .aac, .mpegAudio: if frameDuration > 0 { gap = (gap + frameDuration / 2) / frameDuration * frameDuration }
        default: break
        }
        // The buffer stays zeros: nothing but silence is written from it.
        guard try write(gap, of: track, from: &silence, { _ in }) else { return }
        gapsFilled += 1
        silenceMilliseconds += gap * 1000 / Int64(max(1, track.clockRate))
    }

    /// Silence for as long as the sender left one: nothing was lost, whatever the codec.
    private func fill(silence measured: Int64, of track: AudioTrack) throws {
        let gap = Self.capped(measured, of: track)
        guard try write(gap, of: track, from: &silence, { _ in }) else { return }
        silencesFilled += 1
        silencesFilledMilliseconds += gap * 1000 / Int64(max(1, track.clockRate))
    }

    /// Noise at the sender's level for as long as the silence.
    private func fill(comfortNoise level: UInt8, gap measured: Int64, of track: AudioTrack) throws {
        let gap = Self.capped(measured, of: track)
        var generator = ComfortNoise(level: level)
        guard try write(gap, of: track, from: &noise, { generator.fill($0) }) else { return }
        comfortNoiseFilled += 1
        comfortNoiseMilliseconds += gap * 1000 / Int64(max(1, track.clockRate))
    }

    /// A silence filled for at most an hour (a call on hold; a capture's times may say anything),
    /// after which the file goes on as if it had been that long.
    static let maxFillSeconds: Int64 = 3600

    private static func capped(_ gap: Int64, of track: AudioTrack) -> Int64 {
        min(gap, maxFillSeconds * Int64(max(1, track.clockRate)))  // bounded: a clock rate, at most 2^32
    }

    /// `gap` ticks of `track` in the file's format, a second at a time from `buffer` (grown to a
    /// second) once `prepare` has set its samples; false before the file's format is known.
    private func write(_ gap: Int64, of track: AudioTrack, from buffer: inout [Int16],
                       _ prepare: (UnsafeMutableBufferPointer<Int16>) -> Void) throws -> Bool {
        guard let format = header?.header, gap > 0 else { return false }
        // bounded: a WAV header's rate and channels, and a gap of at most maxFillSeconds
        var left = gap.multipliedSaturated(by: Int64(format.sampleRate)) / Int64(max(1, track.clockRate)) * Int64(format.channels)
        let second = format.sampleRate * format.channels
        if buffer.count < second { buffer = Array(repeating: 0, count: second) }
        while left > 0 {
            let count = Int(min(left, Int64(second)))  // bounded: at most a second of samples
            buffer.withUnsafeMutableBufferPointer { prepare(UnsafeMutableBufferPointer(rebasing: $0[0..<count])) }
            try buffer.withUnsafeBufferPointer { try put(UnsafeBufferPointer(rebasing: $0[0..<count]), rate: format.sampleRate,
                                                         channels: format.channels) }
            left -= Int64(count)
        }
        return true
    }

    private func put(_ samples: UnsafeBufferPointer<Int16>, rate: Int, channels: Int) throws {
        if header == nil {
            header = try WAVHeaderKeeper(WAVHeader(format: .pcm, channels: channels, sampleRate: rate, bitsPerSample: 16), file: file)
        }
        // WAV is little-endian, as every machine this runs on.
        try file.write(UnsafeRawBufferPointer(samples))
        samplesWritten += samples.count
        try header!.wrote(samples.count * 2, to: file)
    }

    /// Live, between packets: the header caught up with what was written.
    func tick() throws { try header?.tick(file) }

    func finish() throws {
        try decoder?.flush { samples, rate, channels in try put(samples, rate: rate, channels: channels) }
        try header?.finish(file)
        try file.close()
    }
}

enum AudioWAV {
    /// The libavcodec decoder for a track.
    static func decoder(for track: AudioTrack) throws -> AudioDecoder {
        switch track.codec {
        case .aac(let config):
            return try AudioDecoder(codec: .aac, sampleRate: config.outputSamplingFrequency, channels: config.channels,
                                    config: config.bytes)
        case .mpegAudio:
            return try AudioDecoder(codec: track.layer == 3 ? .mp3 : .mp2, sampleRate: track.sampleRate, channels: track.channels)
        case .pcmu: return try AudioDecoder(codec: .pcmMuLaw, sampleRate: track.sampleRate, channels: track.channels)
        case .pcma: return try AudioDecoder(codec: .pcmALaw, sampleRate: track.sampleRate, channels: track.channels)
        case .g722: return try AudioDecoder(codec: .g722, sampleRate: track.sampleRate, channels: track.channels)
        case .opus: return try AudioDecoder(codec: .opus, sampleRate: 48000, channels: track.channels)
        case .l16: return try AudioDecoder(codec: .pcmS16BE, sampleRate: track.sampleRate, channels: track.channels)
        case .l24: return try AudioDecoder(codec: .pcmS24BE, sampleRate: track.sampleRate, channels: track.channels)
        case .g726(let bits, let aal2):
            return try AudioDecoder(codec: aal2 ? .g726 : .g726LE, sampleRate: track.sampleRate, channels: track.channels,
                                    bitsPerSample: bits)
        }
    }
}
