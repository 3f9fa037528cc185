extension VideoTrack {
    /// An H.265 keyframe's track: its VPS, SPS and PPS (also as an `hvcC`), and the first SPS's size
    /// and reorder depth.
    static let h265: @Sendable (AccessUnit) -> VideoTrack? = { unit in
        var sps: HEVCSequenceParameterSet?
        let sets = parameterSets(of: unit, isSlice: { $0.count >= 2 && HEVCNALUnitType.isVCL(HEVCNALHeader($0).type) }) { nal in
            guard nal.count >= 2, let kind = HEVCParameterSetCache.Kind.of(type: HEVCNALHeader(nal).type) else { return false }
            if kind == .sps { sps = sps ?? HEVCSequenceParameterSet(nal: nal) }
            return true
        }
        guard let sps else { return nil }
        let depth = Int(sps.maxNumReorderPics)  // bounded: the SPS reader caps it at 16
        // array_completeness 1, as MP4's 'hvc1' wants it.
        let record = sets.withUnsafeBytes { HEVCDecoderConfigurationRecord(annexB: $0)?.bytes(arrayCompleteness: true) }
        return VideoTrack(sps.parameters, configuration: sets, reorderDepth: depth, decoderConfigurationRecord: record)
    }
}
