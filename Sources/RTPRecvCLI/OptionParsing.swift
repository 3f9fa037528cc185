import RTMPOutput
import RTPCore

/// The command line's arguments one at a time, and the value of the option just read: the rest of
/// `--name=value`, or the next argument.
struct ArgumentReader {
    private var rest: ArraySlice<String>
    private(set) var argument = ""
    /// The option's name, without a `=value` written into it.
    private(set) var name = ""
    private var inlineValue: String?

    init(_ arguments: [String]) {
        rest = arguments[...]
    }

    /// Reads the next argument; false at the end.
    mutating func next() -> Bool {
        guard let argument = rest.popFirst() else { return false }
        (self.argument, name, inlineValue) = (argument, argument, nil)
        if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
            name = String(argument[..<eq])
            inlineValue = String(argument[argument.index(after: eq)...])
        }
        return true
    }

    mutating func value() throws(Options.UsageError) -> String {
        if let inlineValue { return inlineValue }
        guard let next = rest.popFirst() else { throw Options.UsageError(description: "missing value for '\(name)'") }
        return next
    }

    /// A decimal or 0x-hex number in `range`.
    mutating func number<T: FixedWidthInteger>(_ type: T.Type, _ range: ClosedRange<T>) throws(Options.UsageError) -> T {
        let text = try value()
        let parsed: T? = text.lowercased().hasPrefix("0x") ? T(text.dropFirst(2), radix: 16) : T(text)
        guard let parsed, range.contains(parsed) else {
            throw Options.UsageError(description: "invalid value '\(text)' for '\(name)': expected a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return parsed
    }

    /// Seconds above 0, at most `Options.maxSeconds`.
    mutating func seconds() throws(Options.UsageError) -> Double {
        let text = try value()
        guard let parsed = Double(text), parsed > 0, parsed <= Options.maxSeconds else {
            throw Options.UsageError(description: "invalid value '\(text)' for '\(name)': expected seconds greater than 0 "
                                     + "and at most \(Int(Options.maxSeconds))")
        }
        return parsed
    }
}

/// Each option, taken by the group it belongs to: false when it is none of the group's.
extension Options {
    /// "500M", "20G", "2T" (powers of 1024, K to T), or bytes; nil for anything else or above 2^62.
    static func size(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        let unit = text.last.flatMap { units[Character($0.uppercased())] }
        guard let number = Double(unit == nil ? text : String(text.dropLast())), number.isFinite, number >= 0 else { return nil }
        let bytes = number * Double(unit ?? 1)
        return bytes < 0x1p62 ? Int64(bytes) : nil
    }

    /// What is read, and which of it: the input, the streams, the bounds, the audio.
    mutating func takeInput(_ r: inout ArgumentReader) throws(UsageError) -> Bool {
        switch r.name {
        case "-h", "--help": mode = .help
        case "--version": mode = .version
        case "--list": mode = .list
        case "--pcap": pcap = try r.value()
        case "--sdp": sessionSDPs.append(try r.value())
        case "--sdp-dir": sdpDirectory = try r.value()
        case "--ssrc": ssrc = try r.number(UInt32.self, 0...UInt32.max)
        case "--payload-type": payloadType = try r.number(UInt8.self, 0...127)
        case "--codec":
            let text = try r.value()
            guard let named = VideoCodec(rawValue: text.lowercased()) else {
                let names = VideoCodec.listed(\.rawValue)
                throw UsageError(description: "invalid value '\(text)' for '--codec': expected \(names)")
            }
            codec = named
        case "--dependency-descriptor": dependencyDescriptorID = try r.number(UInt8.self, 1...255)
        case "--port":
            let text = try r.value()
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
        case "--bind": bind = try r.value()
        case "--iface": interface = try r.value()
        case "--source": sourceFilter = try r.value()
        case "--rcvbuf": receiveBufferBytes = try r.number(Int.self, 4096...(1 << 30))
        case "--duration": duration = try r.seconds()
        case "--frames": frames = try r.number(Int.self, 1...Int.max)
        case "--timeout": timeout = try r.seconds()
        case "--exit-on-timeout": exitOnTimeout = true
        case "--reorder-packets": reorderPackets = try r.number(Int.self, 1...65536)
        case "--latency-ms": latencyMilliseconds = try r.number(Int.self, 0...60_000)
        case "--batch-ms": batchMilliseconds = try r.number(Int.self, 0...1000)
        case "--max-frame-bytes": maxFrameBytes = try r.number(Int.self, 1024...(1 << 30))
        case "--max-packet-bytes": maxPacketBytes = try r.number(Int.self, 64...65536)
        case "--max-streams":
            maxStreams = try r.number(Int.self, 1...4096)
            maxStreamsGiven = true
        case "--no-audio": noAudio = true
        case "--all-streams": allStreams = true
        case "--audio-ssrc": audioSSRC = try r.number(UInt32.self, 0...UInt32.max)
        case "--audio-payload-type": audioPayloadType = try r.number(UInt8.self, 0...127)
        case "--audio-port": audioPort = try r.number(UInt16.self, 1...UInt16.max)
        case "--tcp-framing":
            let text = try r.value()
            guard let framing = InterleavedCapture.Framing(rawValue: text.lowercased()) else {
                throw UsageError(description: "invalid value '\(text)' for '--tcp-framing': expected rtsp or rfc4571")
            }
            tcpFraming = framing
        default:
            return false
        }
        return true
    }

    /// What is written: files, decoding, FLV and RTMP, segments, the metrics endpoint, messages.
    mutating func takeOutput(_ r: inout ArgumentReader) throws(UsageError) -> Bool {
        switch r.name {
        case "-o", "--out": out = try r.value()
        case "--stats-json": statsJSON = try r.value()
        case "--frames-json": framesJSON = try r.value()
        case "--report": report = try r.value()
        case "--wait-keyframe": waitKeyframe = true
        case "--spatial-layer": spatialLayer = try r.number(Int.self, 0...7)
        case "--decode": decode = true
        case "--yuv": yuv = try r.value()
        case "--y4m": y4m = try r.value()
        case "--frame-md5": frameMD5 = try r.value()
        case "--pix-fmt": pixelFormat = try r.value()
        case "--scale":
            let text = try r.value()
            let parts = text.lowercased().split(separator: "x")
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (2...16384).contains(w), (2...16384).contains(h)
            else { throw UsageError(description: "invalid value '\(text)' for '--scale': expected WIDTHxHEIGHT, such as 1280x720") }
            scale = (w, h)
        case "--threads": threads = try r.number(Int.self, 0...64)
        case "--skip-corrupt": skipCorrupt = true
        case "--flv": flv = try r.value()
        case "--mp4": mp4 = try r.value()
        case "--mkv": mkv = try r.value()
        case "--ts": ts = try r.value()
        case "--fragment-ms": fragmentMilliseconds = try r.number(Int.self, 100...60_000)
        case "--faststart": faststart = true
        case "--no-audio-transcode": noAudioTranscode = true
        case "--segment-index": segmentIndex = try r.value()
        case "--retain-hours":
            let text = try r.value()
            guard let hours = Double(text), hours > 0, hours <= 87_600 else {
                throw UsageError(description: "invalid value '\(text)' for '--retain-hours': expected hours above 0, such as 48 or 0.5")
            }
            retainHours = hours
        case "--retain-size":
            let text = try r.value()
            guard let bytes = Options.size(text), bytes > 0 else {
                throw UsageError(description: "invalid value '\(text)' for '--retain-size': expected a size such as 500M, 20G or 2T "
                                 + "(powers of 1024), or bytes")
            }
            retainBytes = bytes
        case "--fsync":
            let text = try r.value()
            guard let policy = FsyncPolicy(rawValue: text) else {
                throw UsageError(description: "invalid value '\(text)' for '--fsync': expected fragment, segment or none")
            }
            fsync = policy
        case "--flv-keep-after-loss": flvKeepAfterLoss = true
        case "--flv-hevc-legacy": flvHEVCLegacy = true
        case "--interleave-ms": interleaveMilliseconds = try r.number(Int.self, 0...60_000)
        case "--audio": audio = try r.value()
        case "--wav": wav = try r.value()
        case "--rtmp":
            let url = try r.value()
            if let problem = RTMPURL.validationError(url) { throw UsageError(description: problem) }
            rtmp = url
        case "--rtmp-queue-ms": rtmpQueueMilliseconds = try r.number(Int.self, 100...60_000)
        case "--segment-seconds": segmentSeconds = try r.number(Int.self, 1...86_400)
        case "--segment-wallclock": segmentWallclock = true
        case "--metrics":
            let text = try r.value()
            // A port alone is on loopback: nothing is served beyond the host unless asked.
            metrics = try Options.addressAndPort(text.contains(":") ? text : "127.0.0.1:" + text, flag: r.name,
                                                 example: "127.0.0.1:9464, [::1]:9464 or 9464", given: text)
        case "--realtime": realtime = true
        case "--no-realtime": realtime = false
        case "-q", "--quiet": quiet = true
        case "-v", "--verbose": verbose = true
        default:
            return false
        }
        return true
    }

    /// SRTP keys, and what RTCP says back.
    mutating func takeSecurityAndFeedback(_ r: inout ArgumentReader) throws(UsageError) -> Bool {
        switch r.name {
        case "--srtp-key":
            let text = try r.value()
            do {
                srtpKeys.append(try SRTPMasterKey(option: text, origin: "--srtp-key #\(srtpKeys.count + 1)"))
            } catch {
                throw UsageError(description: error.description)
            }
        case "--srtp-keying-material":
            let text = try r.value()
            do {
                dtlsKeyingMaterial = try DTLSKeyingMaterial(option: text, origin: "--srtp-keying-material")
            } catch {
                throw UsageError(description: error.description)
            }
        case "--dtls-role":
            let text = try r.value()
            guard let role = DTLSRole(rawValue: text.lowercased()) else {
                throw UsageError(description: "invalid value '\(text)' for '--dtls-role': expected client, server or auto")
            }
            dtlsRole = role
        case "--no-rtcp": noRTCP = true
        case "--request-keyframe": requestKeyframe = true
        case "--nack": nack = true
        case "--rtx-payload-type": rtxPayloadType = try r.number(UInt8.self, 96...127)
        case "--rtcp-to": rtcpTo = try Options.addressAndPort(try r.value(), flag: r.name, example: "10.0.0.7:5005 or [::1]:5005")
        default:
            return false
        }
        return true
    }

    /// Pulling from an RTSP server: its URL, transport and login.
    mutating func takeRTSP(_ r: inout ArgumentReader) throws(UsageError) -> Bool {
        switch r.name {
        case "--reconnect": reconnect = true
        case "--rtsp-transport":
            let text = try r.value()
            guard let choice = RTSPTransportChoice(rawValue: text.lowercased()) else {
                throw UsageError(description: "invalid value '\(text)' for '--rtsp-transport': expected auto, udp, tcp or multicast")
            }
            rtspTransport = choice
        case "--user": user = try r.value()
        case "--password": password = try r.value()
        default:
            // The server to pull from: one rtsp:// URL, anywhere among the options.
            let argument = r.argument
            guard !argument.hasPrefix("-"), argument.lowercased().hasPrefix("rtsp://") || argument.lowercased().hasPrefix("rtsps://")
            else { return false }
            guard rtsp == nil else { throw UsageError(description: "one rtsp:// URL at a time") }
            do { _ = try RTSPURL(parsing: argument) } catch { throw UsageError(description: error.description) }
            rtsp = argument
        }
        return true
    }
}
