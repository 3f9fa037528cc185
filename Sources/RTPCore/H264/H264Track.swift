extension VideoTrack {
    /// An H.264 keyframe's track: its SPS and PPS (also as an `avcC`), and the first SPS's size and
    /// reorder depth.
    static let h264: @Sendable (AccessUnit) -> VideoTrack? = { unit in
        var sps: SequenceParameterSet?
        let sets = parameterSets(of: unit, isSlice: { NALUnitType.isVCL(nalUnitType($0[0])) }) { nal in
            switch nalUnitType(nal[0]) {
            case NALUnitType.sps:
                sps = sps ?? SequenceParameterSet(nal: nal)
                return true
            case NALUnitType.pps: return true
            default: return false
            }
        }
        guard let sps else { return nil }
        return VideoTrack(sps.parameters, configuration: sets, reorderDepth: sps.reorderDepth,
                          decoderConfigurationRecord: sets.withUnsafeBytes { AVCDecoderConfigurationRecord(annexB: $0)?.bytes })
    }
}

extension SequenceParameterSet {
    /// How many frames may precede one in decoding order and follow it in output order: the VUI's
    /// max_num_reorder_frames, or, unannounced, none for Baseline and up to the reference count else.
    public var reorderDepth: Int {
        // bounded: at most 16 (the SPS reader caps it) or 4
        Int(maxNumReorderFrames ?? (profileIdc == 66 ? 0 : min(maxNumRefFrames, 4)))
    }
}
