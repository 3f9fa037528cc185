/// An SDP (RFC 8866): every media line with what a receiver needs of it, and the H.264 or H.265
/// video a receiver takes from it.
///
/// Each `m=` line becomes a `MediaDescription`: its port, transport, payload types, connection
/// address and source filter (RFC 4570), RTCP port (RFC 3605 `a=rtcp`) and `a=rtcp-mux` (RFC 5761),
/// `a=control` (RFC 2326), `a=ssrc` (RFC 5576), and every format's `a=rtpmap` and `a=fmtp`. The
/// first video line that carries H.264 or H.265 (else the first video line) gives the video fields,
/// read by `H264FormatParameters` (RFC 6184 §8) or `H265FormatParameters` (RFC 7798 §7).
public struct SessionDescription: Sendable {
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// Every media line, in order.
    public var media: [MediaDescription] = []
    public var warnings: [String] = []

    // The video, from the first video line with H.264 or H.265.
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
    /// H.265's fmtp, when `codec` is H.265.
    public var h265: H265FormatParameters?
    /// H.264's packetization-mode; nil for H.265.
    public var packetizationMode: Int? = 0
    public var profileLevelId: String?
    /// sprop-parameter-sets (H.264) or sprop-vps/sps/pps/sei (H.265), decoded; empty items skipped.
    public var parameterSets: [[UInt8]] = []
    /// The de-interleaving parameters when packetization-mode=2 (RFC 6184 §8.1); defaults for those
    /// left out.
    public var interleaving: DeinterleavingBuffer.Parameters?

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
                guard fields.count >= 3 else { throw ParseError(line: number, message: "malformed c= line '\(line)'") }
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
                try current!.addAttribute(value, line: number, warnings: &warnings)
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

    /// The video fields, from `video`: its first H.264 or H.265 payload type, else its first one.
    private mutating func takeVideo(_ video: MediaDescription) {
        port = video.port
        connectionAddress = video.connectionAddress
        sourceFilter = video.sourceFilter
        for pt in video.payloadTypes { if let codec = pt.videoCodec(in: video) { videoCodecs[pt] = codec } }
        payloadType = video.payloadTypes.first { $0.videoCodec(in: video) != nil } ?? video.payloadTypes.first
        guard let pt = payloadType, let format = video.formats[pt] else { return }
        // An fmtp without an rtpmap is taken for H.264 too.
        if !format.encodingName.isEmpty {
            encodingName = format.encodingName
            clockRate = format.clockRate
            guard let codec = VideoCodec(encodingName: format.encodingName) else {
                warnings.append("payload type \(pt) is \(format.encodingName), neither H264 nor H265")
                return
            }
            if codec == .h265 {
                self.codec = .h265
                let h265 = H265FormatParameters(format.parameters)
                packetizationMode = nil
                parameterSets = h265.parameterSets
                warnings += h265.warnings
                self.h265 = h265
                return
            }
        }
        codec = .h264
        let h264 = H264FormatParameters(format.parameters)
        packetizationMode = h264.packetizationMode
        profileLevelId = h264.profileLevelId
        parameterSets = h264.parameterSets
        interleaving = h264.interleaving
        warnings += h264.warnings
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
    func trimmingWhitespace() -> Substring {
        var s = self
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return s
    }
}
