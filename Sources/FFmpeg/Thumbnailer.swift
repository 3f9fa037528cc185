import CFFmpeg

/// Small JPEG pictures of keyframes: each decoded alone through libavcodec, scaled through
/// libswscale to `width` at most (its displayed aspect kept) and encoded by libavcodec's MJPEG encoder.
public final class Thumbnailer {
    private let decoder: DecoderContext
    private let width: Int
    private var converter: FrameConverter?
    private var encoder: UnsafeMutablePointer<AVCodecContext>?
    private var encoderSize: (Int32, Int32) = (0, 0)
    private let packet: UnsafeMutablePointer<AVPacket>
    /// Pictures encoded: each one's time for the encoder, which wants them rising.
    private var encoded: Int64 = 0

    /// `decoderName`: libavcodec's name for the stream's decoder ("h264", "vp9").
    public init(decoderName: String, width: Int) throws {
        decoder = try DecoderContext(named: decoderName) { context in
            // One thread: a keyframe alone comes out at the flush either way, and a replay's own
            // work keeps the other cores busy.
            context.pointee.thread_count = 1
        }
        self.width = width
        packet = av_packet_alloc()
    }

    deinit {
        var c = encoder
        avcodec_free_context(&c)
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
    }

    /// The JPEG of `keyframe` (an access unit that needs no other), or nil when it did not decode.
    public func jpeg(of keyframe: UnsafeRawBufferPointer) throws -> [UInt8]? {
        var picture: [UInt8]?
        let take = { (frame: UnsafeMutablePointer<AVFrame>) throws in
            if picture == nil { picture = try self.encode(DecodedFrame(frame: frame)) }
        }
        try decoder.decode(keyframe, pts: 0, take)
        try decoder.flush(take)
        // Ready for the next keyframe after the drain.
        avcodec_flush_buffers(decoder.context)
        return picture
    }

    /// Its size: `width` at most (never larger than it is shown), the height even, from the
    /// frame's size and sample aspect ratio.
    private func size(of frame: DecodedFrame) -> (width: Int, height: Int) {
        var (num, den) = frame.sampleAspectRatio
        if num <= 0 || den <= 0 { (num, den) = (1, 1) }
        let displayWidth = max(1, frame.width * num / den)
        let width = max(2, min(self.width, displayWidth) & ~1)
        return (width, max(2, (frame.height * width / displayWidth + 1) & ~1))
    }

    private func encode(_ frame: DecodedFrame) throws -> [UInt8]? {
        guard frame.width > 0, frame.height > 0 else { return nil }
        let size = size(of: frame)
        if converter.map({ $0.size! != size }) ?? true {
            converter = FrameConverter(format: .yuv420p, size: size, fullRange: true)
        }
        let picture = try converter!.picture(of: frame)
        let context = try encoder(width: Int32(size.width), height: Int32(size.height))
        picture.pointee.quality = context.pointee.global_quality
        picture.pointee.pts = encoded
        encoded += 1
        var status = avcodec_send_frame(context, picture)
        guard status >= 0 else { throw FFmpegError("avcodec_send_frame", status) }
        status = avcodec_receive_packet(context, packet)
        guard status >= 0 else { throw FFmpegError("avcodec_receive_packet", status) }
        defer { av_packet_unref(packet) }
        return Array(UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
    }

    /// The MJPEG encoder for pictures of this size, opened again when the size changes.
    private func encoder(width: Int32, height: Int32) throws -> UnsafeMutablePointer<AVCodecContext> {
        if let encoder, encoderSize == (width, height) { return encoder }
        var old = encoder
        avcodec_free_context(&old)
        encoder = nil
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_MJPEG) else {
            throw FFmpegError("avcodec_find_encoder(mjpeg)", rtprecv_averror(ENOSYS))
        }
        guard let context = avcodec_alloc_context3(codec) else { throw FFmpegError("avcodec_alloc_context3", rtprecv_averror(ENOMEM)) }
        context.pointee.width = width
        context.pointee.height = height
        context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        context.pointee.color_range = AVCOL_RANGE_JPEG
        context.pointee.time_base = AVRational(num: 1, den: 25)
        // A fixed quantizer (the ffmpeg command line's -q:v 3): small files, no visible blocks.
        context.pointee.flags |= AV_CODEC_FLAG_QSCALE
        context.pointee.global_quality = 3 * FF_QP2LAMBDA
        let status = avcodec_open2(context, codec, nil)
        guard status >= 0 else {
            var c: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&c)
            throw FFmpegError("avcodec_open2(mjpeg)", status)
        }
        (encoder, encoderSize) = (context, (width, height))
        return context
    }
}
