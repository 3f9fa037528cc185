import CFFmpeg

/// A libav* call that failed: which call, its AVERROR code and av_strerror's text.
public struct FFmpegError: Error, CustomStringConvertible {
    public var call: String
    public var code: Int32

    public init(_ call: String, _ code: Int32) {
        self.call = call
        self.code = code
    }

    /// The libraries could not be opened: `dlerror`'s text.
    static func unavailable(_ text: String) -> FFmpegError {
        var e = FFmpegError("dlopen", 0)
        e.loadFailure = text
        return e
    }

    private var loadFailure: String?

    /// Loads libavformat (and libavcodec) on first use, or says why it cannot be.
    static func loadFormat() throws(FFmpegError) {
        var message = [CChar](repeating: 0, count: 600)
        guard rtprecv_avformat_load(&message, message.count) == 0 else {
            throw unavailable(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    public var message: String {
        if let loadFailure { return loadFailure }
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { "\(call): \(message)" }

    static let again = rtprecv_averror(EAGAIN)
    static let endOfFile = rtprecv_averror_eof()
}
