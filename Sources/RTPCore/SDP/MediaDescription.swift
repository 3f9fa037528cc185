/// One `m=` section of an SDP (RFC 8866 §5.14) and the attributes of it a receiver needs.
///
///     m=<media> <port>[/<number of ports>] <proto> <fmt> ...
public struct MediaDescription: Sendable {
    /// A payload type's `a=rtpmap` (RFC 8866 §6.6) and `a=fmtp` (§6.15).
    public struct Format: Sendable {
        public var encodingName: String
        public var clockRate: Int
        /// Audio channels, when the rtpmap gives them.
        public var channels: Int?
        /// The fmtp's `key=value` items, keys in lower case, in order.
        public var parameters: [(key: String, value: String)] = []

        public init(encodingName: String, clockRate: Int, channels: Int? = nil, parameters: [(key: String, value: String)] = []) {
            self.encodingName = encodingName
            self.clockRate = clockRate
            self.channels = channels
            self.parameters = parameters
        }

        public func parameter(_ key: String) -> String? { parameters.first { $0.key == key }?.value }

        /// The clock rates and channel counts an rtpmap may give.
        public static let clockRates = 1...10_000_000
        public static let channelCounts = 1...255
    }

    /// "video", "audio", "application"...
    public var media: String
    /// 0 for a media line that is turned off.
    public var port: UInt16
    public var portCount = 1
    /// RTP/AVP, RTP/AVPF, RTP/SAVP, UDP/TLS/RTP/SAVPF...
    public var proto: String
    public var payloadTypes: [UInt8]
    /// The line's own `c=`, else the session's.
    public var connectionAddress: String?
    /// The line's own inclusive source filter, else the session's.
    public var sourceFilter: String?
    /// `a=rtcp` (RFC 3605): RTCP's port, when not the RTP port plus one.
    public var rtcpPort: UInt16?
    /// `a=rtcp-mux` (RFC 5761): RTCP shares the RTP port.
    public var rtcpMux = false
    /// a=sendonly: in an RTSP server's description, a line the client would send on (an ONVIF
    /// audio back channel), written from the client's side as cameras write them.
    public var isSendOnly = false
    /// b=AS (RFC 8866 §5.8), in kbit/s.
    public var bandwidthKbps: Int?
    /// `a=control` (RFC 2326 §C.1.1): the URL to SETUP this media with.
    public var control: String?
    /// `a=x-dimensions:W,H`: the picture size, as cameras name it beside Motion JPEG whose pictures
    /// are larger than RFC 2435's header can say (2040).
    public var dimensions: (width: Int, height: Int)?
    /// `a=ssrc` (RFC 5576): the SSRCs the sender announces, with their attributes (cname, msid...).
    public var ssrcs: [(ssrc: UInt32, attribute: String, value: String?)] = []
    public var formats: [UInt8: Format] = [:]
    /// `a=rtcp-fb` (RFC 4585 §4.2): the feedback offered, per payload type (nil for `*`), as
    /// "nack", "nack pli", "ccm fir"...
    public var rtcpFeedback: [(payloadType: UInt8?, kind: String)] = []
    /// `a=extmap` (RFC 8285 §8): the header extension elements by ID (1 to 255), each with its URI.
    public var headerExtensions: [(id: UInt8, uri: String)] = []

    /// The ID the line gives the header extension named `uri`.
    public func headerExtensionID(uri: String) -> UInt8? { headerExtensions.first { $0.uri == uri }?.id }

    /// RTX (RFC 4588 §8.1): `a=rtpmap:N rtx/90000` with `a=fmtp:N apt=M`: N carries retransmissions of M.
    public var retransmissionPayloadTypes: [UInt8: UInt8] {
        var map: [UInt8: UInt8] = [:]
        for (pt, format) in formats where format.encodingName.lowercased() == "rtx" {
            if let apt = format.parameter("apt").flatMap({ UInt8($0) }) { map[pt] = apt }
        }
        return map
    }

    /// RED (RFC 2198 §5): `a=rtpmap:N red/…`: N's packets wrap blocks of other payload types.
    public var redundancyPayloadTypes: Set<UInt8> {
        Set(formats.filter { $0.value.encodingName.lowercased() == "red" }.map(\.key))
    }

    /// Whether `kind` ("nack pli", "ccm fir") is offered for `payloadType`.
    public func offersFeedback(_ kind: String, for payloadType: UInt8?) -> Bool {
        rtcpFeedback.contains { ($0.payloadType == nil || $0.payloadType == payloadType) && $0.kind == kind }
    }

    /// `a=crypto` (RFC 4568): the SDES keys of an RTP/SAVP line.
    public var crypto: [CryptoAttribute] = []

    /// RTP/SAVP, RTP/SAVPF or UDP/TLS/RTP/SAVPF: the line's packets are SRTP.
    public var isSecure: Bool { proto.uppercased().contains("SAVP") }

    /// The port RTCP is expected on.
    public var expectedRTCPPort: UInt16 { rtcpMux ? port : rtcpPort ?? port &+ 1 }

    /// A line the command line makes up (`--audio-codec`): one payload type's format, on whatever
    /// port it comes to (port 0).
    public init(media: String, payloadType: UInt8, format: Format) {
        self.media = media
        port = 0
        proto = "RTP/AVP"
        payloadTypes = [payloadType]
        formats = [payloadType: format]
    }

    init(mLine value: Substring, line: Int) throws(SessionDescription.ParseError) {
        let fields = value.split(separator: " ")
        let ports = fields.count >= 2 ? fields[1].split(separator: "/", omittingEmptySubsequences: false) : []
        guard fields.count >= 4, let port = ports.first.flatMap({ UInt16($0) }) else {
            throw SessionDescription.ParseError(line: line, message: "malformed m= line 'm=\(value)'")
        }
        media = String(fields[0])
        self.port = port
        if ports.count > 1, let count = Int(ports[1]), count > 0 { portCount = count }
        proto = String(fields[2])
        payloadTypes = fields.dropFirst(3).compactMap { UInt8($0) }.filter { $0 < 128 }
        // Static payload types have a format without an rtpmap (RFC 3551 §6).
        for pt in payloadTypes { if let known = StaticPayloadType(rawValue: pt) { formats[pt] = known.format } }
    }

    mutating func addAttribute(_ value: Substring, line: Int, warnings: inout [String]) throws(SessionDescription.ParseError) {
        if value.hasPrefix("rtpmap:") {
            try addRTPMap(value, line: line)
        } else if value.hasPrefix("fmtp:") {
            try addFormatParameters(value, line: line)
        } else if value.hasPrefix("rtcp:") {
            // a=rtcp:<port> [<nettype> <addrtype> <address>]
            let port = value.dropFirst("rtcp:".count).split(separator: " ").first.flatMap { UInt16($0) }
            if port == nil { warnings.append("line \(line): 'a=\(value)' names no port; ignored") }
            rtcpPort = port ?? rtcpPort
        } else if value == "rtcp-mux" {
            rtcpMux = true
        } else if value.hasPrefix("x-dimensions:") {
            // Sizes a JPEG's frame header can hold.
            // bounded: parses, nil where not a number, checked below
            let sizes = value.dropFirst("x-dimensions:".count).split(separator: ",").map { Int($0.trimmingWhitespace()) }
            guard sizes.count == 2, let width = sizes[0], let height = sizes[1], (1...65535).contains(width),
                  (1...65535).contains(height) else {
                warnings.append("line \(line): malformed 'a=\(value)'; ignored")
                return
            }
            dimensions = (width, height)
        } else if value == "sendonly" {
            isSendOnly = true
        } else if value.hasPrefix("control:") {
            control = String(value.dropFirst("control:".count).trimmingWhitespace())
        } else if value.hasPrefix("rtcp-fb:") {
            // a=rtcp-fb:<payload type or *> <type> [<parameters>]
            let parts = value.dropFirst("rtcp-fb:".count).split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0] == "*" || UInt8(parts[0]) != nil else {
                warnings.append("line \(line): malformed 'a=\(value)'; ignored")
                return
            }
            let kind = parts[1].split(separator: " ").joined(separator: " ").lowercased()
            rtcpFeedback.append((UInt8(parts[0]), kind))
        } else if value.hasPrefix("extmap:") {
            // a=extmap:<value>["/"<direction>] <URI> [<extension attributes>]
            let parts = value.dropFirst("extmap:".count).split(separator: " ")
            guard parts.count >= 2, let id = parts[0].split(separator: "/").first.flatMap({ UInt8($0) }), id > 0 else {
                warnings.append("line \(line): malformed 'a=\(value)'; ignored")
                return
            }
            headerExtensions.append((id, String(parts[1])))
        } else if value.hasPrefix("crypto:") {
            do {
                crypto.append(try CryptoAttribute(value.dropFirst("crypto:".count), line: line))
            } catch {
                warnings.append("\(error.description); ignored")
            }
        } else if value.hasPrefix("ssrc:") {
            // a=ssrc:<ssrc-id> <attribute>[:<value>]
            let body = value.dropFirst("ssrc:".count)
            let parts = body.split(separator: " ", maxSplits: 1)
            guard let ssrc = parts.first.flatMap({ UInt32($0) }) else {
                warnings.append("line \(line): 'a=\(value)' names no SSRC; ignored")
                return
            }
            let attribute = parts.count > 1 ? parts[1].split(separator: ":", maxSplits: 1) : []
            ssrcs.append((ssrc, attribute.first.map(String.init) ?? "", attribute.count > 1 ? String(attribute[1]) : nil))
        }
    }

    /// a=rtpmap:<payload type> <encoding name>/<clock rate>[/<encoding parameters>]
    private mutating func addRTPMap(_ value: Substring, line: Int) throws(SessionDescription.ParseError) {
        let parts = value.dropFirst("rtpmap:".count).split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let pt = UInt8(parts[0]) else {
            throw SessionDescription.ParseError(line: line, message: "malformed rtpmap 'a=\(value)'")
        }
        let encoding = parts[1].trimmingWhitespace().split(separator: "/", omittingEmptySubsequences: false)
        var format = formats[pt] ?? Format(encodingName: "", clockRate: 90000)
        format.encodingName = String(encoding[0])
        // Every clock and duration divides by the rate, or multiplies by it: 1 Hz to 10 MHz.
        format.clockRate = 90000
        if encoding.count > 1 {
            guard let rate = Int(encoding[1]), Format.clockRates.contains(rate) else {
                throw SessionDescription.ParseError(line: line, message: "clock rate '\(encoding[1])' in 'a=\(value)' is not "
                                                    + "from \(Format.clockRates.lowerBound) to \(Format.clockRates.upperBound) Hz")
            }
            format.clockRate = rate
        }
        format.channels = nil
        if encoding.count > 2 {
            guard let channels = Int(encoding[2]), Format.channelCounts.contains(channels) else {
                throw SessionDescription.ParseError(line: line, message: "channel count '\(encoding[2])' in 'a=\(value)' is not "
                                                    + "from \(Format.channelCounts.lowerBound) to \(Format.channelCounts.upperBound)")
            }
            format.channels = channels
        }
        formats[pt] = format
    }

    /// a=fmtp:<payload type> <key>=<value>; <key>=<value>... A line with no parameters at all
    /// (Ubiquiti's cameras send `a=fmtp:96` for Opus) says nothing, and is taken.
    private mutating func addFormatParameters(_ value: Substring, line: Int) throws(SessionDescription.ParseError) {
        let body = value.dropFirst("fmtp:".count)
        let space = body.firstIndex(of: " ") ?? body.endIndex
        guard let pt = UInt8(body[..<space]) else {
            throw SessionDescription.ParseError(line: line, message: "malformed fmtp 'a=\(value)'")
        }
        var format = formats[pt] ?? Format(encodingName: "", clockRate: 90000)
        for item in body[space...].split(separator: ";") {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            format.parameters.append((String(pair[0].trimmingWhitespace()).lowercased(), String(pair[1].trimmingWhitespace())))
        }
        formats[pt] = format
    }
}

extension [MediaDescription] {
    /// The rtpmap of `payloadType` with an encoding name, on the line of `port` first, then on the others.
    public func namedFormat(payloadType: UInt8, port: UInt16?) -> MediaDescription.Format? {
        for line in filter({ $0.port == port }) + filter({ $0.port != port }) {
            if let format = line.formats[payloadType], !format.encodingName.isEmpty { return format }
        }
        return nil
    }
}
