import CFFmpeg

/// Converts decoded frames to one pixel format and size with libswscale, only when they differ, and
/// packs the planes without padding into a buffer reused from frame to frame.
public final class FrameConverter {
    public let format: PixelFormat?
    public let size: (width: Int, height: Int)?
    /// The output's samples span 0...255 (JPEG's range) rather than video's 16...235.
    let fullRange: Bool
    private var scaler: OpaquePointer?
    private var scalerKey: (Int32, Int32, Int32, Int32, Int32, UInt32)?
    private var converted: UnsafeMutablePointer<AVFrame>
    private var packed: [UInt8] = []

    /// Nil `format` keeps each frame's own; nil `size` keeps each frame's own.
    public convenience init(format: PixelFormat?, size: (width: Int, height: Int)?) {
        self.init(format: format, size: size, fullRange: false)
    }

    init(format: PixelFormat?, size: (width: Int, height: Int)?, fullRange: Bool) {
        self.format = format
        self.size = size
        self.fullRange = fullRange
        converted = av_frame_alloc()
    }

    deinit {
        sws_freeContext(scaler)
        var f: UnsafeMutablePointer<AVFrame>? = converted
        av_frame_free(&f)
    }

    /// The output picture of `frame`: its packed bytes, size and format, valid during `body`.
    public func withPacked<T>(_ frame: DecodedFrame,
                              _ body: (UnsafeRawBufferPointer, Int, Int, PixelFormat) throws -> T) throws -> T {
        let targetFormat = format ?? frame.pixelFormat
        let width = size?.width ?? frame.width, height = size?.height ?? frame.height
        let picture = try picture(of: frame)
        let byteCount = targetFormat.packedSize(width: width, height: height)
        guard byteCount > 0 else { throw FFmpegError("av_image_get_buffer_size", Int32(byteCount)) }
        if packed.count != byteCount { packed = [UInt8](repeating: 0, count: byteCount) }
        let status = packed.withUnsafeMutableBufferPointer { out in
            withUnsafePointer(to: &picture.pointee.data) { data in
                withUnsafePointer(to: &picture.pointee.linesize) { linesize in
                    data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { planes in
                        linesize.withMemoryRebound(to: Int32.self, capacity: 8) { strides in
                            av_image_copy_to_buffer(out.baseAddress, Int32(byteCount), planes, strides,
                                                    targetFormat.value, Int32(width), Int32(height), 1)
                        }
                    }
                }
            }
        }
        guard status >= 0 else { throw FFmpegError("av_image_copy_to_buffer", status) }
        return try packed.withUnsafeBytes { try body($0, width, height, targetFormat) }
    }

    /// `frame` in the output's format and size: itself when it is already, else the reused
    /// converted frame (valid until the next call).
    func picture(of frame: DecodedFrame) throws -> UnsafeMutablePointer<AVFrame> {
        let targetFormat = format ?? frame.pixelFormat
        let width = size?.width ?? frame.width, height = size?.height ?? frame.height
        let rangeDiffers = fullRange && frame.frame.pointee.color_range != AVCOL_RANGE_JPEG
        guard targetFormat != frame.pixelFormat || width != frame.width || height != frame.height || rangeDiffers else { return frame.frame }
        try scale(frame.frame, to: targetFormat, width: width, height: height)
        return converted
    }

    /// A scaler whose output spans the full range, from a source of its frame's own range: set
    /// as options before it is initialized, as the ffmpeg command line's scale filter does (a
    /// scaler's copy between equal formats would keep the range otherwise).
    private static func fullRangeScaler(from source: UnsafeMutablePointer<AVFrame>, to format: PixelFormat,
                                        width: Int, height: Int) -> OpaquePointer? {
        guard let scaler = sws_alloc_context() else { return nil }
        let options: [(String, Int64)] = [
            ("srcw", Int64(source.pointee.width)), ("srch", Int64(source.pointee.height)), ("src_format", Int64(source.pointee.format)),
            ("dstw", Int64(width)), ("dsth", Int64(height)), ("dst_format", Int64(format.value.rawValue)),
            ("sws_flags", Int64(SWS_BICUBIC)), ("src_range", source.pointee.color_range == AVCOL_RANGE_JPEG ? 1 : 0), ("dst_range", 1),
        ]
        let made = options.allSatisfy { av_opt_set_int(UnsafeMutableRawPointer(scaler), $0.0, $0.1, 0) >= 0 }
            && sws_init_context(scaler, nil, nil) >= 0
        if !made { sws_freeContext(scaler) }
        return made ? scaler : nil
    }

    private func scale(_ source: UnsafeMutablePointer<AVFrame>, to format: PixelFormat, width: Int, height: Int) throws {
        let key = (source.pointee.width, source.pointee.height, source.pointee.format, Int32(width), Int32(height),
                   source.pointee.color_range.rawValue)
        if scalerKey.map({ $0 != key }) ?? true {
            sws_freeContext(scaler)
            // Bicubic, as the ffmpeg command line's automatic scaler uses.
            scaler = fullRange ? Self.fullRangeScaler(from: source, to: format, width: width, height: height)
                : sws_getContext(source.pointee.width, source.pointee.height, AVPixelFormat(source.pointee.format),
                                 Int32(width), Int32(height), format.value, SWS_BICUBIC, nil, nil, nil)
            guard scaler != nil else { throw FFmpegError("sws_getContext", rtprecv_averror(EINVAL)) }
            scalerKey = key
            av_frame_unref(converted)
            converted.pointee.width = Int32(width)
            converted.pointee.height = Int32(height)
            converted.pointee.format = format.value.rawValue
            let status = av_frame_get_buffer(converted, 0)
            guard status >= 0 else { throw FFmpegError("av_frame_get_buffer", status) }
        }
        let lines = withUnsafePointer(to: &source.pointee.data) { src in
            withUnsafePointer(to: &source.pointee.linesize) { srcStride in
                withUnsafePointer(to: &converted.pointee.data) { dst in
                    withUnsafePointer(to: &converted.pointee.linesize) { dstStride in
                        src.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { s in
                            srcStride.withMemoryRebound(to: Int32.self, capacity: 8) { ss in
                                dst.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { d in
                                    dstStride.withMemoryRebound(to: Int32.self, capacity: 8) { ds in
                                        sws_scale(scaler, s, ss, 0, source.pointee.height, d, ds)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        guard lines > 0 else { throw FFmpegError("sws_scale", lines) }
    }
}

/// MD5 of a byte buffer, as ffmpeg's framemd5 muxer prints it.
public func md5Hex(_ bytes: UnsafeRawBufferPointer) -> String {
    var digest = [UInt8](repeating: 0, count: 16)
    av_md5_sum(&digest, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
    let hex: [UInt8] = Array("0123456789abcdef".utf8)
    return String(decoding: digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }, as: UTF8.self)
}
