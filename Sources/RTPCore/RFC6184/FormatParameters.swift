/// The fmtp parameters of the H.264 media type (RFC 6184 §8.1) that a receiver needs:
/// packetization-mode, profile-level-id, sprop-parameter-sets, and the de-interleaving parameters
/// of the interleaved mode (sprop-interleaving-depth, -deint-buf-req, -init-buf-time, -max-don-diff).
public struct H264FormatParameters: VideoFormatParameters {
    public var packetizationMode = 0
    public var profileLevelId: String?
    /// sprop-parameter-sets, decoded; empty items skipped.
    public var parameterSets: [[UInt8]] = []
    /// When packetization-mode=2; defaults for the parameters left out.
    public var interleaving: DeinterleavingBuffer.Parameters?
    public var warnings: [String] = []

    public init(_ parameters: [(key: String, value: String)]) {
        for (key, value) in parameters {
            switch key {
            case "packetization-mode":
                packetizationMode = Int(value) ?? 0
            case "profile-level-id":
                profileLevelId = value
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
                    parameterSets += AnnexB.parameterSetNALUnits(nal)
                }
            default:
                continue
            }
        }
        if packetizationMode == 2 && interleaving == nil { interleaving = DeinterleavingBuffer.Parameters() }
    }
}

extension H264FormatParameters {
    /// The interleaved mode (packetization-mode=2) with `interleaving`, or mode 0 without.
    public init(interleaving: DeinterleavingBuffer.Parameters?) {
        self.init([])
        self.interleaving = interleaving
        packetizationMode = interleaving == nil ? 0 : 2
    }

    /// The packetization mode, when the packets used another: STAP-A or FU-A under mode 0, the
    /// interleaved mode under 0 or 1, or not under 2.
    public func contradiction(by stream: StreamStatistics) -> String? {
        let sawAggregationOrFragments = stream.nalTypesSeen & (1 << 24 | 1 << 28) != 0
        let mode = packetizationMode
        guard (mode == 0 && sawAggregationOrFragments) || (mode < 2 && stream.interleaved) || (mode == 2 && !stream.interleaved)
        else { return nil }
        return "says packetization-mode=\(mode), but the packets use "
            + "\(stream.interleaved ? "the interleaved mode" : "STAP-A or FU-A"); received as the packets say"
    }
}
