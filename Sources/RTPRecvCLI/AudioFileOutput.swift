import RTPCore
import SystemIO

/// `--audio`: the audio stream's frames in the file its codec plays from as it is: AAC as ADTS,
/// MPEG audio as its own frames (.mp3), G.711 as WAV with the A-law or μ-law format tag, G.722 as
/// WAV with its own, G.726 as WAV with its own (codes packed from each octet's top, as WAV has
/// them), Opus in Ogg (.opus), L16 and L24 as 16- and 24-bit PCM WAV (their samples turned
/// little-endian, as WAV has them). Frames are written bit-exact; a lost one leaves a gap
/// (counted in the statistics), never invented samples.
/// A silence the sender left (with comfort noise or none, no packet missing) keeps G.711's and
/// linear PCM's timeline: it is written as the codec's zero sample for its length, and counted.
/// Opus keeps its timeline through silences and losses alike, with packets that ask the player to
/// conceal them (RFC 7845 §4.1).
final class AudioFileOutput {
    private let file: OutputFile
    private let quiet: Bool
    /// The track of the first frame: the file holds that codec only.
    private(set) var track: AudioTrack?
    private var wav: WAVHeaderKeeper?
    private var ogg: OggOpusWriter?
    /// A linear PCM frame's samples turned little-endian, or a G.726 frame's codes packed from the top.
    private var swapped: [UInt8] = []
    private(set) var framesWritten = 0
    private(set) var bytesWritten = 0
    /// Frames of another codec (after an SSRC change), or that the file format cannot carry.
    private(set) var framesSkipped = 0
    /// Silences the sender left, kept as the codec's silence (Opus: concealed).
    private(set) var silencesKept = 0
    /// Opus: losses concealed, and how long the concealment of losses and silences lasts.
    private(set) var lossesConcealed = 0
    private(set) var concealedMilliseconds: Int64 = 0

    /// Every count of the file, declared once: the report, the JSON and the metrics read this.
    var counts: [Count] {
        [Count(name: "frames_written", help: "audio frames written", value: framesWritten),
         Count(name: "bytes", help: "bytes written", value: bytesWritten),
         Count(name: "frames_skipped", help: "audio frames the file cannot hold, skipped", value: framesSkipped),
         Count(name: "silences_kept", help: "silences the sender left (comfort noise, or no packet missing) kept as silence", value: silencesKept),
         Count(name: "losses_concealed", help: "losses an Opus file marks for the player to conceal", value: lossesConcealed),
         Count(name: "concealed_ms", help: "Opus concealment written for losses and silences", value: Int(clamping: concealedMilliseconds))]
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
            let concealed = try ogg.write(frame)
            if concealed > 0 {
                if frame.senderWasSilent { silencesKept += 1 } else { lossesConcealed += 1 }
                concealedMilliseconds += concealed
            }
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
        if frame.gapBefore > 0, frame.senderWasSilent, let zero = Self.zeroSample(frame.track.codec) {
            try keepSilence(ticks: frame.gapBefore, of: frame.track, zero: zero)
        }
        if let width = frame.track.codec.linearPCMBytes {
            Self.reverseSamples(frame.bytes, width: width, into: &swapped)
            try swapped.withUnsafeBytes { try file.write($0) }
        } else if case .g726(let bits, false) = frame.track.codec {
            Self.packFromTheTop(frame.bytes, bits: bits, into: &swapped)
            try swapped.withUnsafeBytes { try file.write($0) }
        } else {
            try file.write(frame.bytes)
        }
        bytesWritten += frame.bytes.count
        framesWritten += 1
        try wav?.wrote(frame.bytes.count, to: file)
    }

    /// The byte of a silent sample, for the codecs whose silences are kept: G.711 (μ-law 0xFF,
    /// A-law 0xD5) and linear PCM (every byte 0).
    private static func zeroSample(_ codec: AudioCodec) -> UInt8? {
        switch codec {
        case .pcmu: 0xFF
        case .pcma: 0xD5
        case .l16, .l24: 0
        default: nil
        }
    }

    /// G.726 codes of `bits` bits packed from each octet's least significant bit (RFC 3551), packed
    /// again from its most into `out` (reused), as WAV's G.726 has them: the same codes.
    private static func packFromTheTop(_ bytes: UnsafeRawBufferPointer, bits: Int, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        let mask = UInt32(1) << bits - 1
        var (input, inputBits, output, outputBits) = (UInt32(0), 0, UInt32(0), 0)
        for byte in bytes {
            input |= UInt32(byte) << inputBits
            inputBits += 8
            while inputBits >= bits {
                output = output << bits | input & mask
                (input, inputBits, outputBits) = (input >> bits, inputBits - bits, outputBits + bits)
                if outputBits >= 8 {
                    outputBits -= 8
                    out.append(UInt8(truncatingIfNeeded: output >> outputBits))
                    output &= UInt32(1) << outputBits - 1
                }
            }
        }
    }

    /// Big-endian samples of `width` bytes, each reversed into `out` (reused).
    private static func reverseSamples(_ bytes: UnsafeRawBufferPointer, width: Int, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        var at = 0
        while at + width <= bytes.count {
            for i in stride(from: at + width - 1, through: at, by: -1) { out.append(bytes[i]) }
            at += width
        }
    }

    /// The codec's zero sample for the silence, a second at a time, for at most as long as the WAV
    /// fills (`WAVOutput.maxFillSeconds`).
    private func keepSilence(ticks: Int64, of track: AudioTrack, zero: UInt8) throws {
        let tick = max(1, track.channels) * (track.codec.linearPCMBytes ?? 1), rate = max(1, track.clockRate)
        let silence = [UInt8](repeating: zero, count: rate * tick)
        // bounded: a clock rate, at most 2^32, and an hour's worth
        var left = min(ticks, WAVOutput.maxFillSeconds * Int64(rate)) * Int64(tick)
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
        case .g726(let bits, _):
            wav = try WAVHeaderKeeper(WAVHeader(format: .g726, channels: 1, sampleRate: track.sampleRate, bitsPerSample: bits), file: file)
        case .l16, .l24:
            wav = try WAVHeaderKeeper(WAVHeader(format: .pcm, channels: max(1, track.channels), sampleRate: track.sampleRate,
                                                bitsPerSample: 8 * (track.codec.linearPCMBytes ?? 2)), file: file)
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
