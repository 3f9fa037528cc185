/// What a container's track header needs of a video stream, read from one of its keyframes: the
/// recordings (MP4, Matroska, MPEG-TS) declare their video track from it, and a keyframe whose
/// track differs starts a new one.
public struct VideoTrack: Equatable, Sendable {
    /// The codec, size, profile, bit depth and chroma format, as the keyframe's header gives them.
    public var parameters: VideoParameters
    /// What a container keeps of the codec apart from the frames: the parameter sets behind start
    /// codes (H.264, H.265), the sequence header OBU (AV1); empty where the frames carry it all.
    public var configuration: [UInt8]
    /// How many frames may come before one that is shown earlier: the look-ahead decode times need.
    public var reorderDepth: Int
    /// For codecs of NAL units, the parameter sets as ISO/IEC 14496-15 records them (`avcC`,
    /// `hvcC`), for containers whose frames carry NAL unit lengths rather than start codes (MP4,
    /// Matroska); nil for other codecs, or when the sets make no record.
    public var decoderConfigurationRecord: [UInt8]?

    public var codec: VideoCodec { parameters.codec }
    public var width: Int { parameters.width }
    public var height: Int { parameters.height }

    public init(_ parameters: VideoParameters, configuration: [UInt8] = [], reorderDepth: Int = 0,
                decoderConfigurationRecord: [UInt8]? = nil) {
        self.parameters = parameters
        self.configuration = configuration
        self.reorderDepth = reorderDepth
        self.decoderConfigurationRecord = decoderConfigurationRecord
    }

    /// The track of a keyframe, by its codec's registration; nil for a frame that is not one, or
    /// whose configuration cannot be read.
    public static func of(_ keyframe: AccessUnit) -> VideoTrack? {
        guard keyframe.isKeyframe else { return nil }
        return VideoPayloadFormats.registration(keyframe.codec)?.track(keyframe)
    }

    /// For codecs whose frames carry everything (VP8, VP9): what the keyframe's header says, at the
    /// picture size the unit shows (a VP9 superframe's top layer, not its first frame's).
    static func fromFrameHeader(_ parameters: @escaping @Sendable (UnsafeRawBufferPointer) -> VideoParameters?)
        -> @Sendable (AccessUnit) -> VideoTrack? {
        { unit in
            var scratch: [UInt8] = []
            guard var read = unit.withContiguousBytes(scratch: &scratch, { parameters($0) }) else { return nil }
            if let size = unit.pictureSize { (read.width, read.height) = size }
            return VideoTrack(read)
        }
    }

    /// The NAL units of `unit` before its first coded slice (`isSlice`, which reads the NAL header
    /// only) for which `keep` says so, each behind a 4-byte start code. Where the receiver said
    /// where the NAL units lie, only the units before the first slice are copied; else the pieces
    /// are gathered one at a time until a slice begins. Either way the rest of a large keyframe is
    /// neither copied nor scanned.
    static func parameterSets(of unit: AccessUnit, isSlice: (UnsafeRawBufferPointer) -> Bool,
                              _ keep: (UnsafeRawBufferPointer) -> Bool) -> [UInt8] {
        if let sets = unit.leadingNALUnits(until: isSlice, keep) { return sets }
        var prefix: [UInt8] = []
        for piece in unit.pieces {
            prefix.append(contentsOf: piece)
            var sliceBegun = false
            prefix.withUnsafeBytes { bytes in
                AnnexB.forEachNALUnit(bytes, while: { nal in
                    sliceBegun = isSlice(nal)
                    return !sliceBegun
                })
            }
            if sliceBegun { break }
        }
        var sets: [UInt8] = []
        prefix.withUnsafeBytes { bytes in
            AnnexB.forEachNALUnit(bytes, while: { nal in
                guard !isSlice(nal) else { return false }
                if keep(nal) { sets += [0, 0, 0, 1] + nal }
                return true
            })
        }
        return sets
    }
}
