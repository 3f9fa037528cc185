import FFmpeg
import SystemIO

/// YUV4MPEG2: a header with size, rate, aspect and chroma, then `FRAME` and the planes of each picture.
/// Every frame has the first frame's size (or --scale's), so the file stays valid when the stream
/// changes resolution. The rate comes from the SPS VUI when it has timing, else from the first two
/// frames' presentation times, so the first frame waits for the second.
final class Y4MWriter {
    let file: OutputFile
    private let format: PixelFormat
    private var converter: FrameConverter?
    private let size: (width: Int, height: Int)?
    private var pending: (bytes: [UInt8], pts: Int64, width: Int, height: Int, aspect: (Int, Int))?
    private var headerWritten = false
    /// The SPS VUI's rate, when signalled: it goes in the header as it is.
    var frameRate: (numerator: Int, denominator: Int)?

    init(file: OutputFile, format: PixelFormat, size: (width: Int, height: Int)?) {
        self.file = file
        self.format = format
        self.size = size
        if let size { converter = FrameConverter(format: format, size: size) }
    }

    func write(_ frame: DecodedFrame) throws {
        if converter == nil { converter = FrameConverter(format: format, size: (frame.width, frame.height)) }
        try converter!.withPacked(frame) { bytes, width, height, _ in
            if headerWritten {
                try writeFrame(bytes)
            } else if let rate = frameRate, pending == nil {
                try writeHeader(width: width, height: height, aspect: frame.sampleAspectRatio, rate: rate)
                try writeFrame(bytes)
            } else if let first = pending {
                try writeHeader(width: first.width, height: first.height, aspect: first.aspect, rate: rate(first.pts, frame.pts))
                try first.bytes.withUnsafeBytes { try writeFrame($0) }
                pending = nil
                try writeFrame(bytes)
            } else {
                pending = (Array(bytes), frame.pts, width, height, frame.sampleAspectRatio)
            }
        }
    }

    func finish() throws {
        if let first = pending {
            try writeHeader(width: first.width, height: first.height, aspect: first.aspect, rate: frameRate ?? (25, 1))
            try first.bytes.withUnsafeBytes { try writeFrame($0) }
        }
        try file.close()
    }

    /// Frames per second from two timestamps on the 90 kHz clock, as a reduced fraction.
    private func rate(_ a: Int64, _ b: Int64) -> (Int, Int) {
        let ticks = Int(abs(b - a))
        guard ticks > 0 else { return (25, 1) }
        var x = 90000, y = ticks
        while y != 0 { (x, y) = (y, x % y) }
        return (90000 / x, ticks / x)
    }

    private func writeHeader(width: Int, height: Int, aspect: (Int, Int), rate: (Int, Int)) throws {
        let aspect = aspect.0 > 0 && aspect.1 > 0 ? aspect : (1, 1)
        try file.write("YUV4MPEG2 W\(width) H\(height) F\(rate.0):\(rate.1) Ip A\(aspect.0):\(aspect.1) C\(format.y4mColorspace!)\n")
        headerWritten = true
    }

    private func writeFrame(_ bytes: UnsafeRawBufferPointer) throws {
        try file.write("FRAME\n")
        try file.write(bytes)
    }
}
