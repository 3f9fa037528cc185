import RTPCore
import RTSPInput
import SystemIO
import TLS

/// The command line, parsed. Usage errors carry the message that `rtprecv` prints before exiting 64.
public struct Options {
    public struct UsageError: Error, CustomStringConvertible {
        public var description: String
    }

    public enum Mode { case run, list, help, version }

    public var mode = Mode.run
    public var pcap: String?
    public var sdp: String?
    /// `--sdp` more than once, and `--sdp-dir`'s files: a session an SDP (`SessionFanOut`).
    public var sessionSDPs: [String] = []
    public var sdpDirectory: String?
    var recordsSessions: Bool { !sessionSDPs.isEmpty || sdpDirectory != nil }
    public var out: String?
    public var statsJSON: String?
    public var framesJSON: String?
    /// --report: the run's statistics, timelines and pictures as one HTML page.
    public var report: String?
    public var ssrc: UInt32?
    public var payloadType: UInt8?
    public var port: UInt16?
    /// --port A-B: every port from A to B (A is `port`); implies --all-streams.
    public var portRange: ClosedRange<UInt16>?
    public static let maxPortRange = 1024
    /// The longest --duration or --timeout: over three years, and far from overflowing nanoseconds.
    public static let maxSeconds = 100_000_000.0
    public var bind: String?
    public var interface: String?
    public var sourceFilter: String?
    public var receiveBufferBytes = 8 << 20
    public var duration: Double?
    public var frames: Int?
    public var timeout: Double?
    public var exitOnTimeout = false
    public var reorderPackets = 512
    /// Default 500 ms for replay, 50 ms live.
    public var latencyMilliseconds: Int?
    /// Live: input gathered this long between the loop's turns (0: each datagram as it comes); nil
    /// where not given (`gatherMilliseconds` says the default).
    public var batchMilliseconds: Int?
    public var maxFrameBytes = 32 << 20
    public var maxPacketBytes = 65536
    public var maxStreams = 16
    var maxStreamsGiven = false
    public var waitKeyframe = false
    /// --spatial-layer: the highest VP9 spatial layer written.
    public var spatialLayer: Int?
    public var decode = false
    public var yuv: String?
    public var y4m: String?
    public var frameMD5: String?
    public var pixelFormat: String?
    public var scale: (width: Int, height: Int)?
    public var threads = 0
    public var skipCorrupt = false
    public var flv: String?
    /// --mp4, --mkv, --ts: the recordings in containers, and how much a crash may cost them.
    public var mp4: String?
    public var mkv: String?
    public var ts: String?
    public var fragmentMilliseconds = 1000
    /// --faststart: the finished MP4 written again with its index in front.
    public var faststart = false
    /// --no-audio-transcode: G.711 and G.722 left out of MP4 and MPEG-TS rather than made AAC.
    public var noAudioTranscode = false
    var fsync = FsyncPolicy.segment
    /// --segment-index: a JSON line per recording file closed.
    public var segmentIndex: String?
    /// --retain-hours, --retain-size: how old and how large a directory's recordings may grow.
    public var retainHours: Double?
    public var retainBytes: Int64?
    public var flvKeepAfterLoss = false
    public var flvHEVCLegacy = false
    /// --codec: the codec of dynamic payload types no SDP names.
    public var codec: VideoCodec?
    /// --dependency-descriptor: the header extension ID of AV1's dependency descriptor, where no SDP's extmap names it.
    public var dependencyDescriptorID: UInt8?
    /// How long one FLV track waits for the other, in its own time.
    public var interleaveMilliseconds = 1000
    /// The audio stream's frames as a file of its codec (ADTS, MP3, G.711 WAV).
    public var audio: String?
    /// The audio stream decoded into 16-bit PCM WAV.
    public var wav: String?
    public var noAudio = false
    /// --all-streams (or an output path with {ssrc}, {pt}, {port} or {src}): every stream recorded apart.
    public var allStreams = false
    public var audioSSRC: UInt32?
    public var audioPayloadType: UInt8?
    /// `--audio-codec`: the format of `audioPayloadType` where no SDP names it.
    public var audioCodec: MediaDescription.Format?
    /// Live without an SDP: a second port, for static-payload-type audio.
    public var audioPort: UInt16?
    /// Live RTCP: no receiver reports and no requests at all.
    public var noRTCP = false
    /// Where RTCP goes: `ADDR:PORT` (`[v6]:PORT`); else where the sender reports come from.
    public var rtcpTo: (address: String, port: UInt16)?
    /// Ask for keyframes (PLI) though the SDP does not offer `nack pli`.
    public var requestKeyframe = false
    /// Ask for lost packets again (generic NACK) though the SDP does not offer `nack`.
    public var nack = false
    /// RTX (RFC 4588) on this payload type, for the video's, without an SDP that says so.
    public var rtxPayloadType: UInt8?
    /// Publish the FLV tags to an RTMP server.
    public var rtmp: String?
    public var rtmpQueueMilliseconds = 2000
    public var reconnect = false
    /// Replay to RTMP: tags paced at their times (default), or as fast as the server takes them.
    public var realtime: Bool?
    /// SRTP master keys (`--srtp-key`, in order given).
    public var srtpKeys: [SRTPMasterKey] = []
    /// DTLS-SRTP's exported keying material, and which side's packets to take it for.
    public var dtlsKeyingMaterial: DTLSKeyingMaterial?
    public var dtlsRole: DTLSRole?
    /// A TLS key log whose master secrets give a capture's DTLS-SRTP keys.
    public var tlsKeyLog: String?
    /// Pull from an RTSP server (`rtsp://[user[:password]@]host[:port]/path`).
    public var rtsp: String?
    public var rtspTransport = RTSPPull.Preference.auto
    /// rtsps: the server certificates accepted (`--tls-ca-file`, `--tls-fingerprint`).
    public var tlsTrust = TLSTrust()
    /// `--segment-seconds`: the Annex-B output and the FLV are cut at the first keyframe after this long.
    public var segmentSeconds: Int?
    /// `--segment-wallclock`: segments end at multiples of `segmentSeconds` of UTC.
    public var segmentWallclock = false
    /// `--metrics`: where the Prometheus endpoint listens.
    public var metrics: (address: String, port: UInt16)?
    /// How RTP in a capture's TCP streams is framed.
    public var tcpFraming = InterleavedCapture.Framing.rtsp
    /// Credentials beside the URL's (these win); the password also from RTSP_PASSWORD.
    public var user: String?
    public var password: String?
    public var quiet = false
    public var verbose = false
    /// A config's source, run beside others: standard error is theirs too, so no status line;
    /// SIGHUP reloads the config rather than reopening the outputs; the run can be stopped alone;
    /// and the process's metrics endpoint asks it what to serve (`inbox`, with `metrics:`).
    struct Supervised {
        let stop: StopRequest
        let inbox: SourceInbox?
        /// A fleet member's events of this source (a segment closed), from the source's thread.
        var announce: ((_ kind: String, _ fields: [(String, JSON)]) -> Void)?
        /// A fleet member whose claim of this source expired before this run's.
        var expiredWriter: ExpiredWriter?
    }
    /// A fleet member whose claim of a source expired: its segment index and recording templates,
    /// whose files left open are listed once they have been idle for `idle` nanoseconds (a member
    /// cut off from NATS may still be writing).
    struct ExpiredWriter {
        let member: String
        let index: String
        let templates: [(container: Container, pattern: String)]
        let idle: Int64
    }
    var supervised: Supervised?
    /// Live, a page shows the run's streams: its own --metrics, or a config's.
    var servesLivePage: Bool { metrics != nil || supervised?.inbox != nil }
    var showsProgress: Bool { !quiet && supervised == nil && Terminal.isTerminal(2) }

    /// Whose packets a DTLS-SRTP capture's streams are: the DTLS client's, the server's, or either.
    public enum DTLSRole: String, CaseIterable, Sendable { case client, server, auto }

    public init(arguments: [String]) throws(UsageError) {
        if arguments.isEmpty {
            throw UsageError(description: "nothing to do: give --pcap FILE to replay a capture, --port N to receive live, "
                             + "or an rtsp:// URL to pull from a camera")
        }
        var reader = ArgumentReader(arguments)
        while reader.next() {
            if try take(&reader) { continue }
            if reader.argument.hasPrefix("-") { throw UsageError(description: "unknown option '\(reader.name)'") }
            // A capture's name alone, as ffprobe takes it: say how it is given here.
            let lowercased = reader.argument.lowercased()
            if pcap == nil, [".pcap", ".pcapng", ".cap"].contains(where: { lowercased.hasSuffix($0) }) {
                throw UsageError(description: "unexpected argument '\(reader.argument)': to replay a capture, give --pcap \(reader.argument)")
            }
            throw UsageError(description: "unexpected argument '\(reader.argument)'")
        }
        if mode == .help || mode == .version { return }
        try settle()
    }

    /// The defaults, for a setting parsed alone (`ConfigFile`).
    init() {}

    /// The argument just read, with its value (an option of the table, or an rtsp:// URL): false
    /// when it is neither.
    mutating func take(_ r: inout ArgumentReader) throws(UsageError) -> Bool {
        guard let take = Options.optionsByName[r.name]?.take else { return try takeURL(&r) }
        do {
            try take(&self, &r)
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError(description: "\(error)")
        }
        return true
    }

    public var isLive: Bool { pcap == nil }

    /// Why a live run must stop now: a signal, or its source taken out of the config; nil to go on.
    var stopReason: String? {
        if StopSignal.received != 0 { return "stopped by \(StopSignal.name)" }
        return supervised?.stop.reason.map { "stopped: \($0)" }
    }

    /// A config's source gathers this long by default where nothing is lost by it (`gatherMilliseconds`).
    static let recorderBatchMilliseconds = 100
    /// The receive buffer a UDP source needs to gather by default: 100 ms of a 20 Mbit/s camera
    /// several times over (the kernel counts about twice a datagram's payload), keyframes included.
    static let gatheringReceiveBufferBytes = 2 << 20

    /// How long a live run gathers input between turns: --batch-ms, else 100 ms for a config's
    /// source whose media goes only into files. Its camera then wakes it ten times a second rather
    /// than once a frame, which is most of what a camera costs. Over TCP (`overTCP`: RTP in the
    /// RTSP connection) nothing is lost, as the sender waits while the kernel holds the bytes; over
    /// UDP only where the kernel grants `receiveBufferBytes` of 2 MiB at least (net.core.rmem_max
    /// caps it unless root) and no NACK (`asksForNACK`, by the options or one of `sdps`) wants its
    /// answer within --latency-ms. Not to RTMP or standard output, read live.
    func gatherMilliseconds(overTCP: Bool, receiveBufferBytes: Int = 0, sdps: [SessionDescription] = []) -> Int {
        if let batchMilliseconds { return batchMilliseconds }
        let readLive = rtmp != nil || givenFileOutputs.contains { $0.path == "-" }
        let retransmits = nack || sdps.contains { asksForNACK($0) }
        let holds = overTCP || (receiveBufferBytes >= Self.gatheringReceiveBufferBytes && !retransmits)
        return supervised != nil && holds && !readLive ? Self.recorderBatchMilliseconds : 0
    }

    /// Whether the run asks its sender for retransmissions (RFC 4585's NACK): --nack, or the SDP's
    /// video line offers it for the payload type taken (rtprecv asks for the video's alone).
    func asksForNACK(_ sdp: SessionDescription?) -> Bool { nack || videoOffers("nack", in: sdp) }

    /// Whether `sdp`'s video line offers RTCP feedback `kind` (RFC 4585's a=rtcp-fb) for the
    /// payload type taken.
    func videoOffers(_ kind: String, in sdp: SessionDescription?) -> Bool {
        sdp?.video?.offersFeedback(kind, for: payloadType ?? sdp?.payloadType) == true
    }

    /// --duration and --timeout in nanoseconds: at most `maxSeconds`, so the products fit.
    public var durationNanoseconds: Int64? { duration.map { Int64($0 * 1e9) } }
    public var timeoutNanoseconds: Int64? { timeout.map { Int64($0 * 1e9) } }

    /// Why a live run begun at `start` stops for time: --duration has passed.
    func durationPassed(since start: Int64, now: Int64) -> String? {
        guard let duration = durationNanoseconds, now - start >= duration else { return nil }
        return "stopped after \(self.duration!) s"
    }

    /// `--audio-codec NAME`: the formats whose RTP clock and channels are the same in every session.
    static func audioCodec(named text: String) throws(UsageError) -> MediaDescription.Format {
        switch text.lowercased() {
        case "opus": return .init(encodingName: "opus", clockRate: 48000, channels: 2)
        case "pcmu", "pcma", "g722", "g726-16", "g726-24", "g726-32", "g726-40", "aal2-g726-16", "aal2-g726-24", "aal2-g726-32",
             "aal2-g726-40":
            return .init(encodingName: text.uppercased(), clockRate: 8000, channels: 1)
        case "mpa": return .init(encodingName: "MPA", clockRate: 90000)
        case "aac", "mpeg4-generic", "mp4a-latm":
            throw UsageError(description: "'--audio-codec \(text)': AAC needs its config, which comes from an SDP (--sdp FILE)")
        case "l16", "l24":
            throw UsageError(description: "'--audio-codec \(text)': its rate and channels come from an SDP (--sdp FILE)")
        default:
            throw UsageError(description: "invalid value '\(text)' for '--audio-codec': expected opus, pcmu, pcma, g722, g726-32 (16, 24, 40; aal2-g726-32…) or mpa")
        }
    }

    /// "ADDR:PORT" or "[v6]:PORT"; `given`, what the user wrote, when `text` was made from it.
    static func addressAndPort(_ text: String, flag: String, example: String, given: String? = nil) throws(UsageError) -> (address: String, port: UInt16) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]), port > 0 else {
            throw UsageError(description: "invalid value '\(given ?? text)' for '\(flag)': expected ADDR:PORT, such as \(example)")
        }
        var address = String(text[..<colon])
        if address.hasPrefix("[") && address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        return (address, port)
    }

    /// Every file output's path but the statistics' through `transform`: named for a stream or a session.
    mutating func renameFileOutputs(_ transform: (String) -> String) {
        for output in Self.fileOutputs where output.media != .statistics {
            self[keyPath: output.path] = self[keyPath: output.path].map(transform)
        }
    }

    /// Several sessions, each its own files: every output names them with {sdp}.
    func checkSessions(_ outputs: [(output: FileOutput, path: String)]) throws(UsageError) {
        let what = sdpDirectory.map { "'--sdp-dir \($0)'" } ?? "'--sdp' given \(sessionSDPs.count) times"
        if let flag = [("rtsp://", rtsp != nil), ("--port", port != nil), ("--all-streams", allStreams), ("--list", mode == .list),
                       ("--rtmp", rtmp != nil), ("--ssrc", ssrc != nil), ("--payload-type", payloadType != nil),
                       ("--srtp-key", !srtpKeys.isEmpty)].first(where: { $0.1 })?.0 {
            throw UsageError(description: "\(what) records a session an SDP, each on its SDP's ports; '\(flag)' is for one session")
        }
        let paths = outputs
        guard !paths.isEmpty else {
            throw UsageError(description: "\(what) records a session an SDP: give outputs named with {sdp}, such as --flv 'rec/{sdp}.flv'")
        }
        if let (output, path) = paths.first(where: { $0.output.media != .statistics && !$0.path.contains(OutputTemplate.sdpField) }) {
            throw UsageError(description: "'\(output.flag) \(path)' would be written by every session: name each session's file with "
                             + "{sdp} (the SDP file's name), such as \(output.flag) 'rec/{sdp}\(output.suffix)'")
        }
    }

    /// A replay's SDP found in the capture's signalling: where ("SIP INVITE from 10.0.0.1:5060").
    var sdpOrigin: String?

    /// Where the SDP came from, for messages: its file, the RTSP server's DESCRIBE, or the capture.
    var sdpName: String {
        sdp ?? rtsp.map { "the DESCRIBE of \(RTSPURL.masked($0))" } ?? sdpOrigin.map { "the capture's \($0)" } ?? "the SDP"
    }

    /// `--audio-codec` with `--audio-payload-type` as a media line, ahead of an SDP's.
    var audioCodecLine: MediaDescription? {
        guard let audioCodec, let audioPayloadType else { return nil }
        return MediaDescription(media: "audio", payloadType: audioPayloadType, format: audioCodec)
    }

    public var receiverConfiguration: Receiver.Configuration {
        var c = Receiver.Configuration()
        c.ssrc = ssrc
        c.payloadType = payloadType
        // Live, the socket's port already selects; in a capture, the datagrams' destination port does.
        c.destinationPort = isLive || portRange != nil ? nil : port
        let latencyMilliseconds = self.latencyMilliseconds ?? (isLive ? 50 : 500)
        c.maxStreams = maxStreams
        c.stream.reorder = ReorderBuffer.Configuration(
            packets: reorderPackets, latencyNanoseconds: Int64(latencyMilliseconds) * 1_000_000,
            maxPacketBytes: maxPacketBytes)
        c.video.maxAccessUnitBytes = maxFrameBytes
        c.audio.enabled = !noAudio
        c.audio.ssrc = audioSSRC
        c.audio.payloadType = audioPayloadType
        c.video.waitForKeyframeAfterLoss = waitKeyframe
        c.video.maxSpatialLayer = spatialLayer
        c.video.dependencyDescriptorID = dependencyDescriptorID
        c.codec = codec
        c.maxFrames = frames ?? Int.max
        return c
    }
}
