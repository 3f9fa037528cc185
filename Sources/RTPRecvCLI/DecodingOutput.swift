import FFmpeg
import RTPCore
import SystemIO

/// Access units through libavcodec into raw YUV, YUV4MPEG2 and per-frame MD5s. Public for the
/// fuzz targets.
public final class DecodingOutput {
    /// Opened for the codec of the first access unit, and again should the codec change.
    private var decoder: VideoDecoder?
    private var decoderCodec: VideoCodec?
    private let threads: Int
    /// Decode errors of decoders closed at a change of codec.
    private var earlierDecodeErrors = 0
    private let skipCorrupt: Bool
    /// Raw frames and their MD5s keep each frame's size unless --scale is given.
    private let raw: FrameConverter
    private let yuv: OutputFile?
    private let md5: OutputFile?
    private var y4m: Y4MWriter?
    /// Presentation times of access units that may refer to a lost picture.
    private var suspect: Set<Int64> = []
    private var firstPTS: Int64?
    private var gathered: [UInt8] = []

    private(set) var framesDecoded = 0
    private(set) var framesWritten = 0
    private(set) var corruptFramesWritten = 0
    private(set) var corruptFramesSkipped = 0
    private(set) var nativeFormat: PixelFormat?
    private(set) var sizes: [(width: Int, height: Int, firstFrame: Int)] = []

    public init(options: Options) throws {
        do {
            try VideoDecoder.loadLibraries()
        } catch {
            throw RunError(description: "cannot decode: \(error)")
        }
        var format: PixelFormat? = .yuv420p
        if let name = options.pixelFormat {
            guard let f = PixelFormat(name: name) else {
                throw RunError(description: "--pix-fmt '\(name)' is not a pixel format libavutil knows (try yuv420p, nv12, yuv444p, rgb24, gray)")
            }
            format = f
        }
        threads = options.threads
        skipCorrupt = options.skipCorrupt
        raw = FrameConverter(format: format, size: options.scale)
        yuv = try options.yuv.map { try open($0) }
        md5 = try options.frameMD5.map { try open($0) }
        if let path = options.y4m {
            guard format?.y4mColorspace != nil else {
                throw RunError(description: "--y4m cannot carry --pix-fmt \(format!); use --yuv, or a YUV or gray format")
            }
            y4m = Y4MWriter(file: try open(path), format: format!, size: options.scale)
        }
    }

    public func decode(_ accessUnit: AccessUnit) throws {
        if firstPTS == nil { firstPTS = accessUnit.pts }
        // The first SPS VUI rate is the Y4M header's.
        if let y4m, y4m.frameRate == nil { y4m.frameRate = accessUnit.frameRate }
        if accessUnit.followsLoss { suspect.insert(accessUnit.pts) }
        let decoder = try self.decoder(for: accessUnit.codec)
        try accessUnit.withContiguousBytes(scratch: &gathered) { bytes in
            try decoder.decode(bytes, pts: accessUnit.pts) { try take($0) }
        }
    }

    private func decoder(for codec: VideoCodec) throws -> VideoDecoder {
        if let decoder, decoderCodec == codec { return decoder }
        if let decoder {
            try decoder.flush { try take($0) }
            earlierDecodeErrors += decoder.decodeErrors
        }
        do {
            let opened = try VideoDecoder(named: codec.decoderName, threads: threads)
            (decoder, decoderCodec) = (opened, codec)
            return opened
        } catch {
            throw RunError(description: "cannot start the \(codec.name) decoder: \(error)")
        }
    }

    public func finish() throws {
        try decoder?.flush { try take($0) }
        try y4m?.finish()
        try yuv?.close()
        try md5?.close()
    }

    var decodeErrors: Int { earlierDecodeErrors + (decoder?.decodeErrors ?? 0) }

    /// Every count of the decoding, declared once: the report, the JSON and the metrics read this.
    var counts: [Count] {
        [Count(name: "frames_decoded", help: "pictures the decoder gave", value: framesDecoded),
         Count(name: "frames_written", help: "pictures written to --yuv, --y4m or --frame-md5", value: framesWritten),
         Count(name: "decode_errors", help: "access units the decoder refused", value: decodeErrors),
         Count(name: "damaged_frames_written", help: "pictures that may refer to a lost one, written", value: corruptFramesWritten),
         Count(name: "damaged_frames_skipped", help: "pictures that may refer to a lost one, skipped (--skip-corrupt)",
               value: corruptFramesSkipped)]
    }

    var files: [OutputFile] { [yuv, md5, y4m?.file].compactMap { $0 } }

    private func take(_ frame: DecodedFrame) throws {
        framesDecoded += 1
        if nativeFormat == nil { nativeFormat = frame.pixelFormat }
        if sizes.last.map({ $0.width != frame.width || $0.height != frame.height }) ?? true {
            sizes.append((frame.width, frame.height, framesDecoded - 1))
        }
        let corrupt = frame.isCorrupt || suspect.remove(frame.pts) != nil
        if corrupt && skipCorrupt {
            corruptFramesSkipped += 1
            return
        }
        if corrupt { corruptFramesWritten += 1 }
        framesWritten += 1
        if yuv != nil || md5 != nil {
            try raw.withPacked(frame) { bytes, width, height, _ in
                try yuv?.write(bytes)
                if let md5 {
                    if framesWritten == 1 { try md5.write(FrameMD5.header(width: width, height: height)) }
                    try md5.write(FrameMD5.line(pts: frame.pts - (firstPTS ?? 0), size: bytes.count, hash: md5Hex(bytes)))
                }
            }
        }
        try y4m?.write(frame)
    }
}

/// Lines in the form of ffmpeg's framemd5 muxer, on the 90 kHz RTP clock.
enum FrameMD5 {
    static func header(width: Int, height: Int) -> String {
        "#format: frame checksums\n#version: 2\n#hash: MD5\n#tb 0: 1/90000\n#media_type 0: video\n"
            + "#codec_id 0: rawvideo\n#dimensions 0: \(width)x\(height)\n#stream#, dts, pts, duration, size, hash\n"
    }

    static func line(pts: Int64, size: Int, hash: String) -> String {
        "0, \(pts), \(pts), 1, \(size), \(hash)\n"
    }
}
