/// The static payload types of RFC 3551 §6 (Table 4 and 5) that a receiver meets without an SDP.
public enum StaticPayloadType: UInt8, Sendable, CaseIterable {
    case pcmu = 0
    case gsm = 3
    case g723 = 4
    case dvi4At8000 = 5
    case dvi4At16000 = 6
    case lpc = 7
    case pcma = 8
    case g722 = 9
    case l16Stereo = 10
    case l16Mono = 11
    case qcelp = 12
    /// Comfort noise (RFC 3389), in the silences of a call's audio.
    case cn = 13
    case mpa = 14
    case g728 = 15
    case dvi4At11025 = 16
    case dvi4At22050 = 17
    case g729 = 18
    case celB = 25
    case jpeg = 26
    case nv = 28
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
        case .dvi4At8000: .init(encodingName: "DVI4", clockRate: 8000, channels: 1)
        case .dvi4At16000: .init(encodingName: "DVI4", clockRate: 16000, channels: 1)
        case .lpc: .init(encodingName: "LPC", clockRate: 8000, channels: 1)
        case .pcma: .init(encodingName: "PCMA", clockRate: 8000, channels: 1)
        case .g722: .init(encodingName: "G722", clockRate: 8000, channels: 1)
        case .l16Stereo: .init(encodingName: "L16", clockRate: 44100, channels: 2)
        case .l16Mono: .init(encodingName: "L16", clockRate: 44100, channels: 1)
        case .qcelp: .init(encodingName: "QCELP", clockRate: 8000, channels: 1)
        case .cn: .init(encodingName: "CN", clockRate: 8000, channels: 1)
        case .mpa: .init(encodingName: "MPA", clockRate: 90000)
        case .g728: .init(encodingName: "G728", clockRate: 8000, channels: 1)
        case .dvi4At11025: .init(encodingName: "DVI4", clockRate: 11025, channels: 1)
        case .dvi4At22050: .init(encodingName: "DVI4", clockRate: 22050, channels: 1)
        case .g729: .init(encodingName: "G729", clockRate: 8000, channels: 1)
        case .celB: .init(encodingName: "CelB", clockRate: 90000)
        case .jpeg: .init(encodingName: "JPEG", clockRate: 90000)
        case .nv: .init(encodingName: "nv", clockRate: 90000)
        case .h261: .init(encodingName: "H261", clockRate: 90000)
        case .mpv: .init(encodingName: "MPV", clockRate: 90000)
        case .mp2t: .init(encodingName: "MP2T", clockRate: 90000)
        case .h263: .init(encodingName: "H263", clockRate: 90000)
        }
    }

    /// Audio payload types (Table 4); the others are video (Table 5).
    public var isAudio: Bool { rawValue < 24 }

    /// 0 to 34: assigned by RFC 3551, or reserved or unassigned in its static range. A stream on
    /// one of them is never taken for a dynamic format such as H.264; 35 to 127 may be dynamic
    /// (WebRTC stacks use 35 to 63 when 96 to 127 run out).
    public static func isStaticRange(_ payloadType: UInt8) -> Bool { payloadType < 35 }

    /// The registered video codec a static type is, without an SDP: Motion JPEG for 26.
    @inline(__always)
    public static func videoCodec(_ payloadType: UInt8) -> VideoCodec? {
        // bounded: a widening, below 35
        isStaticRange(payloadType) ? videoCodecs[Int(payloadType)] : nil
    }

    /// Looked up once: the packet path asks for every packet of a static type.
    private static let videoCodecs: [VideoCodec?] = (0..<35).map { pt in
        // bounded: 0 to 34
        Self(rawValue: UInt8(pt)).flatMap { $0.isAudio ? nil : VideoCodec(encodingName: $0.format.encodingName) }
    }
}
