import CFFmpeg

/// One libavcodec decoder with its packet and frame: the send/receive loop both the video and the
/// audio decoders run. Decoding errors are counted, not thrown: the next frame or keyframe recovers.
final class DecoderContext {
    let context: UnsafeMutablePointer<AVCodecContext>
    private var packet: UnsafeMutablePointer<AVPacket>
    private var frame: UnsafeMutablePointer<AVFrame>
    private(set) var decodeErrors = 0

    /// `configure` sets the context up before it is opened.
    convenience init(_ id: AVCodecID, configure: (UnsafeMutablePointer<AVCodecContext>) -> Void) throws {
        try VideoDecoder.loadLibraries()
        guard let codec = avcodec_find_decoder(id) else { throw FFmpegError("avcodec_find_decoder", rtprecv_averror(ENOSYS)) }
        try self.init(codec, configure: configure)
    }

    /// The decoder libavcodec knows by `name` ("h264", "hevc").
    convenience init(named name: String, configure: (UnsafeMutablePointer<AVCodecContext>) -> Void) throws {
        try VideoDecoder.loadLibraries()
        guard let codec = avcodec_find_decoder_by_name(name) else {
            throw FFmpegError("avcodec_find_decoder_by_name(\(name))", rtprecv_averror(ENOSYS))
        }
        try self.init(codec, configure: configure)
    }

    private init(_ codec: UnsafePointer<AVCodec>, configure: (UnsafeMutablePointer<AVCodecContext>) -> Void) throws {
        guard let context = avcodec_alloc_context3(codec) else { throw FFmpegError("avcodec_alloc_context3", rtprecv_averror(ENOMEM)) }
        self.context = context
        packet = av_packet_alloc()
        frame = av_frame_alloc()
        configure(context)
        let status = avcodec_open2(context, codec, nil)
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

    /// Sends `bytes` and hands on every frame that became ready (valid during the call only).
    func decode(_ bytes: UnsafeRawBufferPointer, pts: Int64, _ body: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws {
        // Not reference-counted: libavcodec copies it into a padded buffer of its own.
        packet.pointee.data = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        packet.pointee.size = Int32(bytes.count)
        packet.pointee.pts = pts
        packet.pointee.dts = Int64.min  // AV_NOPTS_VALUE
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

    /// Drains the frames the decoder still holds.
    func flush(_ body: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws {
        _ = avcodec_send_packet(context, nil)
        try receive(body)
    }

    /// A frame the caller could not use, counted with the decoder's own errors.
    func countError() { decodeErrors += 1 }

    private func receive(_ body: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws {
        while true {
            let status = avcodec_receive_frame(context, frame)
            if status == FFmpegError.again || status == FFmpegError.endOfFile { return }
            if status < 0 {
                decodeErrors += 1
                return
            }
            defer { av_frame_unref(frame) }
            try body(frame)
        }
    }
}
