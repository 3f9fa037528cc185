/// The parts of an SDP (RFC 8866) that an H.264 receiver needs: the video media line, its connection
/// address and source filter (RFC 4570), and the rtpmap and fmtp attributes of RFC 6184 §8.
public struct SessionDescription: Sendable {
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    public var port: UInt16?
    public var connectionAddress: String?
    /// The sender an `a=source-filter: incl` names, for a source-specific multicast join: the
    /// video's own filter, else the session's.
    public var sourceFilter: String?
    public var payloadType: UInt8?
    public var encodingName: String?
    public var clockRate: Int = 90000
    public var packetizationMode: Int = 0
    public var profileLevelId: String?
    /// sprop-parameter-sets, decoded; empty items skipped.
    public var parameterSets: [[UInt8]] = []
    /// The de-interleaving parameters when packetization-mode=2 (RFC 6184 §8.1); defaults for those
    /// left out.
    public var interleaving: DeinterleavingBuffer.Parameters?
    public var warnings: [String] = []

    public init(parsing text: String) throws(ParseError) {
        var videoPayloadTypes: [UInt8] = []
        var inVideo = false
        var sessionAddress: String?
        var sessionSourceFilter: String?
        var sawMedia = false
        var rtpmaps: [UInt8: (String, Int)] = [:]
        var fmtps: [UInt8: Substring] = [:]
        var sawVideo = false

        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingWhitespace()
            let number = index + 1
            guard line.count >= 2, line.dropFirst().first == "=" else { continue }
            let value = line.dropFirst(2)
            switch line.first {
            case "m":
                sawMedia = true
                let fields = value.split(separator: " ")
                inVideo = fields.first == "video" && !sawVideo
                guard inVideo else { continue }
                sawVideo = true
                guard fields.count >= 4, let port = UInt16(fields[1].split(separator: "/", omittingEmptySubsequences: false)[0]) else {
                    throw ParseError(line: number, message: "malformed m= line '\(line)'")
                }
                self.port = port
                videoPayloadTypes = fields.dropFirst(3).compactMap { UInt8($0) }.filter { $0 < 128 }
            case "c":
                // c=IN IP4 239.1.1.1/32 — the TTL suffix is not part of the address.
                let fields = value.split(separator: " ")
                guard fields.count >= 3 else { throw ParseError(line: number, message: "malformed c= line '\(line)'") }
                let address = String(fields[2].split(separator: "/", omittingEmptySubsequences: false)[0])
                if inVideo { connectionAddress = address } else if !sawVideo { sessionAddress = address }
            case "a" where value.hasPrefix("source-filter:") && (inVideo || !sawMedia):
                let source = parseSourceFilter(value.dropFirst("source-filter:".count), line: number)
                if inVideo { sourceFilter = source ?? sourceFilter } else { sessionSourceFilter = source ?? sessionSourceFilter }
            case "a" where inVideo:
                if value.hasPrefix("rtpmap:") {
                    let body = value.dropFirst("rtpmap:".count)
                    let parts = body.split(separator: " ", maxSplits: 1)
                    guard parts.count == 2, let pt = UInt8(parts[0]) else {
                        throw ParseError(line: number, message: "malformed rtpmap '\(line)'")
                    }
                    let encoding = parts[1].split(separator: "/", omittingEmptySubsequences: false)
                    rtpmaps[pt] = (String(encoding[0]), encoding.count > 1 ? Int(encoding[1]) ?? 90000 : 90000)
                } else if value.hasPrefix("fmtp:") {
                    let body = value.dropFirst("fmtp:".count)
                    guard let space = body.firstIndex(of: " "), let pt = UInt8(body[..<space]) else {
                        throw ParseError(line: number, message: "malformed fmtp '\(line)'")
                    }
                    fmtps[pt] = body[body.index(after: space)...]
                }
            default:
                continue
            }
        }
        guard sawVideo else { throw ParseError(line: 0, message: "no m=video line") }
        if connectionAddress == nil { connectionAddress = sessionAddress }
        if sourceFilter == nil { sourceFilter = sessionSourceFilter }
        // The first H264 payload type of the video line; else its first one.
        payloadType = videoPayloadTypes.first { rtpmaps[$0]?.0.uppercased() == "H264" } ?? videoPayloadTypes.first
        if let pt = payloadType, let map = rtpmaps[pt] {
            encodingName = map.0
            clockRate = map.1
            if map.0.uppercased() != "H264" { warnings.append("payload type \(pt) is \(map.0), not H264") }
        }
        if let pt = payloadType, let fmtp = fmtps[pt] { try parseFormatParameters(fmtp) }
        if packetizationMode == 2 && interleaving == nil { interleaving = DeinterleavingBuffer.Parameters() }
    }

    /// `<mode> IN <IP4|IP6|*> <destination> <source>...` (RFC 4570 §3): the first source of an
    /// inclusive filter. One source-specific join is made, so further ones are named in a warning.
    private mutating func parseSourceFilter(_ body: Substring, line: Int) -> String? {
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

    private mutating func parseFormatParameters(_ fmtp: Substring) throws(ParseError) {
        for item in fmtp.split(separator: ";") {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let key = pair[0].trimmingWhitespace().lowercased()
            let value = pair[1].trimmingWhitespace()
            switch key {
            case "packetization-mode":
                packetizationMode = Int(value) ?? 0
            case "profile-level-id":
                profileLevelId = String(value)
            case "sprop-interleaving-depth", "sprop-deint-buf-req", "sprop-init-buf-time", "sprop-max-don-diff":
                guard let number = Int64(value), number >= 0 else {
                    warnings.append("\(key)=\(value) is not a number; the default is used")
                    continue
                }
                var p = interleaving ?? DeinterleavingBuffer.Parameters()
                switch key {
                case "sprop-interleaving-depth": p.interleavingDepth = Int(min(number, 65535))
                case "sprop-deint-buf-req": p.bufferBytes = Int(min(number, 1 << 30))
                case "sprop-init-buf-time": p.initialBufferTime = min(number, 90000 * 60)
                default: p.maxDONDiff = Int(min(number, 32767))
                }
                interleaving = p
            case "sprop-parameter-sets":
                // Empty items and a trailing comma are common; skip them.
                for item in value.split(separator: ",", omittingEmptySubsequences: true) {
                    let encoded = item.trimmingWhitespace()
                    guard !encoded.isEmpty else { continue }
                    guard let nal = Base64.decode(encoded), !nal.isEmpty else {
                        warnings.append("sprop-parameter-sets item '\(encoded)' is not base64; skipped")
                        continue
                    }
                    parameterSets.append(nal)
                }
            default:
                continue
            }
        }
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
