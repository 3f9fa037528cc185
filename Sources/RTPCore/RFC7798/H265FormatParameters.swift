/// The fmtp parameters of the H.265 media type (RFC 7798 §7.1) a receiver needs: the parameter sets
/// (sprop-vps, sprop-sps, sprop-pps, sprop-sei, in any order in the line; Dahua writes sps;pps;vps),
/// profile, tier and level, and the decoding order parameters (sprop-max-don-diff,
/// sprop-depack-buf-nalus, sprop-depack-buf-bytes) whose presence above 0 puts DONL and DOND in
/// the payloads.
public struct H265FormatParameters: VideoFormatParameters {
    /// VPS, then SPS, then PPS, then SEI: the order a decoder needs them in, whatever the line's.
    public var parameterSets: [[UInt8]] = []
    public var profileId: Int?
    public var tierFlag: Int?
    public var levelId: Int?
    public var maxDONDiff = 0
    public var depacketizationBufferNALUnits = 0
    public var depacketizationBufferBytes = 0
    public var warnings: [String] = []

    /// DONL and DOND are in the payloads (§4.4).
    public var usesDecodingOrderNumbers: Bool { maxDONDiff > 0 || depacketizationBufferNALUnits > 0 }

    /// The de-packetization buffer's bounds (§6), when DONs are in use: it holds up to
    /// sprop-depack-buf-nalus units (else as many as sprop-max-don-diff allows, at most 64) and
    /// sprop-depack-buf-bytes (else 8 MiB).
    public var decodingOrder: DeinterleavingBuffer.Parameters? {
        guard usesDecodingOrderNumbers else { return nil }
        var p = DeinterleavingBuffer.Parameters()
        p.interleavingDepth = depacketizationBufferNALUnits > 0 ? depacketizationBufferNALUnits : min(maxDONDiff, 64)
        if depacketizationBufferBytes > 0 { p.bufferBytes = depacketizationBufferBytes }
        p.maxDONDiff = maxDONDiff > 0 ? maxDONDiff : 32767
        return p
    }

    public init() {}

    public init(_ parameters: [(key: String, value: String)]) {
        var sets: [String: [[UInt8]]] = [:]
        for (key, value) in parameters {
            switch key {
            case "sprop-vps", "sprop-sps", "sprop-pps", "sprop-sei":
                for item in value.split(separator: ",", omittingEmptySubsequences: true) {
                    let encoded = item.trimmingWhitespace()
                    guard !encoded.isEmpty else { continue }
                    guard let nal = Base64.decode(encoded), nal.count >= 2 else {
                        warnings.append("\(key) item '\(encoded)' is not base64 of a NAL unit; skipped")
                        continue
                    }
                    sets[key, default: []] += AnnexB.parameterSetNALUnits(nal).filter { $0.count >= 2 }
                }
            case "profile-id", "tier-flag", "level-id", "sprop-max-don-diff", "sprop-depack-buf-nalus",
                 "sprop-depack-buf-bytes":
                guard let number = Int(value), number >= 0 else {
                    warnings.append("\(key)=\(value) is not a number; ignored")
                    continue
                }
                switch key {
                case "profile-id": profileId = number
                case "tier-flag": tierFlag = number
                case "level-id": levelId = number
                case "sprop-max-don-diff": maxDONDiff = min(number, 32767)
                case "sprop-depack-buf-nalus": depacketizationBufferNALUnits = min(number, 32767)
                default: depacketizationBufferBytes = min(number, 1 << 30)
                }
            default:
                continue
            }
        }
        parameterSets = ["sprop-vps", "sprop-sps", "sprop-pps", "sprop-sei"].flatMap { sets[$0] ?? [] }
    }
}
