import CFFmpeg

/// libavcodec's audio decoders (AAC, MP3, G.711, G.722, Opus, linear PCM), fed one frame at a time, giving
/// interleaved signed 16-bit samples whatever the decoder's own sample format.
public final class AudioDecoder {
    public enum Codec: Sendable {
        case aac, mp2, mp3, pcmMuLaw, pcmALaw, g722, opus, pcmS16BE, pcmS24BE
        /// G.726 packed from each octet's most significant bit (AAL2), and from its least (RFC 3551).
        case g726, g726LE

        var id: AVCodecID {
            switch self {
            case .aac: AV_CODEC_ID_AAC
            case .mp2: AV_CODEC_ID_MP2
            case .mp3: AV_CODEC_ID_MP3
            case .pcmMuLaw: AV_CODEC_ID_PCM_MULAW
            case .pcmALaw: AV_CODEC_ID_PCM_ALAW
            case .g722: AV_CODEC_ID_ADPCM_G722
            case .opus: AV_CODEC_ID_OPUS
            case .pcmS16BE: AV_CODEC_ID_PCM_S16BE
            case .pcmS24BE: AV_CODEC_ID_PCM_S24BE
            case .g726: AV_CODEC_ID_ADPCM_G726
            case .g726LE: AV_CODEC_ID_ADPCM_G726LE
            }
        }
    }

    private let decoder: DecoderContext
    private var samples: [Int16] = []
    public var decodeErrors: Int { decoder.decodeErrors }

    /// `config`: the codec's extradata (AAC's AudioSpecificConfig); `sampleRate` and `channels` are
    /// what the stream says, which decoders without extradata need (G.711, G.722), and G.726 its
    /// `bitsPerSample`.
    public init(codec: Codec, sampleRate: Int, channels: Int, config: [UInt8] = [], bitsPerSample: Int = 0) throws {
        decoder = try DecoderContext(codec.id) { context in
            context.pointee.sample_rate = Int32(sampleRate)
            context.pointee.bits_per_coded_sample = Int32(bitsPerSample)
            av_channel_layout_default(&context.pointee.ch_layout, Int32(max(1, channels)))
            if !config.isEmpty, let extradata = av_mallocz(config.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) {
                extradata.copyMemory(from: config, byteCount: config.count)
                context.pointee.extradata = extradata.assumingMemoryBound(to: UInt8.self)
                context.pointee.extradata_size = Int32(config.count)
            }
        }
    }

    /// Decodes one frame's bytes; `body` gets the samples that came out (interleaved, 16-bit), with
    /// their rate and channel count. A decoding error is counted, not thrown.
    public func decode(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeBufferPointer<Int16>, Int, Int) throws -> Void) throws {
        try decoder.decode(bytes, pts: Int64.min) { try take($0, body) }
    }

    public func flush(_ body: (UnsafeBufferPointer<Int16>, Int, Int) throws -> Void) throws {
        try decoder.flush { try take($0, body) }
    }

    private func take(_ frame: UnsafeMutablePointer<AVFrame>, _ body: (UnsafeBufferPointer<Int16>, Int, Int) throws -> Void) throws {
        let channels = Int(frame.pointee.ch_layout.nb_channels), count = Int(frame.pointee.nb_samples)
        guard channels > 0, count > 0, convert(frame, channels: channels, count: count) else {
            decoder.countError()
            return
        }
        try samples.withUnsafeBufferPointer {
            try body(UnsafeBufferPointer(rebasing: $0[0..<channels * count]), Int(frame.pointee.sample_rate), channels)
        }
    }

    /// The frame's samples, interleaved into `samples` as 16-bit integers.
    private func convert(_ frame: UnsafeMutablePointer<AVFrame>, channels: Int, count: Int) -> Bool {
        if samples.count < channels * count { samples = Array(repeating: 0, count: channels * count) }
        let format = AVSampleFormat(frame.pointee.format)
        let planar = [AV_SAMPLE_FMT_U8P, AV_SAMPLE_FMT_S16P, AV_SAMPLE_FMT_S32P, AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_DBLP].contains(format)
        func plane(_ c: Int) -> UnsafeMutablePointer<UInt8>? {
            planar ? frame.pointee.extended_data[c] : frame.pointee.extended_data[0]
        }
        for c in 0..<channels {
            guard let data = plane(c) else { return false }
            for i in 0..<count {
                let at = planar ? i : i * channels + c
                let value: Int16
                switch format {
                case AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P:
                    value = data.withMemoryRebound(to: Int16.self, capacity: at + 1) { $0[at] }
                case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P:
                    value = Int16(truncatingIfNeeded: data.withMemoryRebound(to: Int32.self, capacity: at + 1) { $0[at] } >> 16)
                case AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP:
                    value = sixteenBits(Double(data.withMemoryRebound(to: Float.self, capacity: at + 1) { $0[at] }))
                case AV_SAMPLE_FMT_DBL, AV_SAMPLE_FMT_DBLP:
                    value = sixteenBits(data.withMemoryRebound(to: Double.self, capacity: at + 1) { $0[at] })
                case AV_SAMPLE_FMT_U8, AV_SAMPLE_FMT_U8P:
                    value = (Int16(data[at]) - 128) << 8
                default:
                    return false
                }
                samples[i * channels + c] = value
            }
        }
        return true
    }
}

/// A float sample (full scale ±1) as 16 bits, clipped; NaN is silence.
private func sixteenBits(_ x: Double) -> Int16 {
    guard x.isFinite else { return 0 }
    return Int16((min(max(x, -1), 1) * 32767).rounded())
}
