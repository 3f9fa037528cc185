/// The audio codecs rtprecv receives, each from the payload format of its RFC.
public enum AudioCodec: Sendable, Equatable {
    /// MPEG-4 AAC from RFC 3640 (mpeg4-generic) or RFC 6416 (MP4A-LATM), with its config.
    case aac(AudioSpecificConfig)
    /// MPEG-1/2 audio layers I-III (RFC 2250 MPA): rate and channels come from the frame headers.
    case mpegAudio
    /// G.711 μ-law and A-law (RFC 3551 PCMU, PCMA).
    case pcmu
    case pcma
    /// G.722 (RFC 3551): 16 kHz audio on an 8 kHz RTP clock.
    case g722
    /// Opus (RFC 7587), on a 48 kHz clock whatever it codes.
    case opus
    /// Linear PCM, big-endian two's complement: 16 bits (RFC 3551 L16) and 24 bits (RFC 3190
    /// L24), the clock the sample rate (AES67 and SMPTE ST 2110-30 send these).
    case l16
    case l24
    /// G.726 ADPCM (RFC 3551 §4.5.4): 2 to 5 bits a sample at 8 kHz (16 to 40 kbit/s), packed from
    /// each octet's least significant bit (RFC 3551's G726-32), or from its most (`aal2`, ITU-T
    /// I.366.2's AAL2-G726-32, which cameras send too).
    case g726(bitsPerSample: Int, aal2: Bool)

    public var name: String {
        switch self {
        case .aac: "AAC"
        case .mpegAudio: "MPEG audio"
        case .pcmu: "G.711 μ-law"
        case .pcma: "G.711 A-law"
        case .g722: "G.722"
        case .opus: "Opus"
        case .l16: "L16 PCM"
        case .l24: "L24 PCM"
        case .g726(let bits, let aal2): "G.726-\(bits * 8)" + (aal2 ? " (AAL2)" : "")
        }
    }

    /// Bytes a sample takes a channel, for the linear PCM codecs; nil for the others.
    public var linearPCMBytes: Int? {
        switch self {
        case .l16: 2
        case .l24: 3
        default: nil
        }
    }
}

/// What an audio stream carries, as far as it is known: from the SDP or static payload type, and
/// for MPEG audio from its frame headers.
public struct AudioTrack: Sendable, Equatable {
    public var codec: AudioCodec
    public var clockRate: Int
    /// Decoded samples per second, per channel; 0 until known.
    public var sampleRate: Int
    public var channels: Int
    /// MPEG audio: the layer (1-3), from the first frame.
    public var layer: Int?

    public init(codec: AudioCodec, clockRate: Int, sampleRate: Int, channels: Int) {
        self.codec = codec
        self.clockRate = clockRate
        self.sampleRate = sampleRate
        self.channels = channels
    }

    public var config: AudioSpecificConfig? {
        if case .aac(let config) = codec { return config }
        return nil
    }

    /// "AAC 48000 Hz stereo", for reports.
    public var description: String {
        var text = codec.name
        if let layer { text = "MPEG audio layer \(layer == 3 ? "III" : layer == 2 ? "II" : "I")" }
        if sampleRate > 0 { text += " \(sampleRate) Hz" }
        text += channels == 1 ? " mono" : channels == 2 ? " stereo" : " \(channels) channels"
        return text
    }
}

/// One audio frame as it leaves the receiver: one AAC access unit, one MPEG audio frame, one Opus
/// packet, or the G.711/G.722 samples of one packet.
public struct AudioFrame {
    public var track: AudioTrack
    public var record: FrameRecord
    /// The RTP timestamp extended to 64 bits, on the stream's clock.
    public var pts: Int64
    /// Clock ticks it lasts.
    public var duration: Int64
    /// Clock ticks missing just before it (lost packets, or a silence), not concealed.
    public var gapBefore: Int64
    /// The gap was a silence the sender marked with comfort noise of this level (-dBov, RFC 3389).
    public var comfortNoiseLevel: UInt8?
    /// The gap was a silence the sender left, no packet missing (with or without comfort noise):
    /// nothing was lost, and its length is known.
    public var senderWasSilent = false
    /// The bytes: valid only during the sink's call.
    public var bytes: UnsafeRawBufferPointer
    /// When the packet that completed it arrived, on the packet clock.
    public var arrival: Int64
    /// Its time on the session timeline (`MediaClock`), in nanoseconds; nil outside a session.
    public var time: Int64?

    public init(track: AudioTrack, record: FrameRecord, pts: Int64, duration: Int64, gapBefore: Int64,
                bytes: UnsafeRawBufferPointer, arrival: Int64) {
        self.track = track
        self.record = record
        self.pts = pts
        self.duration = duration
        self.gapBefore = gapBefore
        self.bytes = bytes
        self.arrival = arrival
    }
}
