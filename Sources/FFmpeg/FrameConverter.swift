import CFFmpeg

/// Converts decoded frames to one pixel format and size with libswscale, only when they differ, and
/// packs the planes without padding into a buffer reused from frame to frame.
public final class FrameConverter {
    public let format: PixelFormat?
    public let size: (width: Int, height: Int)?
    private var scaler: OpaquePointer?
    private var scalerKey: (Int32, Int32, Int32, Int32, Int32)?
    private var converted: UnsafeMutablePointer<AVFrame>
    private var packed: [UInt8] = []

    /// Nil `format` keeps each frame's own; nil `size` keeps each frame's own.
    public init(format: PixelFormat?, size: (width: Int, height: Int)?) {
        self.format = format
        self.size = size
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
        let source = frame.frame
        let targetFormat = format ?? frame.pixelFormat
        let width = size?.width ?? frame.width, height = size?.height ?? frame.height
        var picture = source
        if targetFormat != frame.pixelFormat || width != frame.width || height != frame.height {
            try scale(source, to: targetFormat, width: width, height: height)
            picture = converted
        }
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

    private func scale(_ source: UnsafeMutablePointer<AVFrame>, to format: PixelFormat, width: Int, height: Int) throws {
        let key = (source.pointee.width, source.pointee.height, source.pointee.format, Int32(width), Int32(height))
        if scalerKey.map({ $0 != key }) ?? true {
            sws_freeContext(scaler)
            // Bicubic, as the ffmpeg command line's automatic scaler uses.
            scaler = sws_getContext(source.pointee.width, source.pointee.height, AVPixelFormat(source.pointee.format),
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
