import FFmpeg
import RTPCore

/// The containers a recording is written in, through libavformat's muxers.
enum Container: String, CaseIterable {
    case mp4, mkv, ts

    var flag: String { "--\(rawValue)" }
    /// Where the options keep its path.
    var path: WritableKeyPath<Options, String?> {
        switch self {
        case .mp4: \.mp4
        case .mkv: \.mkv
        case .ts: \.ts
        }
    }
    var name: String {
        switch self {
        case .mp4: "MP4"
        case .mkv: "Matroska"
        case .ts: "MPEG-TS"
        }
    }

    /// libavformat's muxer.
    var muxer: String {
        switch self {
        case .mp4: "mp4"
        case .mkv: "matroska"
        case .ts: "mpegts"
        }
    }

    /// An Opus packet as the container takes it: MPEG-TS none shorter than 2 bytes (libavformat
    /// refuses it, which would end the recording), so a TOC byte alone (one or two empty frames, as
    /// DTX and concealment send them) goes as the same frames behind a frame count byte (RFC 6716
    /// §3.2.5, code 3). Nil where the packet goes as it is.
    func opusPacketAsCarried(_ packet: UnsafeRawBufferPointer) -> [UInt8]? {
        guard self == .ts, packet.count == 1 else { return nil }
        return [packet[0] | 3, packet[0] & 3 == 0 ? 1 : 2]
    }

    /// The muxer's options that make a file readable up to its last fragment when the writing
    /// stops at any moment: MP4 fragmented (its header at the first fragment, then a moof and mdat
    /// at every keyframe and at least every `fragmentMilliseconds`), Matroska clusters of that
    /// length at most; MPEG-TS is readable anywhere as it is. Tracks are interleaved within as long.
    /// Matroska's CRC-32 elements are left out: optional, checked by no player or demuxer, they took
    /// half of the time a Matroska recording cost.
    ///
    /// `audioAloneFrameNanoseconds`: an AAC or Opus frame's duration, in a file of audio alone.
    /// MPEG-TS then carries its clock reference (PCR) on the audio, spaced by a frame duration
    /// libavformat cannot know for either: it would say "frame size not set" and guess. The file
    /// is the same either way (every audio frame is a random access point, and gets a PCR), so the
    /// period is one frame.
    func options(fragmentMilliseconds: Int, audioAloneFrameNanoseconds: Int64? = nil) -> [(String, String)] {
        let interleave = ("max_interleave_delta", String(fragmentMilliseconds * 1000))
        switch self {
        case .mp4: return [("movflags", "+frag_keyframe+empty_moov+delay_moov+default_base_moof"),
                           ("frag_duration", String(fragmentMilliseconds * 1000)), interleave]
        case .mkv: return [("cluster_time_limit", String(fragmentMilliseconds)), ("write_crc32", "0"), interleave]
        case .ts:
            guard let frame = audioAloneFrameNanoseconds else { return [interleave] }
            return [interleave, ("pcr_period", String(max(1, frame / 1_000_000)))]
        }
    }

    /// Whether it carries the codec libavcodec calls `codecName`: as libavformat says (Matroska
    /// with the ACM tracks every player reads, for G.711 and G.722), or, for MPEG-TS, whose muxer
    /// cannot say, the codecs its stream types (ISO/IEC 13818-1) name. G.726 in none: Matroska's
    /// ACM track would not keep the code size a reader needs, nor has a tag for RFC 3551's packing.
    func carries(_ codecName: String) throws -> Bool {
        if codecName.hasPrefix("adpcm_g726") { return false }
        return try MediaMuxer.carries(format: muxer, codecName: codecName, unofficially: self == .mkv)
            ?? ["h264", "hevc", "aac", "mp1", "mp2", "mp3", "opus"].contains(codecName)
    }

    /// Whether a file of it opens only once its first fragment is out (MP4's header goes with it,
    /// under `delay_moov`; Matroska's readers want a cluster), which a file cut before then lacks:
    /// `MediaMuxer.begin(options:firstFlushWithin:)` flushes the muxer as soon as every track has a
    /// frame. MPEG-TS opens anywhere.
    var opensOnlyWithAFragment: Bool { self != .ts }

    /// Whether its H.264 and H.265 samples are NAL units behind their lengths, the parameter sets in
    /// the track's header (ISO/IEC 14496-15): handed over so, libavformat need not look for start
    /// codes in every frame and copy it. MPEG-TS keeps start codes.
    var keepsNALUnitLengths: Bool { self != .ts }

    /// The FourCC MP4 names the codec by, where it has a choice: 'hvc1' (parameter sets in the
    /// header), which browsers and Apple's players take, rather than 'hev1'.
    func tag(for codecName: String) -> String? { self == .mp4 && codecName == "hevc" ? "hvc1" : nil }
}

/// `--fsync`: what a recording makes durable, and when, so that a power cut loses no more.
enum FsyncPolicy: String, CaseIterable {
    /// After each fragment handed over, at most once per `--fragment-ms` of media, and at close.
    case fragment
    /// When a file (a segment) is finished: it and its name in the directory.
    case segment
    /// Never: the kernel writes back in its own time.
    case none
}
