/// The static payload types of RFC 3551 §6 (Table 4 and 5) that a receiver meets without an SDP.
public enum StaticPayloadType: UInt8, Sendable, CaseIterable {
    case pcmu = 0
    case gsm = 3
    case g723 = 4
    case pcma = 8
    case g722 = 9
    case l16Stereo = 10
    case l16Mono = 11
    case qcelp = 12
    case mpa = 14
    case g728 = 15
    case g729 = 18
    case jpeg = 26
    case h261 = 31
    case mpv = 32
    case mp2t = 33
    case h263 = 34

    /// The rtpmap it stands for. G.722's RTP clock is 8000 though it samples at 16 kHz (§4.5.2).
    public var format: MediaDescription.Format {
        switch self {
        case .pcmu: .init(encodingName: "PCMU", clockRate: 8000, channels: 1)
        case .gsm: .init(encodingName: "GSM", clockRate: 8000, channels: 1)
        case .g723: .init(encodingName: "G723", clockRate: 8000, channels: 1)
        case .pcma: .init(encodingName: "PCMA", clockRate: 8000, channels: 1)
        case .g722: .init(encodingName: "G722", clockRate: 8000, channels: 1)
        case .l16Stereo: .init(encodingName: "L16", clockRate: 44100, channels: 2)
        case .l16Mono: .init(encodingName: "L16", clockRate: 44100, channels: 1)
        case .qcelp: .init(encodingName: "QCELP", clockRate: 8000, channels: 1)
        case .mpa: .init(encodingName: "MPA", clockRate: 90000)
        case .g728: .init(encodingName: "G728", clockRate: 8000, channels: 1)
        case .g729: .init(encodingName: "G729", clockRate: 8000, channels: 1)
        case .jpeg: .init(encodingName: "JPEG", clockRate: 90000)
        case .h261: .init(encodingName: "H261", clockRate: 90000)
        case .mpv: .init(encodingName: "MPV", clockRate: 90000)
        case .mp2t: .init(encodingName: "MP2T", clockRate: 90000)
        case .h263: .init(encodingName: "H263", clockRate: 90000)
        }
    }

    /// Audio payload types (Table 4); the others are video (Table 5).
    public var isAudio: Bool { rawValue < 24 }
}
