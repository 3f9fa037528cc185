/// An audio track as a container's header declares it: the recordings (MP4, Matroska, MPEG-TS)
/// read it, as they read `VideoTrack` for the video.
extension AudioTrack {
    /// libavcodec's name of the codec, which a muxer's track is declared by.
    public var libavcodecName: String {
        switch codec {
        case .aac: "aac"
        case .mpegAudio: layer == 1 ? "mp1" : layer == 2 ? "mp2" : "mp3"
        case .pcmu: "pcm_mulaw"
        case .pcma: "pcm_alaw"
        case .g722: "adpcm_g722"
        case .opus: "opus"
        case .l16: "pcm_s16be"
        case .l24: "pcm_s24be"
        case .g726(_, let aal2): aal2 ? "adpcm_g726" : "adpcm_g726le"
        }
    }

    /// What a container keeps of the codec apart from the frames: AAC's AudioSpecificConfig as the
    /// session gave it, Opus's identification header; nothing for the others.
    public var configuration: [UInt8] {
        switch codec {
        case .aac(let config): config.bytes
        case .opus: opusHead
        default: []
        }
    }

    /// The Opus identification header (RFC 7845 §5.1), which MP4's and Matroska's Opus tracks
    /// carry: RTP says nothing of a pre-skip or an output gain (RFC 7587), so both are 0; mapping
    /// family 0, mono or stereo.
    private var opusHead: [UInt8] {
        var head = Array("OpusHead".utf8) + [1, UInt8(clamping: min(max(channels, 1), 2))]
        head.appendLittleEndian(0 as UInt16)
        head.appendLittleEndian(48000 as UInt32)
        head.appendLittleEndian(0 as UInt16)
        head.append(0)
        return head
    }
}
