import RTPCore

/// ISO/IEC 14496-15 §8.3.3.1.2, the body of an H.265 sequence header (Enhanced RTMP's
/// SequenceStart, or the legacy codec id 12's).
///
///     configurationVersion(8)=1  general_profile_space(2) general_tier_flag(1) general_profile_idc(5)
///     general_profile_compatibility_flags(32)  general_constraint_indicator_flags(48)  general_level_idc(8)
///     1111b min_spatial_segmentation_idc(12)  111111b parallelismType(2)  111111b chromaFormat(2)
///     11111b bitDepthLumaMinus8(3)  11111b bitDepthChromaMinus8(3)  avgFrameRate(16)
///     constantFrameRate(2) numTemporalLayers(3) temporalIdNested(1) lengthSizeMinusOne(2)
///     numOfArrays(8) { array_completeness(1) 0 NAL_unit_type(6) numNalus(16) { nalUnitLength(16) nalUnit } }
public struct HEVCDecoderConfigurationRecord: Equatable {
    public var sps: HEVCSequenceParameterSet
    public var lengthSizeMinusOne: UInt8 = 3
    /// VPS, SPS and PPS NAL units, each kind in its order.
    public var videoParameterSets: [[UInt8]]
    public var sequenceParameterSets: [[UInt8]]
    public var pictureParameterSets: [[UInt8]]

    public static func == (a: Self, b: Self) -> Bool {
        a.videoParameterSets == b.videoParameterSets && a.sequenceParameterSets == b.sequenceParameterSets
            && a.pictureParameterSets == b.pictureParameterSets
    }

    /// Nil unless there is a VPS, an SPS that parses and a PPS. Sets repeated under one id count once
    /// (the last), so that every count fits; the record fits a tag.
    public init?(vps: [[UInt8]], sps: [[UInt8]], pps: [[UInt8]]) {
        func byId(_ sets: [[UInt8]]) -> [[UInt8]] {
            var latest: [Int: [UInt8]] = [:], order: [Int] = []
            for nal in sets where nal.count <= Int(UInt16.max) {
                guard let (_, id) = nal.withUnsafeBytes(HEVCParameterSetCache.identify) else { continue }
                if latest.updateValue(nal, forKey: id) == nil { order.append(id) }
            }
            return order.map { latest[$0]! }
        }
        videoParameterSets = byId(vps)
        sequenceParameterSets = byId(sps)
        pictureParameterSets = byId(pps)
        guard !videoParameterSets.isEmpty, !pictureParameterSets.isEmpty,
              let parsed = sequenceParameterSets.first?.withUnsafeBytes({ HEVCSequenceParameterSet(nal: $0) }) else { return nil }
        self.sps = parsed
        let size = 23 + [videoParameterSets, sequenceParameterSets, pictureParameterSets].joined().reduce(0) { $0 + 2 + $1.count } + 9
        guard size <= FLVLayout.maxDataSize else { return nil }
    }

    func write(to w: inout ByteWriter) {
        w.u8(1)
        w.append(sps.generalProfileTierLevel)
        w.u16(0xF000)  // min_spatial_segmentation_idc 0: not signalled
        w.u8(0xFC)  // parallelismType 0: unknown
        w.u8(0xFC | UInt8(sps.chromaFormatIdc))
        w.u8(0xF8 | UInt8(sps.bitDepthLumaMinus8))
        w.u8(0xF8 | UInt8(sps.bitDepthChromaMinus8))
        w.u16(0)  // avgFrameRate: unspecified
        w.u8((sps.maxSubLayersMinus1 + 1) << 3 | (sps.temporalIdNestingFlag ? 0x04 : 0) | lengthSizeMinusOne)
        let arrays = [(HEVCNALUnitType.vps, videoParameterSets), (HEVCNALUnitType.sps, sequenceParameterSets),
                      (HEVCNALUnitType.pps, pictureParameterSets)]
        w.u8(UInt8(arrays.count))
        for (type, nalUnits) in arrays {
            // array_completeness 1: 'hvc1', every set is here and none in the frames.
            w.u8(0x80 | type)
            w.u16(UInt16(nalUnits.count))
            for nal in nalUnits {
                w.u16(UInt16(nal.count))
                w.append(nal)
            }
        }
    }
}
