import CFFmpeg

/// A libavcodec video decoder, fed access units with the send/receive API.
public final class VideoDecoder {
    private let decoder: DecoderContext
    public var decodeErrors: Int { decoder.decodeErrors }

    /// Opens the libraries (on first use only). Call before anything else of this module.
    public static func loadLibraries() throws {
        var message = [CChar](repeating: 0, count: 600)
        guard rtprecv_ffmpeg_load(&message, message.count) == 0 else {
            throw FFmpegError.unavailable(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// `name`: libavcodec's name for the decoder ("h264", "hevc"). `threads` 0 lets libavcodec
    /// choose; frames come out in presentation order either way.
    public init(named name: String, threads: Int) throws {
        decoder = try DecoderContext(named: name) { context in
            context.pointee.thread_count = Int32(threads)
            context.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        }
    }

    /// Decodes one access unit (Annex-B for H.264 and H.265) and hands on every frame that became ready.
    /// A decoding error is counted, not thrown: the next keyframe recovers.
    public func decode(_ accessUnit: UnsafeRawBufferPointer, pts: Int64, _ body: (DecodedFrame) throws -> Void) throws {
        try decoder.decode(accessUnit, pts: pts) { try body(DecodedFrame(frame: $0)) }
    }

    /// Drains the frames the decoder still holds.
    public func flush(_ body: (DecodedFrame) throws -> Void) throws {
        try decoder.flush { try body(DecodedFrame(frame: $0)) }
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
