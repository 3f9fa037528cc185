/// What an SDP's a=fmtp says to a video payload format, read by the format's own type (RFC 6184
/// §8.1, RFC 7798 §7.1).
public protocol VideoFormatParameters: Sendable {
    init(_ parameters: [(key: String, value: String)])
    /// The fmtp `parameters` of a payload type of `media`, with what else its line says that the
    /// format reads (Motion JPEG's a=x-dimensions); most formats read the fmtp alone.
    init(_ parameters: [(key: String, value: String)], of media: MediaDescription)
    /// The parameter sets the fmtp carries (sprop-*), decoded, in the order a decoder needs them.
    var parameterSets: [[UInt8]] { get }
    /// What in the fmtp was wrong and how it was taken.
    var warnings: [String] { get }
    /// What the SDP said that the stream's packets contradict (they decide), or nil.
    func contradiction(by stream: StreamStatistics) -> String?
}

extension VideoFormatParameters {
    public init(_ parameters: [(key: String, value: String)], of media: MediaDescription) { self.init(parameters) }
    public func contradiction(by stream: StreamStatistics) -> String? { nil }
}

/// One video payload format as the receiver knows it: its codec, how its fmtp reads, and how a
/// stream's format is made. Each RFC's folder declares its own.
public struct VideoPayloadFormatRegistration: Sendable {
    public let codec: VideoCodec
    /// The type that reads the format's a=fmtp.
    public let parameters: any VideoFormatParameters.Type
    /// How the codec is known from payloads alone: a fresh reading, copied for each payload type.
    public let recognition: any VideoRecognition
    /// A keyframe's track, as a container declares it (`VideoTrack.of`).
    let track: @Sendable (AccessUnit) -> VideoTrack?
    /// A stream's format; `parameters` is what the SDP's fmtp says, of whichever codec it names.
    let makeFormat: @Sendable (_ ssrc: UInt32, _ configuration: VideoFormatConfiguration,
                               _ parameters: (any VideoFormatParameters)?) -> AnyVideoPayloadFormat
}

/// Every video payload format rtprecv takes. A new one is a folder and a line here.
public enum VideoPayloadFormats {
    public static let registered: [VideoPayloadFormatRegistration] = [.rfc6184, .rfc7798, .rfc7741, .rfc9628, .av1, .rfc2435]

    /// The format an fmtp without an rtpmap is read as: RFC 6184's, as the senders that leave the
    /// rtpmap out mean.
    static let withoutRtpmap = VideoPayloadFormatRegistration.rfc6184

    /// The registered format of `codec`.
    public static func registration(_ codec: VideoCodec) -> VideoPayloadFormatRegistration? {
        registered.first { $0.codec == codec }
    }
}
