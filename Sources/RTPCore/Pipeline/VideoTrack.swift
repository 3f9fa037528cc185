/// What a container's track header needs of a video stream, read from one of its keyframes: the
/// recordings (MP4, Matroska, MPEG-TS) declare their video track from it, and a keyframe whose
/// track differs starts a new one.
public struct VideoTrack: Equatable, Sendable {
    /// libavcodec's name of the codec, which a muxer's track is declared by: "h264", "hevc".
    public var codecName: String
    /// What a container keeps of the codec apart from the frames: the parameter sets behind start
    /// codes (H.264, H.265), the sequence header OBU (AV1); empty where the frames carry it all.
    public var configuration: [UInt8]
    public var width: Int
    public var height: Int
    /// How many frames may come before one that is shown earlier: the look-ahead decode times need.
    public var reorderDepth: Int

    public init(codecName: String, configuration: [UInt8] = [], width: Int, height: Int, reorderDepth: Int = 0) {
        self.codecName = codecName
        self.configuration = configuration
        self.width = width
        self.height = height
        self.reorderDepth = reorderDepth
    }

    /// The track of a keyframe, by its codec's registration; nil for a frame that is not one, or
    /// whose configuration cannot be read.
    public static func of(_ keyframe: AccessUnit) -> VideoTrack? {
        guard keyframe.isKeyframe else { return nil }
        return VideoPayloadFormats.registration(keyframe.codec)?.track(keyframe)
    }

    /// For codecs whose frames carry everything: the size is the keyframe header's (VP8, VP9).
    static func sizedByKeyframe(_ codecName: String) -> @Sendable (AccessUnit) -> VideoTrack? {
        { unit in unit.pictureSize.map { VideoTrack(codecName: codecName, width: $0.width, height: $0.height) } }
    }

    /// The NAL units of `unit` for which `keep` says so, each behind a 4-byte start code.
    static func parameterSets(of unit: AccessUnit, _ keep: (UnsafeRawBufferPointer) -> Bool) -> [UInt8] {
        var scratch: [UInt8] = []
        var sets: [UInt8] = []
        unit.withContiguousBytes(scratch: &scratch) { bytes in
            AnnexB.forEachNALUnit(bytes) { nal in
                if keep(nal) { sets += [0, 0, 0, 1] + nal }
            }
        }
        return sets
    }
}
