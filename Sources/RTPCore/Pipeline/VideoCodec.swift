/// The video codecs rtprecv takes, each with its RTP payload format: H.264 (RFC 6184) and H.265
/// (RFC 7798).
public enum VideoCodec: String, Sendable, CaseIterable {
    case h264
    case h265

    /// The name as the codec's specification writes it.
    public var name: String {
        switch self {
        case .h264: "H.264"
        case .h265: "H.265"
        }
    }

    /// The encoding name of the SDP's a=rtpmap (RFC 6184 §8.2.1, RFC 7798 §7.2.1).
    public var encodingName: String {
        switch self {
        case .h264: "H264"
        case .h265: "H265"
        }
    }

    /// The codec an a=rtpmap encoding name names, in any case.
    public init?(encodingName: String) {
        guard let codec = Self.allCases.first(where: { $0.encodingName == encodingName.uppercased() }) else { return nil }
        self = codec
    }
}

/// `numerator`/`denominator` in lowest terms (a VUI's frame rate).
func reducedFraction(_ numerator: Int, _ denominator: Int) -> (numerator: Int, denominator: Int) {
    var a = numerator, b = denominator
    while b != 0 { (a, b) = (b, a % b) }
    return a == 0 ? (numerator, denominator) : (numerator / a, denominator / a)
}

/// What a stream's sequence parameter set says of its pictures, whichever the codec: for the report,
/// the JSON and `--list`.
public struct VideoParameters: Sendable, Equatable {
    public var codec: VideoCodec
    public var width: Int
    public var height: Int
    /// profile_idc (H.264) or general_profile_idc (H.265), with its name.
    public var profileIdc: Int
    public var profile: String
    /// H.265's general_tier_flag: "Main" or "High"; nil for H.264.
    public var tier: String?
    /// level_idc: ten times the level (H.264), thirty times it (H.265's general_level_idc).
    public var levelIdc: Int
    public var bitDepthLuma: Int
    public var bitDepthChroma: Int
    /// chroma_format_idc: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    public var chromaFormatIdc: Int

    /// The level as a number: 4.1 for level_idc 41 (H.264) or 123 (H.265).
    public var level: Double { Double(levelIdc) / (codec == .h264 ? 10 : 30) }

    public var chroma: String {
        switch chromaFormatIdc {
        case 0: "4:0:0"
        case 1: "4:2:0"
        case 2: "4:2:2"
        default: "4:4:4"
        }
    }

    /// "H.265 Main, Main tier, level 4.1, 1920x1080, 8-bit 4:2:0".
    public var description: String {
        let level = (self.level * 10).rounded() / 10
        return "\(codec.name) \(profile)" + (tier.map { ", \($0) tier" } ?? "") + ", level \(level), \(width)x\(height), "
            + "\(bitDepthLuma)-bit \(chroma)"
    }
}
