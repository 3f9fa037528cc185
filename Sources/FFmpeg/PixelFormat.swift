import CFFmpeg

/// A libavutil pixel format, named as ffmpeg's -pix_fmt names it.
public struct PixelFormat: Equatable, Sendable, CustomStringConvertible {
    let value: AVPixelFormat

    init(_ value: AVPixelFormat) { self.value = value }

    /// Nil for a name libavutil does not know.
    public init?(name: String) {
        let v = av_get_pix_fmt(name)
        guard v != AV_PIX_FMT_NONE else { return nil }
        value = v
    }

    public static let yuv420p = PixelFormat(AV_PIX_FMT_YUV420P)

    public var description: String { av_get_pix_fmt_name(value).map { String(cString: $0) } ?? "unknown" }

    /// The C tag of a YUV4MPEG2 header (what ffmpeg's yuv4mpegpipe muxer writes), or nil when Y4M
    /// cannot carry the format.
    public var y4mColorspace: String? {
        switch value {
        case AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P: return "420jpeg"
        case AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ422P: return "422"
        case AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P: return "444"
        case AV_PIX_FMT_GRAY8: return "mono"
        case AV_PIX_FMT_YUV420P10LE: return "420p10"
        case AV_PIX_FMT_YUV422P10LE: return "422p10"
        case AV_PIX_FMT_YUV444P10LE: return "444p10"
        case AV_PIX_FMT_GRAY16LE: return "mono16"
        default: return nil
        }
    }

    /// Bytes of a picture of this format packed without padding, as ffmpeg's rawvideo writes it.
    public func packedSize(width: Int, height: Int) -> Int {
        Int(av_image_get_buffer_size(value, Int32(width), Int32(height), 1))
    }
}
