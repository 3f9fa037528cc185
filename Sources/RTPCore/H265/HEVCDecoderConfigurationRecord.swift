/// ISO/IEC 14496-15 §8.3.3.1.2, the HEVCDecoderConfigurationRecord: an H.265 track's parameter sets
/// for a container that keeps them apart from the frames, whose NAL units then carry lengths in
/// place of start codes (MP4's `hvcC`, Matroska's CodecPrivate, FLV's sequence header).
///
///     configurationVersion(8)=1  general_profile_space(2) general_tier_flag(1) general_profile_idc(5)
///     general_profile_compatibility_flags(32)  general_constraint_indicator_flags(48)  general_level_idc(8)
///     1111b min_spatial_segmentation_idc(12)  111111b parallelismType(2)  111111b chromaFormat(2)
///     11111b bitDepthLumaMinus8(3)  11111b bitDepthChromaMinus8(3)  avgFrameRate(16)
///     constantFrameRate(2) numTemporalLayers(3) temporalIdNested(1) lengthSizeMinusOne(2)
///     numOfArrays(8) { array_completeness(1) 0 NAL_unit_type(6) numNalus(16) { nalUnitLength(16) nalUnit } }
public struct HEVCDecoderConfigurationRecord: Equatable, Sendable {
    public var sps: HEVCSequenceParameterSet
    /// NAL unit lengths take four bytes.
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
    /// (the last), so that every count fits.
    public init?(vps: [[UInt8]], sps: [[UInt8]], pps: [[UInt8]]) {
        func byId(_ sets: [[UInt8]]) -> [[UInt8]] { latestParameterSets(sets) { HEVCParameterSetCache.identify(nal: $0)?.1 } }
        videoParameterSets = byId(vps)
        sequenceParameterSets = byId(sps)
        pictureParameterSets = byId(pps)
        guard !videoParameterSets.isEmpty, !pictureParameterSets.isEmpty,
              let parsed = sequenceParameterSets.first?.withUnsafeBytes({ HEVCSequenceParameterSet(nal: $0) }) else { return nil }
        self.sps = parsed
    }

    /// The record from a track's parameter sets behind start codes (`VideoTrack.configuration`).
    public init?(annexB: UnsafeRawBufferPointer) {
        var sets: [[[UInt8]]] = [[], [], []]
        AnnexB.forEachNALUnit(annexB) { (nal: UnsafeRawBufferPointer) -> Void in
            guard nal.count >= 2, let kind = HEVCParameterSetCache.Kind.of(type: HEVCNALHeader(nal).type) else { return }
            sets[kind.rawValue].append(Array(nal))
        }
        self.init(vps: sets[0], sps: sets[1], pps: sets[2])
    }

    /// The record's bytes. With `arrayCompleteness` (as MP4's 'hvc1' requires), each array says it
    /// holds every set of its kind.
    public func bytes(arrayCompleteness: Bool) -> [UInt8] {
        var w: [UInt8] = [1] + sps.generalProfileTierLevel
        w += [0xF0, 0x00]  // min_spatial_segmentation_idc 0: not signalled
        w.append(0xFC)  // parallelismType 0: unknown
        // The SPS parser bounds them: chroma format at most 3, bit depths at most 8 above 8.
        w.append(0xFC | UInt8(truncatingIfNeeded: sps.chromaFormatIdc))
        w.append(0xF8 | UInt8(truncatingIfNeeded: sps.bitDepthLumaMinus8))
        w.append(0xF8 | UInt8(truncatingIfNeeded: sps.bitDepthChromaMinus8))
        w += [0, 0]  // avgFrameRate: unspecified
        w.append((sps.maxSubLayersMinus1 + 1) << 3 | (sps.temporalIdNestingFlag ? 0x04 : 0) | lengthSizeMinusOne)
        let arrays = [(HEVCNALUnitType.vps, videoParameterSets), (HEVCNALUnitType.sps, sequenceParameterSets),
                      (HEVCNALUnitType.pps, pictureParameterSets)]
        w.append(UInt8(truncatingIfNeeded: arrays.count))
        for (type, nalUnits) in arrays {
            w.append((arrayCompleteness ? 0x80 : 0) | type)
            // bounded: at most one set an id (16 VPS and SPS, 64 PPS), each at most 65535 bytes
            w += [UInt8(truncatingIfNeeded: nalUnits.count >> 8), UInt8(truncatingIfNeeded: nalUnits.count)]
            for nal in nalUnits {
                w += [UInt8(truncatingIfNeeded: nal.count >> 8), UInt8(truncatingIfNeeded: nal.count)] + nal
            }
        }
        return w
    }
}
