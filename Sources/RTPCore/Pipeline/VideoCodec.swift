/// A video codec as rtprecv names it. Each payload format declares its codec in its RFC's folder
/// and registers it in `VideoPayloadFormats`; the receiver, the SDP, the decoder and the report read
/// what it says here rather than ask which codec it is.
public struct VideoCodec: Hashable, Sendable, CustomStringConvertible {
    // Static strings: a codec is copied with every access unit and statistic, and these cost no
    // reference counting, as String fields would.
    private let key: StaticString
    private let spelled: StaticString
    private let encoding: StaticString
    private let decoder: StaticString
    private let libavcodecCodec: StaticString
    private let parameterSetsField: StaticString
    private let decodingOrderName: StaticString
    /// Empty for Annex-B.
    private let ivfFourCC: StaticString
    /// A stream on a dynamic payload type is taken as this codec only where the SDP or `--codec`
    /// with `--payload-type` names it: its headers prove nothing (JPEG's are a few bytes any payload
    /// may hold).
    public let isTakenOnlyWhenNamed: Bool

    /// What `--codec` and the `{codec}` template take: "h264".
    public var rawValue: String { key.description }
    /// The name as the codec's specification writes it: "H.264".
    public var name: String { spelled.description }
    /// The encoding name of the SDP's a=rtpmap: "H264".
    public var encodingName: String { encoding.description }
    /// libavcodec's name for its decoder: "h264", "hevc".
    public var decoderName: String { decoder.description }
    /// libavcodec's name of the codec itself (its descriptor's), which a muxer's track is declared
    /// by: "h264", "hevc", "av1".
    public var libavcodecName: String { libavcodecCodec.description }
    /// What the fmtp parameters that carry the parameter sets are called, for a hint.
    public var parameterSetsInSDP: String { parameterSetsField.description }
    /// What the payload format's decoding order is called, when it has one, for the report.
    public var decodingOrder: String { decodingOrderName.description }

    /// How `--out` writes the codec's frames as a file of their own.
    public var elementaryStream: ElementaryStream {
        ivfFourCC.utf8CodeUnitCount == 0 ? .annexB : .ivf(fourCC: ivfFourCC.description)
    }

    /// "h264", as file names and the JSON write it.
    public var description: String { rawValue }

    /// The registered codec `--codec` names, in any case.
    public init?(rawValue: String) {
        guard let codec = Self.allCases.first(where: { $0.rawValue == rawValue.lowercased() }) else { return nil }
        self = codec
    }

    /// The registered codec an a=rtpmap encoding name names, in any case.
    public init?(encodingName: String) {
        guard let codec = Self.allCases.first(where: { $0.encodingName == encodingName.uppercased() }) else { return nil }
        self = codec
    }

    /// `ivfFourCC`: the FourCC of the codec's frames in an IVF file, for a codec written as IVF
    /// rather than Annex-B. `libavcodecName`: where it is not the decoder's name.
    init(rawValue: StaticString, name: StaticString, encodingName: StaticString, decoderName: StaticString,
         libavcodecName: StaticString? = nil, parameterSetsInSDP: StaticString, decodingOrder: StaticString,
         ivfFourCC: StaticString = "", takenOnlyWhenNamed: Bool = false) {
        key = rawValue
        isTakenOnlyWhenNamed = takenOnlyWhenNamed
        libavcodecCodec = libavcodecName ?? decoderName
        self.ivfFourCC = ivfFourCC
        spelled = name
        encoding = encodingName
        decoder = decoderName
        parameterSetsField = parameterSetsInSDP
        decodingOrderName = decodingOrder
    }

    /// Every registered codec, in the registry's order.
    public static var allCases: [VideoCodec] { VideoPayloadFormats.registered.map(\.codec) }

    /// The registered codecs (or `codecs`) as a sentence lists them: "H.264, H.265 or VP8" (names),
    /// "h264, h265 or vp8".
    public static func listed(_ name: (VideoCodec) -> String = \.name, among codecs: [VideoCodec] = allCases) -> String {
        let names = codecs.map(name)
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    public static func == (a: VideoCodec, b: VideoCodec) -> Bool {
        if a.key.utf8Start == b.key.utf8Start && a.key.utf8CodeUnitCount == b.key.utf8CodeUnitCount { return true }
        return a.key.withUTF8Buffer { x in b.key.withUTF8Buffer { y in x.elementsEqual(y) } }
    }

    public func hash(into hasher: inout Hasher) { key.withUTF8Buffer { hasher.combine(bytes: UnsafeRawBufferPointer($0)) } }
}

/// How a codec's frames are written as a file of their own: what `--out` writes.
public enum ElementaryStream: Sendable, Equatable {
    /// Annex-B (H.264, H.265): the frame's NAL units behind start codes, as the access unit holds them.
    case annexB
    /// IVF (VP8, VP9, AV1): a file header naming the codec by `fourCC` and the picture size, then
    /// each frame behind a header with its size and time.
    case ivf(fourCC: String)
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
    /// level_idc: ten times the level (H.264), thirty times it (H.265's general_level_idc); nil for
    /// a codec without levels (VP8).
    public var levelIdc: Int?
    /// The level as a number: 4.1 for level_idc 41 (H.264) or 123 (H.265).
    public var level: Double?
    public var bitDepthLuma: Int
    public var bitDepthChroma: Int
    /// chroma_format_idc: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    public var chromaFormatIdc: Int

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
        let level = self.level.map { ", level \(($0 * 10).rounded() / 10)" } ?? ""
        return "\(codec.name) \(profile)" + (tier.map { ", \($0) tier" } ?? "") + level + ", \(width)x\(height), "
            + "\(bitDepthLuma)-bit \(chroma)"
    }
}
