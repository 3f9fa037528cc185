import CFFmpeg

/// libavcodec's audio decoders (AAC, MP3, G.711, G.722, Opus), fed one frame at a time, giving
/// interleaved signed 16-bit samples whatever the decoder's own sample format.
public final class AudioDecoder {
    public enum Codec: Sendable {
        case aac, mp2, mp3, pcmMuLaw, pcmALaw, g722, opus

        var id: AVCodecID {
            switch self {
            case .aac: AV_CODEC_ID_AAC
            case .mp2: AV_CODEC_ID_MP2
            case .mp3: AV_CODEC_ID_MP3
            case .pcmMuLaw: AV_CODEC_ID_PCM_MULAW
            case .pcmALaw: AV_CODEC_ID_PCM_ALAW
            case .g722: AV_CODEC_ID_ADPCM_G722
            case .opus: AV_CODEC_ID_OPUS
            }
        }
    }

    private let context: UnsafeMutablePointer<AVCodecContext>
    private var packet: UnsafeMutablePointer<AVPacket>
    private var frame: UnsafeMutablePointer<AVFrame>
    private var samples: [Int16] = []
    public private(set) var decodeErrors = 0

    /// `config`: the codec's extradata (AAC's AudioSpecificConfig); `sampleRate` and `channels` are
    /// what the stream says, which decoders without extradata need (G.711, G.722).
    public init(codec: Codec, sampleRate: Int, channels: Int, config: [UInt8] = []) throws {
        try H264Decoder.loadLibraries()
        guard let decoder = avcodec_find_decoder(codec.id) else { throw FFmpegError("avcodec_find_decoder", rtprecv_averror(ENOSYS)) }
        guard let context = avcodec_alloc_context3(decoder) else { throw FFmpegError("avcodec_alloc_context3", rtprecv_averror(ENOMEM)) }
        self.context = context
        context.pointee.sample_rate = Int32(sampleRate)
        av_channel_layout_default(&context.pointee.ch_layout, Int32(max(1, channels)))
        if !config.isEmpty, let extradata = av_mallocz(config.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) {
            extradata.copyMemory(from: config, byteCount: config.count)
            context.pointee.extradata = extradata.assumingMemoryBound(to: UInt8.self)
            context.pointee.extradata_size = Int32(config.count)
        }
        packet = av_packet_alloc()
        frame = av_frame_alloc()
        let status = avcodec_open2(context, decoder, nil)
        guard status >= 0 else { throw FFmpegError("avcodec_open2", status) }
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
    }

    /// Decodes one frame's bytes; `body` gets the samples that came out (interleaved, 16-bit), with
    /// their rate and channel count. A decoding error is counted, not thrown.
    public func decode(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeBufferPointer<Int16>, Int, Int) throws -> Void) throws {
        packet.pointee.data = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        packet.pointee.size = Int32(bytes.count)
        while true {
            let status = avcodec_send_packet(context, packet)
            if status == FFmpegError.again {
                try receive(body)
                continue
            }
            if status < 0 { decodeErrors += 1 }
            break
        }
        try receive(body)
    }

    public func flush(_ body: (UnsafeBufferPointer<Int16>, Int, Int) throws -> Void) throws {
        _ = avcodec_send_packet(context, nil)
        try receive(body)
    }

    private func receive(_ body: (UnsafeBufferPointer<Int16>, Int, Int) throws -> Void) throws {
        while true {
            let status = avcodec_receive_frame(context, frame)
            if status == FFmpegError.again || status == FFmpegError.endOfFile { return }
            if status < 0 {
                decodeErrors += 1
                return
            }
            defer { av_frame_unref(frame) }
            let channels = Int(frame.pointee.ch_layout.nb_channels), count = Int(frame.pointee.nb_samples)
            guard channels > 0, count > 0, convert(channels: channels, count: count) else {
                decodeErrors += 1
                continue
            }
            try samples.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<channels * count]),
                                                          Int(frame.pointee.sample_rate), channels) }
        }
    }

    /// The frame's samples, interleaved into `samples` as 16-bit integers.
    private func convert(channels: Int, count: Int) -> Bool {
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
