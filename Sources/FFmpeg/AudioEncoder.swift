import CFFmpeg

/// libavcodec's AAC-LC encoder, fed 16-bit samples in any amount: it encodes each whole frame
/// (1024 samples a channel) as it fills, for containers that carry no G.711 or G.722 (MP4, MPEG-TS).
public final class AudioEncoder {
    private let context: UnsafeMutablePointer<AVCodecContext>
    private let frame: UnsafeMutablePointer<AVFrame>
    private let packet: UnsafeMutablePointer<AVPacket>
    private let channels: Int
    /// Samples a channel in each frame the encoder takes.
    public var frameSize: Int { Int(max(1, context.pointee.frame_size)) }
    /// The AudioSpecificConfig of what it encodes, for the container's track.
    public var extradata: [UInt8] {
        context.pointee.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(0, context.pointee.extradata_size)))) } ?? []
    }
    /// Samples waiting for a whole frame, interleaved.
    private var pending: [Float] = []
    /// Samples a channel sent so far: the next frame's time.
    private var sent: Int64 = 0

    public init(sampleRate: Int, channels: Int, bitRate: Int) throws(FFmpegError) {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_AAC) else { throw FFmpegError("avcodec_find_encoder(aac)", rtprecv_averror(ENOSYS)) }
        guard let context = avcodec_alloc_context3(codec), let frame = av_frame_alloc(), let packet = av_packet_alloc() else {
            throw FFmpegError("avcodec_alloc_context3(aac)", rtprecv_averror(ENOMEM))
        }
        (self.context, self.frame, self.packet, self.channels) = (context, frame, packet, max(1, channels))
        context.pointee.sample_rate = Int32(clamping: sampleRate)
        context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        context.pointee.bit_rate = Int64(bitRate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(clamping: sampleRate))
        av_channel_layout_default(&context.pointee.ch_layout, Int32(clamping: self.channels))
        // The config goes in the container's header (MP4's esds), not before each frame.
        context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        let status = avcodec_open2(context, codec, nil)
        guard status >= 0 else { throw FFmpegError("avcodec_open2(aac)", status) }
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
    }

    /// Takes `samples` (interleaved); `body` gets each AAC frame that came out, with its time and
    /// duration in samples a channel. The first frame's time is negative: it holds the encoder's
    /// priming (its delay) before the first sample.
    public func encode(_ samples: UnsafeBufferPointer<Int16>, _ body: (UnsafeRawBufferPointer, Int64, Int64) throws -> Void) throws {
        pending.reserveCapacity(pending.count + samples.count)
        for sample in samples { pending.append(Float(sample) / 32768) }
        let frameSize = self.frameSize, whole = frameSize * channels
        var used = 0
        while pending.count - used >= whole {
            try send(pending[used..<used + whole], count: frameSize)
            used += whole
            try receive(body)
        }
        pending.removeFirst(used)
    }

    /// The samples left (padded with silence) and the encoder's delayed frames.
    public func flush(_ body: (UnsafeRawBufferPointer, Int64, Int64) throws -> Void) throws {
        if !pending.isEmpty {
            try send(pending[...], count: pending.count / channels)
            pending.removeAll()
        }
        let status = avcodec_send_frame(context, nil)
        guard status >= 0 || status == FFmpegError.endOfFile else { throw FFmpegError("avcodec_send_frame(aac)", status) }
        try receive(body)
    }

    private func send(_ samples: ArraySlice<Float>, count: Int) throws {
        av_frame_unref(frame)
        frame.pointee.nb_samples = Int32(count)
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = context.pointee.sample_rate
        av_channel_layout_default(&frame.pointee.ch_layout, Int32(clamping: channels))
        var status = av_frame_get_buffer(frame, 0)
        guard status >= 0 else { throw FFmpegError("av_frame_get_buffer", status) }
        for c in 0..<channels {
            let plane = frame.pointee.extended_data[c]!.withMemoryRebound(to: Float.self, capacity: count) { $0 }
            var i = samples.startIndex + c
            for s in 0..<count {
                plane[s] = samples[i]
                i += channels
            }
        }
        frame.pointee.pts = sent
        sent += Int64(count)
        status = avcodec_send_frame(context, frame)
        guard status >= 0 else { throw FFmpegError("avcodec_send_frame(aac)", status) }
    }

    private func receive(_ body: (UnsafeRawBufferPointer, Int64, Int64) throws -> Void) throws {
        while true {
            let status = avcodec_receive_packet(context, packet)
            if status == FFmpegError.again || status == FFmpegError.endOfFile { return }
            guard status >= 0 else { throw FFmpegError("avcodec_receive_packet(aac)", status) }
            defer { av_packet_unref(packet) }
            try body(UnsafeRawBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)), packet.pointee.pts, packet.pointee.duration)
        }
    }
}
