import CFFmpeg

/// An RTMP (rtmp, rtmps, rtmpt: whatever libavformat's protocols take) connection that publishes the
/// FLV bytes written to it: libavformat's RTMP client reads the tags out of the FLV stream and sends
/// each as a message. Writes block until the server takes them, up to `timeoutSeconds`; `interrupt`
/// makes a blocked call give up at once.
public final class RTMPConnection {
    private var context: UnsafeMutablePointer<AVIOContext>?
    /// Read by libavformat's interrupt callback on this thread; set from another to abort.
    private let interruptFlag = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

    public init(url: String, timeoutSeconds: Double) throws(FFmpegError) {
        interruptFlag.initialize(to: 0)
        // A throw from here on still runs deinit, which frees the flag.
        try FFmpegError.loadFormat()
        var options: OpaquePointer?
        let microseconds = String(Int(timeoutSeconds * 1_000_000))
        // rw_timeout bounds every read and write. (RTMP's own "timeout" would make it listen.)
        av_dict_set(&options, "rw_timeout", microseconds, 0)
        av_dict_set(&options, "tcp_nodelay", "1", 0)
        var interrupt = AVIOInterruptCB(callback: { opaque in
            opaque!.assumingMemoryBound(to: Int32.self).pointee
        }, opaque: UnsafeMutableRawPointer(interruptFlag))
        rtprecv_avformat_clear_error()
        let status = avio_open2(&context, url, rtprecv_avio_flag_write(), &interrupt, &options)
        av_dict_free(&options)
        guard status >= 0 else { throw FFmpegError("avio_open2", status) }
    }

    deinit {
        if context != nil { avio_closep(&context) }
        interruptFlag.deallocate()
    }

    /// Sends `bytes` and flushes them to the server.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FFmpegError) {
        guard let context else { throw FFmpegError("avio_write", FFmpegError.endOfFile) }
        avio_write(context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(bytes.count))
        avio_flush(context)
        if context.pointee.error < 0 { throw FFmpegError("avio_write", context.pointee.error) }
    }

    /// What the protocol last logged as an error (a server's refusal, say), if anything.
    public static var lastProtocolError: String? {
        let text = String(cString: rtprecv_avformat_last_error())
        return text.isEmpty ? nil : text
    }

    /// Makes a blocked connect or write fail now; safe from any thread.
    public func interrupt() { interruptFlag.pointee = 1 }

    public func close() {
        if context != nil { avio_closep(&context) }
    }
}
