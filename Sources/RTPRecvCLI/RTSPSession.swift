import RTPCore
import RTSPInput
import SystemIO

/// `rtprecv rtsp://…` as the options say: the session's settings, and its part of the report.
extension RTSPPull {
    /// The session the options name, set up (credentials from the URL, --user and --password, or
    /// RTSP_PASSWORD); `cancel` stops a setup the run no longer waits for.
    static func open(options: Options, cancel: StopRequest? = nil) throws -> RTSPPull {
        var url = try RTSPURL(parsing: options.rtsp!)
        url.user = options.user ?? url.user
        url.password = options.password ?? url.password ?? Terminal.environment("RTSP_PASSWORD")
        var settings = Settings(url: url)
        settings.transport = options.rtspTransport
        settings.trust = options.tlsTrust
        settings.takesAudio = !options.noAudio
        (settings.bind, settings.interface) = (options.bind, options.interface)
        settings.receiveBufferBytes = options.receiveBufferBytes
        settings.maxDatagramBytes = options.maxPacketBytes + 4096
        (settings.quiet, settings.verbose) = (options.quiet, options.verbose)
        settings.stopReason = { options.stopReason ?? cancel?.reason.map { "stopped: \($0)" } }
        settings.say = Terminal.printError
        return try open(settings: settings)
    }

    var json: [(String, JSON)] {
        let tls: [(String, JSON)] = tlsSaid.map { [("tls", .string($0))] } ?? []
        return [("url", .string(url.description)), ("transport", .string(transport.rawValue))] + tls + [
         ("session_timeout_s", .int(sessionTimeoutSeconds)), ("keep_alives", .int(keepAlives)),
         ("keep_alive_method", .string(keepAliveMethod)), ("interleaved_frames", .int(interleavedFrames)),
         ("server_requests", .int(serverRequests)), ("skipped_bytes", .int(skippedBytes)),
         ("worked_around", .array(notes.map { .string($0) }))]
    }
}
