import CFFmpeg

/// libavcodec's H.264 decoder, fed access units with the send/receive API.
public final class H264Decoder {
    private let context: UnsafeMutablePointer<AVCodecContext>
    private var packet: UnsafeMutablePointer<AVPacket>
    private var frame: UnsafeMutablePointer<AVFrame>
    public private(set) var decodeErrors = 0

    /// Opens the libraries (on first use only). Call before anything else of this module.
    public static func loadLibraries() throws {
        var message = [CChar](repeating: 0, count: 600)
        guard rtprecv_ffmpeg_load(&message, message.count) == 0 else {
            throw FFmpegError.unavailable(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// `threads` 0 lets libavcodec choose; frames come out in presentation order either way.
    public init(threads: Int) throws {
        try Self.loadLibraries()
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_H264) else {
            throw FFmpegError("avcodec_find_decoder", rtprecv_averror(ENOSYS))
        }
        guard let context = avcodec_alloc_context3(codec) else { throw FFmpegError("avcodec_alloc_context3", rtprecv_averror(ENOMEM)) }
        self.context = context
        context.pointee.thread_count = Int32(threads)
        context.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        packet = av_packet_alloc()
        frame = av_frame_alloc()
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

    /// Decodes one access unit (Annex-B) and hands on every frame that became ready.
    /// A decoding error is counted, not thrown: the next keyframe recovers.
    public func decode(_ accessUnit: UnsafeRawBufferPointer, pts: Int64, _ body: (DecodedFrame) throws -> Void) throws {
        // Not reference-counted: libavcodec copies it into a padded buffer of its own.
        packet.pointee.data = UnsafeMutablePointer(mutating: accessUnit.baseAddress?.assumingMemoryBound(to: UInt8.self))
        packet.pointee.size = Int32(accessUnit.count)
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
    public func flush(_ body: (DecodedFrame) throws -> Void) throws {
        _ = avcodec_send_packet(context, nil)
        try receive(body)
    }

    private func receive(_ body: (DecodedFrame) throws -> Void) throws {
        while true {
            let status = avcodec_receive_frame(context, frame)
            if status == FFmpegError.again || status == FFmpegError.endOfFile { return }
            if status < 0 {
                decodeErrors += 1
                return
            }
            defer { av_frame_unref(frame) }
            try body(DecodedFrame(frame: frame))
        }
    }
}

/// A decoded picture, valid only during the call that hands it on.
public struct DecodedFrame {
    let frame: UnsafeMutablePointer<AVFrame>

    public var width: Int { Int(frame.pointee.width) }
    public var height: Int { Int(frame.pointee.height) }
    public var pixelFormat: PixelFormat { PixelFormat(AVPixelFormat(frame.pointee.format)) }
    public var pts: Int64 { frame.pointee.best_effort_timestamp }
    /// The decoder found errors in it, or concealed missing parts.
    public var isCorrupt: Bool {
        frame.pointee.decode_error_flags != 0 || frame.pointee.flags & rtprecv_frame_flag_corrupt() != 0
    }
    public var sampleAspectRatio: (Int, Int) {
        (Int(frame.pointee.sample_aspect_ratio.num), Int(frame.pointee.sample_aspect_ratio.den))
    }
}
