import RTPCore

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
    public var maxFrameBytes = 32 << 20
    public var maxPacketBytes = 65536
    public var maxStreams = 16
    private var maxStreamsGiven = false
    public var waitKeyframe = false
    public var decode = false
    public var yuv: String?
    public var y4m: String?
    public var frameMD5: String?
    public var pixelFormat: String?
    public var scale: (width: Int, height: Int)?
    public var threads = 0
    public var skipCorrupt = false
    public var flv: String?
    public var flvKeepAfterLoss = false
    public var flvHEVCLegacy = false
    /// --codec: the codec of dynamic payload types no SDP names.
    public var codec: VideoCodec?
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
    /// Pull from an RTSP server (`rtsp://[user[:password]@]host[:port]/path`).
    public var rtsp: String?
    public var rtspTransport = RTSPTransportChoice.auto
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

    /// How the RTSP client asks for the media: UDP first then TCP (auto), or one of them.
    public enum RTSPTransportChoice: String, CaseIterable, Sendable { case auto, udp, tcp, multicast }

    /// Whose packets a DTLS-SRTP capture's streams are: the DTLS client's, the server's, or either.
    public enum DTLSRole: String, CaseIterable, Sendable { case client, server, auto }

    public init(arguments: [String]) throws(UsageError) {
        if arguments.isEmpty {
            throw UsageError(description: "nothing to do: give --pcap FILE to replay a capture, --port N to receive live, "
                             + "or an rtsp:// URL to pull from a camera")
        }
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                name = String(argument[..<eq])
                inlineValue = String(argument[argument.index(after: eq)...])
            }
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = rest.popFirst() else { throw UsageError(description: "missing value for '\(name)'") }
                return next
            }
            func number<T: FixedWidthInteger>(_ type: T.Type, _ range: ClosedRange<T>) throws(UsageError) -> T {
                let text = try value()
                let parsed: T? = text.lowercased().hasPrefix("0x") ? T(text.dropFirst(2), radix: 16) : T(text)
                guard let parsed, range.contains(parsed) else {
                    throw UsageError(description: "invalid value '\(text)' for '\(name)': expected a number from \(range.lowerBound) to \(range.upperBound)")
                }
                return parsed
            }
            func seconds() throws(UsageError) -> Double {
                let text = try value()
                guard let parsed = Double(text), parsed > 0, parsed <= Options.maxSeconds else {
                    throw UsageError(description: "invalid value '\(text)' for '\(name)': expected seconds greater than 0 "
                                     + "and at most \(Int(Options.maxSeconds))")
                }
                return parsed
            }
            switch name {
            case "-h", "--help": mode = .help
            case "--version": mode = .version
            case "--list": mode = .list
            case "--pcap": pcap = try value()
            case "--sdp": sessionSDPs.append(try value())
            case "--sdp-dir": sdpDirectory = try value()
            case "-o", "--out": out = try value()
            case "--stats-json": statsJSON = try value()
            case "--frames-json": framesJSON = try value()
            case "--ssrc": ssrc = try number(UInt32.self, 0...UInt32.max)
            case "--payload-type": payloadType = try number(UInt8.self, 0...127)
            case "--codec":
                let text = try value()
                guard let named = VideoCodec(rawValue: text.lowercased()) else {
                    throw UsageError(description: "invalid value '\(text)' for '--codec': expected h264 or h265")
                }
                codec = named
            case "--port":
                let text = try value()
                let bounds = text.split(separator: "-", omittingEmptySubsequences: false).map { UInt16($0) }
                if bounds.count == 2, let low = bounds[0], let high = bounds[1] {
                    guard low > 0, low <= high, Int(high - low) < Options.maxPortRange else {
                        throw UsageError(description: "invalid value '\(text)' for '--port': a range is LOW-HIGH, from 1, "
                                         + "at most \(Options.maxPortRange) ports")
                    }
                    (port, portRange) = (low, low...high)
                } else {
                    guard bounds.count == 1, let single = bounds[0] else {
                        throw UsageError(description: "invalid value '\(text)' for '--port': expected a port (0-65535) or a range LOW-HIGH")
                    }
                    port = single
                }
            case "--bind": bind = try value()
            case "--iface": interface = try value()
            case "--source": sourceFilter = try value()
            case "--rcvbuf": receiveBufferBytes = try number(Int.self, 4096...(1 << 30))
            case "--duration": duration = try seconds()
            case "--frames": frames = try number(Int.self, 1...Int.max)
            case "--timeout": timeout = try seconds()
            case "--exit-on-timeout": exitOnTimeout = true
            case "--reorder-packets": reorderPackets = try number(Int.self, 1...65536)
            case "--latency-ms": latencyMilliseconds = try number(Int.self, 0...60_000)
            case "--max-frame-bytes": maxFrameBytes = try number(Int.self, 1024...(1 << 30))
            case "--max-packet-bytes": maxPacketBytes = try number(Int.self, 64...65536)
            case "--max-streams":
                maxStreams = try number(Int.self, 1...4096)
                maxStreamsGiven = true
            case "--wait-keyframe": waitKeyframe = true
            case "--decode": decode = true
            case "--yuv": yuv = try value()
            case "--y4m": y4m = try value()
            case "--frame-md5": frameMD5 = try value()
            case "--pix-fmt": pixelFormat = try value()
            case "--scale":
                let text = try value()
                let parts = text.lowercased().split(separator: "x")
                guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (2...16384).contains(w), (2...16384).contains(h)
                else { throw UsageError(description: "invalid value '\(text)' for '--scale': expected WIDTHxHEIGHT, such as 1280x720") }
                scale = (w, h)
            case "--threads": threads = try number(Int.self, 0...64)
            case "--skip-corrupt": skipCorrupt = true
            case "--flv": flv = try value()
            case "--flv-keep-after-loss": flvKeepAfterLoss = true
            case "--flv-hevc-legacy": flvHEVCLegacy = true
            case "--interleave-ms": interleaveMilliseconds = try number(Int.self, 0...60_000)
            case "--audio": audio = try value()
            case "--wav": wav = try value()
            case "--no-audio": noAudio = true
            case "--all-streams": allStreams = true
            case "--audio-ssrc": audioSSRC = try number(UInt32.self, 0...UInt32.max)
            case "--audio-payload-type": audioPayloadType = try number(UInt8.self, 0...127)
            case "--audio-port": audioPort = try number(UInt16.self, 1...UInt16.max)
            case "--srtp-key":
                let text = try value()
                do {
                    srtpKeys.append(try SRTPMasterKey(option: text, origin: "--srtp-key #\(srtpKeys.count + 1)"))
                } catch {
                    throw UsageError(description: error.description)
                }
            case "--srtp-keying-material":
                let text = try value()
                do {
                    dtlsKeyingMaterial = try DTLSKeyingMaterial(option: text, origin: "--srtp-keying-material")
                } catch {
                    throw UsageError(description: error.description)
                }
            case "--dtls-role":
                let text = try value()
                guard let role = DTLSRole(rawValue: text.lowercased()) else {
                    throw UsageError(description: "invalid value '\(text)' for '--dtls-role': expected client, server or auto")
                }
                dtlsRole = role
            case "--rtmp":
                let url = try value()
                if let problem = RTMPURL.validationError(url) { throw UsageError(description: problem) }
                rtmp = url
            case "--rtmp-queue-ms": rtmpQueueMilliseconds = try number(Int.self, 100...60_000)
            case "--reconnect": reconnect = true
            case "--no-rtcp": noRTCP = true
            case "--request-keyframe": requestKeyframe = true
            case "--nack": nack = true
            case "--rtx-payload-type": rtxPayloadType = try number(UInt8.self, 96...127)
            case "--rtcp-to": rtcpTo = try Options.addressAndPort(try value(), flag: name, example: "10.0.0.7:5005 or [::1]:5005")
            case "--segment-seconds": segmentSeconds = try number(Int.self, 1...86_400)
            case "--segment-wallclock": segmentWallclock = true
            case "--metrics":
                let text = try value()
                // A port alone is on loopback: nothing is served beyond the host unless asked.
                metrics = try Options.addressAndPort(text.contains(":") ? text : "127.0.0.1:" + text, flag: name,
                                                     example: "127.0.0.1:9464, [::1]:9464 or 9464", given: text)
            case "--realtime": realtime = true
            case "--no-realtime": realtime = false
            case "-q", "--quiet": quiet = true
            case "-v", "--verbose": verbose = true
            case "--rtsp-transport":
                let text = try value()
                guard let choice = RTSPTransportChoice(rawValue: text.lowercased()) else {
                    throw UsageError(description: "invalid value '\(text)' for '--rtsp-transport': expected auto, udp, tcp or multicast")
                }
                rtspTransport = choice
            case "--tcp-framing":
                let text = try value()
                guard let framing = InterleavedCapture.Framing(rawValue: text.lowercased()) else {
                    throw UsageError(description: "invalid value '\(text)' for '--tcp-framing': expected rtsp or rfc4571")
                }
                tcpFraming = framing
            case "--user": user = try value()
            case "--password": password = try value()
            default:
                if !argument.hasPrefix("-"), argument.lowercased().hasPrefix("rtsp://") || argument.lowercased().hasPrefix("rtsps://") {
                    guard rtsp == nil else { throw UsageError(description: "one rtsp:// URL at a time") }
                    do { _ = try RTSPURL(parsing: argument) } catch { throw UsageError(description: error.description) }
                    rtsp = argument
                    continue
                }
                if argument.hasPrefix("-") { throw UsageError(description: "unknown option '\(name)'") }
                throw UsageError(description: "unexpected argument '\(argument)'")
            }
        }
        if mode == .help || mode == .version { return }
        // One SDP is the session; more are a session each.
        if sessionSDPs.count == 1 && sdpDirectory == nil { sdp = sessionSDPs.removeFirst() }
        if let rtsp {
            if let flag = [("--pcap", pcap != nil), ("--sdp", sdp != nil), ("--port", port != nil), ("--audio-port", audioPort != nil),
                           ("--rtcp-to", rtcpTo != nil), ("--source", sourceFilter != nil)].first(where: { $0.1 })?.0 {
                throw UsageError(description: "'\(flag)' does not go with an rtsp:// URL: the server's session description says "
                                 + "what comes, and where")
            }
            if rtsp.lowercased().hasPrefix("rtsps://") {
                throw UsageError(description: "rtsps:// (RTSP over TLS) is not supported yet; use rtsp://")
            }
        } else if let flag = [("--rtsp-transport", rtspTransport != .auto), ("--user", user != nil), ("--password", password != nil)]
            .first(where: { $0.1 })?.0 {
            throw UsageError(description: "'\(flag)' is for pulling from an RTSP server: give its rtsp:// URL")
        }
        if mode == .list && pcap == nil {
            throw UsageError(description: "'--list' needs a capture: give --pcap FILE")
        }
        if pcap != nil {
            for (flag, given) in [("--bind", bind != nil), ("--iface", interface != nil), ("--duration", duration != nil),
                                  ("--timeout", timeout != nil), ("--exit-on-timeout", exitOnTimeout)] where given {
                throw UsageError(description: "'\(flag)' is for live input; it does not go with --pcap")
            }
        }
        if audioPort != nil && pcap != nil {
            throw UsageError(description: "'--audio-port' is for live input; in a capture every port is read (--port selects the video's)")
        }
        if audioPort != nil && sdp != nil {
            throw UsageError(description: "'--audio-port' is for live input without an SDP; the SDP's audio line gives the port")
        }
        if exitOnTimeout && timeout == nil {
            throw UsageError(description: "'--exit-on-timeout' needs '--timeout SECONDS'")
        }
        if noAudio, let flag = [("--audio", audio != nil), ("--wav", wav != nil), ("--audio-ssrc", audioSSRC != nil),
                                ("--audio-payload-type", audioPayloadType != nil), ("--audio-port", audioPort != nil)].first(where: { $0.1 })?.0 {
            throw UsageError(description: "'\(flag)' selects audio, which '--no-audio' leaves out")
        }
        if sdp == nil, let pt = audioPayloadType, pt >= 96 {
            throw UsageError(description: "'--audio-payload-type \(pt)' is a dynamic type: its codec comes only from an SDP (--sdp FILE)")
        }
        if sdp == nil, let pt = audioPayloadType, !AudioSelection.staticTypes.contains(where: { $0.rawValue == pt }) {
            throw UsageError(description: "'--audio-payload-type \(pt)' is no audio type rtprecv takes without an SDP "
                             + "(0 PCMU, 8 PCMA, 9 G.722, 14 MPA)")
        }
        let toStdout = [("--out", out), ("--yuv", yuv), ("--y4m", y4m), ("--frame-md5", frameMD5), ("--flv", flv),
                        ("--audio", audio), ("--wav", wav), ("--stats-json", statsJSON), ("--frames-json", framesJSON)]
            .filter { $0.1 == "-" }.map(\.0)
        if toStdout.count > 1 {
            throw UsageError(description: "\(toStdout.joined(separator: " and ")) cannot all write to standard output")
        }
        if yuv != nil || y4m != nil || frameMD5 != nil { decode = true }
        if !decode, let flag = [("--pix-fmt", pixelFormat != nil), ("--scale", scale != nil), ("--skip-corrupt", skipCorrupt)]
            .first(where: { $0.1 })?.0 {
            throw UsageError(description: "'\(flag)' applies to decoded frames: add --decode, --yuv or --y4m")
        }
        if quiet && verbose { throw UsageError(description: "'-q' and '-v' cannot be used together") }
        if rtmp == nil, let flag = [("--reconnect", reconnect && rtsp == nil), ("--realtime", realtime == true),
                                    ("--no-realtime", realtime == false)]
            .first(where: { $0.1 })?.0 {
            throw UsageError(description: flag == "--reconnect" ? "'--reconnect' is for publishing (--rtmp URL) or pulling (an rtsp:// URL)"
                             : "'\(flag)' is for publishing: add --rtmp URL")
        }
        for (flag, path, example) in [("--out", out, "cam-{start}.h264"), ("--flv", flv, "cam-{start}.flv")] {
            guard let path, OutputTemplate.isTemplate(path) != (segmentSeconds != nil) else { continue }
            throw UsageError(description: segmentSeconds == nil
                ? "'\(flag) \(path)' names segments ({n} or {start}): give --segment-seconds N"
                : "'--segment-seconds' cuts \(flag) into files: name them with {n} or {start}, such as \(flag) '\(example)'")
        }
        if segmentSeconds != nil && out == nil && flv == nil {
            throw UsageError(description: "'--segment-seconds' cuts the Annex-B output or the FLV: give --out 'NAME-{n}.h264' or --flv 'NAME-{n}.flv'")
        }
        if segmentWallclock && segmentSeconds == nil {
            throw UsageError(description: "'--segment-wallclock' aligns segments to the clock: give --segment-seconds N too")
        }
        let perStream = [("--out", out), ("--flv", flv), ("--frames-json", framesJSON), ("--stats-json", statsJSON),
                         ("--yuv", yuv), ("--y4m", y4m), ("--frame-md5", frameMD5), ("--audio", audio), ("--wav", wav)]
            .compactMap { flag, path in path.map { (flag, $0) } }
        if perStream.contains(where: { OutputTemplate.namesStream($0.1) }) || portRange != nil { allStreams = true }
        // A stream a port at least, unless told otherwise.
        if let portRange, !maxStreamsGiven { maxStreams = max(maxStreams, portRange.count) }
        if recordsSessions { try checkSessions(perStream) }
        if portRange != nil && sdp != nil {
            throw UsageError(description: "'--port LOW-HIGH' listens on a range of ports; with --sdp, the SDP's lines name the ports")
        }
        if allStreams {
            if let flag = [("--rtmp", rtmp != nil), ("--ssrc", ssrc != nil), ("--audio-ssrc", audioSSRC != nil)]
                .first(where: { $0.1 })?.0 {
                throw UsageError(description: "'--all-streams' records every stream to files; '\(flag)' is for one stream")
            }
            // Every stream writes its own files: each output (but statistics, which can be one file) names them apart.
            if let (flag, path) = perStream.first(where: { $0.0 != "--stats-json" && !OutputTemplate.namesStream($0.1) }) {
                throw UsageError(description: "'\(flag) \(path)' would be written by every stream: name each stream's file with "
                                 + "{ssrc} (or {pt}, {port}, {src}), such as \(flag) 'rec/{ssrc}"
                                 + (flag == "--flv" ? ".flv" : flag == "--audio" || flag == "--wav" ? ".wav" : ".h264") + "'")
            }
        }
        if pcap != nil && metrics != nil {
            throw UsageError(description: "'--metrics' serves a live run's statistics; a replay ends with them in --stats-json")
        }
        if pcap != nil, let flag = [("--no-rtcp", noRTCP), ("--rtcp-to", rtcpTo != nil), ("--request-keyframe", requestKeyframe),
                                    ("--nack", nack)]
            .first(where: { $0.1 })?.0 {
            throw UsageError(description: "'\(flag)' is for live input: a capture has no sender to talk back to")
        }
        if noRTCP, let flag = [("--rtcp-to", rtcpTo != nil), ("--request-keyframe", requestKeyframe), ("--nack", nack)]
            .first(where: { $0.1 })?.0 {
            throw UsageError(description: "'\(flag)' sends RTCP, which '--no-rtcp' turns off")
        }
        if realtime != nil && pcap == nil {
            throw UsageError(description: "'--\(realtime! ? "" : "no-")realtime' paces a replay; live input comes in real time already")
        }
        if dtlsRole != nil && dtlsKeyingMaterial == nil {
            throw UsageError(description: "'--dtls-role' says whose packets '--srtp-keying-material' decrypts: give that too")
        }
    }

    public var isLive: Bool { pcap == nil }

    /// --duration and --timeout in nanoseconds: at most `maxSeconds`, so the products fit.
    public var durationNanoseconds: Int64? { duration.map { Int64($0 * 1e9) } }
    public var timeoutNanoseconds: Int64? { timeout.map { Int64($0 * 1e9) } }

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
        let paths: [WritableKeyPath<Options, String?>] = [\.out, \.flv, \.framesJSON, \.yuv, \.y4m, \.frameMD5, \.audio, \.wav]
        for path in paths { self[keyPath: path] = self[keyPath: path].map(transform) }
    }

    /// Several sessions, each its own files: every output names them with {sdp}.
    private func checkSessions(_ outputs: [(String, String)]) throws(UsageError) {
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
        if let (flag, path) = paths.first(where: { $0.0 != "--stats-json" && !$0.1.contains(OutputTemplate.sdpField) }) {
            throw UsageError(description: "'\(flag) \(path)' would be written by every session: name each session's file with "
                             + "{sdp} (the SDP file's name), such as \(flag) 'rec/{sdp}\(flag == "--flv" ? ".flv" : ".h264")'")
        }
    }

    /// A replay's SDP found in the capture's signalling: where ("SIP INVITE from 10.0.0.1:5060").
    var sdpOrigin: String?

    /// Where the SDP came from, for messages: its file, the RTSP server's DESCRIBE, or the capture.
    var sdpName: String {
        sdp ?? rtsp.map { "the DESCRIBE of \(RTSPURL.masked($0))" } ?? sdpOrigin.map { "the capture's \($0)" } ?? "the SDP"
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
        c.codec = codec
        return c
    }
}
