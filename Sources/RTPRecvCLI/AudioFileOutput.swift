import RTPCore
import SystemIO

/// `--audio`: the audio stream's frames in the file its codec plays from as it is: AAC as ADTS,
/// MPEG audio as its own frames (.mp3), G.711 as WAV with the A-law or μ-law format tag, G.722 as
/// WAV with its own, Opus in Ogg (.opus). Frames are written bit-exact; a lost one leaves a gap
/// (counted in the statistics), never invented samples.
/// A silence the sender sent as comfort noise keeps G.711's timeline: it is written as the codec's
/// zero sample for its length, and counted.
final class AudioFileOutput {
    private let file: OutputFile
    private let quiet: Bool
    /// The track of the first frame: the file holds that codec only.
    private(set) var track: AudioTrack?
    private var wav: WAVHeaderKeeper?
    private var ogg: OggOpusWriter?
    private(set) var framesWritten = 0
    private(set) var bytesWritten = 0
    /// Frames of another codec (after an SSRC change), or that the file format cannot carry.
    private(set) var framesSkipped = 0
    /// Silences sent as comfort noise, kept as G.711 silence.
    private(set) var silencesKept = 0

    /// Every count of the file, declared once: the report, the JSON and the metrics read this.
    var counts: [Count] {
        [Count(name: "frames_written", help: "audio frames written", value: framesWritten),
         Count(name: "bytes", help: "bytes written", value: bytesWritten),
         Count(name: "frames_skipped", help: "audio frames the file cannot hold, skipped", value: framesSkipped),
         Count(name: "silences_kept", help: "comfort-noise silences kept as silence", value: silencesKept)]
    }

    init(file: OutputFile, quiet: Bool) {
        self.file = file
        self.quiet = quiet
    }

    /// Why `track` cannot go into an audio file, if it cannot.
    static func unsupported(_ track: AudioTrack) -> String? {
        guard case .aac(let config) = track.codec else { return nil }
        return ADTSHeader.unsupported(config)
    }

    func write(_ frame: AudioFrame) throws {
        if track == nil {
            if let reason = AudioFileOutput.unsupported(frame.track) {
                framesSkipped += 1
                if framesSkipped == 1 && !quiet { Terminal.printError("warning: \(file.displayName): \(reason); nothing written\n") }
                return
            }
            track = frame.track
            try start(frame.track)
        }
        guard frame.track.codec == track!.codec else {
            framesSkipped += 1
            if framesSkipped == 1 && !quiet {
                Terminal.printError("warning: \(file.displayName): the audio changed to \(frame.track.description); "
                                    + "only the first codec (\(track!.description)) is written\n")
            }
            return
        }
        if let ogg {
            try ogg.write(frame)
            (framesWritten, bytesWritten) = (framesWritten + 1, ogg.size)
            return
        }
        if case .aac(let config) = frame.track.codec {
            guard frame.bytes.count <= ADTSHeader.maxAccessUnitBytes else {
                framesSkipped += 1
                return
            }
            var header = ADTSHeader.bytes(for: config, accessUnitBytes: frame.bytes.count)
            try withUnsafeBytes(of: &header) { try file.write($0) }
            bytesWritten += ADTSHeader.size
        }
        if frame.gapBefore > 0, frame.comfortNoiseLevel != nil, frame.track.codec == .pcmu || frame.track.codec == .pcma {
            try keepSilence(ticks: frame.gapBefore, of: frame.track)
        }
        try file.write(frame.bytes)
        bytesWritten += frame.bytes.count
        framesWritten += 1
        try wav?.wrote(frame.bytes.count, to: file)
    }

    /// G.711's zero sample (μ-law 0xFF, A-law 0xD5) for the silence, one byte a sample, a second at
    /// a time, for at most as long as the WAV fills (`WAVOutput.maxFillSeconds`).
    private func keepSilence(ticks: Int64, of track: AudioTrack) throws {
        let channels = max(1, track.channels), rate = max(1, track.clockRate)
        let silence = [UInt8](repeating: track.codec == .pcmu ? 0xFF : 0xD5, count: rate * channels)
        // bounded: a clock rate, at most 2^32, and an hour's worth
        var left = min(ticks, WAVOutput.maxFillSeconds * Int64(rate)) * Int64(channels)
        while left > 0 {
            let count = Int(min(left, Int64(silence.count)))  // bounded: at most a second's bytes
            try silence.withUnsafeBytes { try file.write(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            bytesWritten += count
            try wav?.wrote(count, to: file)
            left -= Int64(count)
        }
        silencesKept += 1
    }

    private func start(_ track: AudioTrack) throws {
        switch track.codec {
        case .pcmu, .pcma:
            wav = try WAVHeaderKeeper(WAVHeader(format: track.codec == .pcmu ? .mulaw : .alaw, channels: max(1, track.channels),
                                                sampleRate: track.sampleRate, bitsPerSample: 8), file: file)
        case .g722:
            wav = try WAVHeaderKeeper(WAVHeader(format: .g722, channels: max(1, track.channels), sampleRate: track.sampleRate,
                                                bitsPerSample: 4), file: file)
        case .opus:
            ogg = try OggOpusWriter(track, file: file)
        default:
            break
        }
    }

    /// Live, between packets: a WAV's header caught up with what was written.
    func tick() throws { try wav?.tick(file) }

    func finish() throws {
        try ogg?.finish()
        try wav?.finish(file)
        try file.close()
    }
}
