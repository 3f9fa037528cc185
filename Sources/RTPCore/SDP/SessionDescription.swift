/// An SDP (RFC 8866): every media line with what a receiver needs of it, and the video a receiver
/// takes from it.
///
/// Each `m=` line becomes a `MediaDescription`: its port, transport, payload types, connection
/// address and source filter (RFC 4570), RTCP port (RFC 3605 `a=rtcp`) and `a=rtcp-mux` (RFC 5761),
/// `a=control` (RFC 2326), `a=ssrc` (RFC 5576), and every format's `a=rtpmap` and `a=fmtp`. The
/// first video line that carries a registered codec (else the first video line) gives the video
/// fields, its fmtp read by that codec's `VideoFormatParameters`.
public struct SessionDescription: Sendable {
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// Every media line, in order.
    public var media: [MediaDescription] = []
    public var warnings: [String] = []

    // The video, from the first video line with a registered codec.
    public var port: UInt16?
    public var connectionAddress: String?
    /// The sender an `a=source-filter: incl` names, for a source-specific multicast join: the
    /// video's own filter, else the session's.
    public var sourceFilter: String?
    public var payloadType: UInt8?
    public var encodingName: String?
    public var clockRate: Int = 90000
    /// The codec of `payloadType`: H.264 also when an fmtp comes without an rtpmap.
    public var codec: VideoCodec?
    /// Every payload type of the video line whose rtpmap names a codec rtprecv takes.
    public var videoCodecs: [UInt8: VideoCodec] = [:]
    /// The fmtp of `payloadType`, as `codec`'s payload format reads it.
    public var formatParameters: (any VideoFormatParameters)?
    /// The fmtp of every payload type of the video line whose rtpmap names a codec rtprecv takes,
    /// each read by its codec's format: an offer lists several, and the sender may use any.
    public var videoFormatParameters: [UInt8: any VideoFormatParameters] = [:]
    /// The parameter sets of the fmtp (sprop-parameter-sets, sprop-vps/sps/pps/sei), decoded.
    public var parameterSets: [[UInt8]] { formatParameters?.parameterSets ?? [] }

    /// b=AS at the session level, in kbit/s.
    public var sessionBandwidthKbps: Int?

    /// What the session's media may take, for RTCP's interval (RFC 3550 §6.2): the session's b=AS,
    /// else the sum of the lines' (those that name one), in bit/s; nil when none does.
    public var bandwidthBitsPerSecond: Double? {
        if let kbps = sessionBandwidthKbps { return Double(kbps) * 1000 }
        let lines = media.compactMap(\.bandwidthKbps)
        return lines.isEmpty ? nil : Double(lines.reduce(0, +)) * 1000
    }

    /// The video line the video fields come from.
    public var video: MediaDescription? {
        media.first { m in m.media == "video" && m.payloadTypes.contains { $0.videoCodec(in: m) != nil } }
            ?? media.first { $0.media == "video" }
    }

    public init(parsing text: String) throws(ParseError) {
        var sessionAddress: String?
        var sessionSourceFilter: String?
        var current: MediaDescription?
        var warnings: [String] = []

        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingWhitespace()
            let number = index + 1
            guard line.count >= 2, line.dropFirst().first == "=" else { continue }
            let value = line.dropFirst(2)
            switch line.first {
            case "m":
                if let done = current { media.append(done) }
                current = try MediaDescription(mLine: value, line: number)
            case "c":
                // c=IN IP4 239.1.1.1/32 — the TTL suffix is not part of the address.
                let fields = value.split(separator: " ")
                // Cameras send 'c=IN ' and the like: the address is then unknown, not the SDP unusable.
                guard fields.count >= 3 else {
                    warnings.append("line \(number): malformed c= line '\(line)'; ignored")
                    continue
                }
                let address = String(fields[2].split(separator: "/", omittingEmptySubsequences: false)[0])
                if current != nil { current!.connectionAddress = address } else { sessionAddress = address }
            case "a" where value.hasPrefix("source-filter:"):
                let source = Self.sourceFilter(value.dropFirst("source-filter:".count), line: number, warnings: &warnings)
                if current != nil {
                    current!.sourceFilter = source ?? current!.sourceFilter
                } else {
                    sessionSourceFilter = source ?? sessionSourceFilter
                }
            case "b" where value.hasPrefix("AS:"):
                // RFC 8866 §5.8: the application-specific maximum, in kbit/s.
                if let kbps = Int(value.dropFirst(3).trimmingWhitespace()), kbps > 0 {
                    if current != nil { current!.bandwidthKbps = kbps } else { sessionBandwidthKbps = kbps }
                }
            case "a" where current != nil:
                do {
                    try current!.addAttribute(value, line: number, warnings: &warnings)
                } catch where !["video", "audio"].contains(current!.media) {
                    // A camera's metadata line (Samsung's m=application with 'a=rtpmap:'): not taken anyway.
                    warnings.append("\(error.description); ignored (an m=\(current!.media) line)")
                }
            default:
                continue
            }
        }
        if let done = current { media.append(done) }
        for i in media.indices {
            media[i].connectionAddress = media[i].connectionAddress ?? sessionAddress
            media[i].sourceFilter = media[i].sourceFilter ?? sessionSourceFilter
        }
        self.warnings = warnings
        connectionAddress = sessionAddress
        sourceFilter = sessionSourceFilter
        if let video { takeVideo(video) }
    }

    /// The video fields, from `video`: its first payload type of a registered codec, else its first
    /// one, read by that codec's format parameters.
    private mutating func takeVideo(_ video: MediaDescription) {
        port = video.port
        connectionAddress = video.connectionAddress
        sourceFilter = video.sourceFilter
        for pt in video.payloadTypes {
            guard let codec = pt.videoCodec(in: video), let registered = VideoPayloadFormats.registration(codec) else { continue }
            videoCodecs[pt] = codec
            videoFormatParameters[pt] = registered.parameters.init(video.formats[pt]?.parameters ?? [], of: video)
        }
        payloadType = video.payloadTypes.first { $0.videoCodec(in: video) != nil } ?? video.payloadTypes.first
        guard let pt = payloadType, let format = video.formats[pt] else { return }
        var registration = VideoPayloadFormats.withoutRtpmap
        if !format.encodingName.isEmpty {
            encodingName = format.encodingName
            clockRate = format.clockRate
            guard let codec = VideoCodec(encodingName: format.encodingName),
                  let registered = VideoPayloadFormats.registration(codec) else {
                let names = VideoCodec.allCases.map(\.encodingName).joined(separator: " nor ")
                warnings.append("payload type \(pt) is \(format.encodingName), neither \(names)")
                return
            }
            registration = registered
        }
        codec = registration.codec
        let parameters = registration.parameters.init(format.parameters, of: video)
        warnings += parameters.warnings
        formatParameters = parameters
    }

    /// `<mode> IN <IP4|IP6|*> <destination> <source>...` (RFC 4570 §3): the first source of an
    /// inclusive filter. One source-specific join is made, so further ones are named in a warning.
    private static func sourceFilter(_ body: Substring, line: Int, warnings: inout [String]) -> String? {
        let fields = body.split(separator: " ")
        guard fields.count >= 5, fields[0] == "incl" else {
            warnings.append("line \(line): only an inclusive source-filter with a source is used; ignored '\(body.trimmingWhitespace())'")
            return nil
        }
        if fields.count > 5 {
            warnings.append("line \(line): source-filter lists \(fields.count - 4) sources; only \(fields[4]) is joined")
        }
        return String(fields[4])
    }
}

extension UInt8 {
    fileprivate func videoCodec(in media: MediaDescription) -> VideoCodec? {
        media.formats[self].flatMap { VideoCodec(encodingName: $0.encodingName) }
    }
}

extension Substring {
    public func trimmingWhitespace() -> Substring {
        var s = self
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return s
    }
}
