/// The fields of an H.265 sequence parameter set (§7.3.2.2) a receiver reports and needs: ids,
/// sub-layers, profile, tier and level (§7.3.3), picture size after the conformance window, chroma
/// format and bit depths. Parsing stops there.
public struct HEVCSequenceParameterSet: Sendable, Equatable {
    public var videoParameterSetId: UInt8
    /// sps_max_sub_layers_minus1: the highest TemporalId of the stream.
    public var maxSubLayersMinus1: UInt8
    public var temporalIdNestingFlag: Bool
    /// general_profile_space … general_level_idc: the 12 bytes of profile_tier_level's general part,
    /// as an HEVCDecoderConfigurationRecord copies them.
    public var generalProfileTierLevel: [UInt8]
    public var generalProfileSpace: UInt8
    public var generalTierFlag: Bool
    public var generalProfileIdc: UInt8
    /// general_profile_compatibility_flag[j], bit 31 − j.
    public var generalProfileCompatibility: UInt32
    public var generalLevelIdc: UInt8
    public var seqParameterSetId: UInt32
    public var chromaFormatIdc: UInt32
    public var separateColourPlaneFlag = false
    public var picWidthInLumaSamples: UInt32
    public var picHeightInLumaSamples: UInt32
    public var conformanceWindow: (left: UInt32, right: UInt32, top: UInt32, bottom: UInt32) = (0, 0, 0, 0)
    public var bitDepthLumaMinus8: UInt32
    public var bitDepthChromaMinus8: UInt32
    /// sps_max_num_reorder_pics of the highest sub-layer: how many pictures may precede one in
    /// decoding order and follow it in output order.
    public var maxNumReorderPics: UInt32 = 0
    /// VUI timing (§E.2.1): vui_num_units_in_tick and vui_time_scale, when signalled.
    public var timing: (numUnitsInTick: UInt32, timeScale: UInt32)?

    public static func == (a: Self, b: Self) -> Bool {
        a.seqParameterSetId == b.seqParameterSetId && a.generalProfileIdc == b.generalProfileIdc
            && a.width == b.width && a.height == b.height && a.chromaFormatIdc == b.chromaFormatIdc
    }

    /// `nal` is the whole NAL unit, its two header bytes included.
    public init?(nal: UnsafeRawBufferPointer) {
        guard nal.count >= 4, HEVCNALHeader(nal).type == HEVCNALUnitType.sps else { return nil }
        var r = RBSPBitReader(nal.view(2..<nal.count))
        guard let vps = r.readBits(4), let subLayers = r.readBits(3), let nesting = r.readFlag() else { return nil }
        var general: [UInt8] = []
        for _ in 0..<12 {
            guard let byte = r.readByte() else { return nil }
            general.append(byte)
        }
        generalProfileTierLevel = general
        // general_profile_space(2) tier(1) profile_idc(5), 32 compatibility flags, 48 constraint bits, level.
        let profileSpace = general[0] >> 6, tier = general[0] & 0x20 != 0, profile = general[0] & 0x1F
        let compatibility = UInt32(general[1]) << 24 | UInt32(general[2]) << 16 | UInt32(general[3]) << 8 | UInt32(general[4])
        let level = general[11]
        videoParameterSetId = UInt8(vps)
        maxSubLayersMinus1 = UInt8(subLayers)
        temporalIdNestingFlag = nesting
        generalProfileSpace = UInt8(profileSpace)
        generalTierFlag = tier
        generalProfileIdc = UInt8(profile)
        generalProfileCompatibility = compatibility
        generalLevelIdc = UInt8(level)
        guard Self.skipSubLayers(&r, maxSubLayersMinus1: Int(subLayers)),
              let id = r.readUE(), id <= 15, let chroma = r.readUE(), chroma <= 3 else { return nil }
        seqParameterSetId = id
        chromaFormatIdc = chroma
        if chroma == 3 {
            guard let separate = r.readFlag() else { return nil }
            separateColourPlaneFlag = separate
        }
        guard let width = r.readUE(), let height = r.readUE(), width > 0, height > 0, width <= 16888, height <= 16888,
              let window = r.readFlag() else { return nil }
        picWidthInLumaSamples = width
        picHeightInLumaSamples = height
        if window {
            // Each offset is below the picture's size in chroma units, so their sums cannot overflow.
            guard let left = r.readUE(), let right = r.readUE(), let top = r.readUE(), let bottom = r.readUE(),
                  left < width, right < width, top < height, bottom < height else { return nil }
            conformanceWindow = (left, right, top, bottom)
        }
        guard let luma = r.readUE(), luma <= 8, let chromaDepth = r.readUE(), chromaDepth <= 8 else { return nil }
        bitDepthLumaMinus8 = luma
        bitDepthChromaMinus8 = chromaDepth
        // log2_max_pic_order_cnt_lsb_minus4, then the sub-layer ordering info (§7.3.2.2.1). What
        // follows up to the VUI is read only to reach its timing; a stream that stops early keeps
        // what came before.
        guard let log2MaxPOCLsbMinus4 = r.readUE(), log2MaxPOCLsbMinus4 <= 12, let allSubLayers = r.readFlag() else { return }
        for _ in (allSubLayers ? 0 : subLayers)...subLayers {
            guard r.readUE() != nil, let reorder = r.readUE(), r.readUE() != nil else { return }
            maxNumReorderPics = min(reorder, 16)
        }
        timing = Self.vuiTiming(&r, log2MaxPOCLsb: Int(log2MaxPOCLsbMinus4) + 4)
        guard width > UInt32(subWidthC) * (conformanceWindow.left + conformanceWindow.right),
              height > UInt32(subHeightC) * (conformanceWindow.top + conformanceWindow.bottom) else { return nil }
    }

    /// From the coding block sizes to the VUI's timing_info (§7.3.2.2.1, §E.2.1), or nil where the
    /// SPS has none or does not parse.
    private static func vuiTiming(_ r: inout RBSPBitReader, log2MaxPOCLsb: Int) -> (UInt32, UInt32)? {
        // Coding and transform block sizes and depths.
        for _ in 0..<6 { guard r.readUE() != nil else { return nil } }
        guard let scalingList = r.readFlag() else { return nil }
        if scalingList {
            guard let present = r.readFlag() else { return nil }
            if present && !skipScalingListData(&r) { return nil }
        }
        // amp_enabled_flag, sample_adaptive_offset_enabled_flag.
        guard r.skipBits(2), let pcm = r.readFlag() else { return nil }
        if pcm {
            guard r.skipBits(8), r.readUE() != nil, r.readUE() != nil, r.skipBits(1) else { return nil }
        }
        guard let sets = r.readUE(), sets <= 64, skipShortTermRefPicSets(&r, count: Int(sets)),
              let longTerm = r.readFlag() else { return nil }
        if longTerm {
            guard let count = r.readUE(), count <= 32 else { return nil }
            for _ in 0..<count { guard r.skipBits(log2MaxPOCLsb + 1) else { return nil } }
        }
        // sps_temporal_mvp_enabled_flag, strong_intra_smoothing_enabled_flag.
        guard r.skipBits(2), let vui = r.readFlag(), vui else { return nil }
        guard let aspect = r.readFlag() else { return nil }
        if aspect {
            guard let idc = r.readBits(8) else { return nil }
            if idc == 255 && !r.skipBits(32) { return nil }
        }
        guard let overscan = r.readFlag(), !overscan || r.skipBits(1), let signal = r.readFlag() else { return nil }
        if signal {
            guard r.skipBits(4), let colour = r.readFlag(), !colour || r.skipBits(24) else { return nil }
        }
        guard let chromaLoc = r.readFlag(), !chromaLoc || (r.readUE() != nil && r.readUE() != nil),
              // neutral_chroma_indication_flag, field_seq_flag, frame_field_info_present_flag.
              r.skipBits(3), let window = r.readFlag() else { return nil }
        if window { for _ in 0..<4 { guard r.readUE() != nil else { return nil } } }
        guard let timed = r.readFlag(), timed, let tick = r.readBits(32), let scale = r.readBits(32), tick > 0, scale > 0 else { return nil }
        return (tick, scale)
    }

    /// scaling_list_data() (§7.3.4).
    private static func skipScalingListData(_ r: inout RBSPBitReader) -> Bool {
        for sizeId in 0..<4 {
            for _ in stride(from: 0, to: 6, by: sizeId == 3 ? 3 : 1) {
                guard let predicted = r.readFlag() else { return false }
                if !predicted {
                    guard r.readUE() != nil else { return false }
                    continue
                }
                if sizeId > 1 && r.readSE() == nil { return false }
                for _ in 0..<min(64, 1 << (4 + (sizeId << 1))) { guard r.readSE() != nil else { return false } }
            }
        }
        return true
    }

    /// st_ref_pic_set(i) for every set of the SPS (§7.3.7), each predicted from the one before or
    /// listed, keeping each set's NumDeltaPocs for the next one's prediction.
    private static func skipShortTermRefPicSets(_ r: inout RBSPBitReader, count: Int) -> Bool {
        var deltaPocs: [Int] = []
        for index in 0..<count {
            var predicted = false
            if index != 0 {
                guard let flag = r.readFlag() else { return false }
                predicted = flag
            }
            if predicted {
                // delta_rps_sign, abs_delta_rps_minus1, then a flag or two per picture of the set before.
                guard r.skipBits(1), r.readUE() != nil else { return false }
                var pictures = 0
                for _ in 0...deltaPocs[index - 1] {
                    guard let used = r.readFlag() else { return false }
                    var useDelta = true
                    if !used {
                        guard let flag = r.readFlag() else { return false }
                        useDelta = flag
                    }
                    if useDelta { pictures += 1 }
                }
                deltaPocs.append(min(pictures, 32))
            } else {
                guard let negative = r.readUE(), let positive = r.readUE(), negative <= 16, positive <= 16 else { return false }
                for _ in 0..<(negative + positive) { guard r.readUE() != nil, r.skipBits(1) else { return false } }
                deltaPocs.append(Int(negative + positive))
            }
        }
        return true
    }

    /// Frames per second from the VUI (time_scale / num_units_in_tick, a frame a tick), reduced.
    public var frameRateFraction: (numerator: Int, denominator: Int)? {
        timing.map { reducedFraction(Int($0.timeScale), Int($0.numUnitsInTick)) }
    }

    /// The sub-layers' part of profile_tier_level (§7.3.3): presence flags, alignment, and what
    /// they say present.
    private static func skipSubLayers(_ r: inout RBSPBitReader, maxSubLayersMinus1: Int) -> Bool {
        guard maxSubLayersMinus1 > 0 else { return true }
        var present: [(profile: Bool, level: Bool)] = []
        for _ in 0..<maxSubLayersMinus1 {
            guard let profile = r.readFlag(), let level = r.readFlag() else { return false }
            present.append((profile, level))
        }
        guard r.skipBits(2 * (8 - maxSubLayersMinus1)) else { return false }
        for p in present {
            if p.profile && !r.skipBits(88) { return false }
            if p.level && !r.skipBits(8) { return false }
        }
        return true
    }

    private var subWidthC: Int { chromaFormatIdc == 1 || chromaFormatIdc == 2 ? 2 : 1 }
    private var subHeightC: Int { chromaFormatIdc == 1 ? 2 : 1 }

    /// Width after the conformance window (§7.4.3.2.1).
    public var width: Int {
        Int(picWidthInLumaSamples) - subWidthC * Int(conformanceWindow.left + conformanceWindow.right)
    }

    public var height: Int {
        Int(picHeightInLumaSamples) - subHeightC * Int(conformanceWindow.top + conformanceWindow.bottom)
    }

    /// The profile's name (Annex A.3), from general_profile_idc or, for 0, the compatibility flags.
    public var profileName: String {
        var idc = generalProfileIdc
        if idc == 0, let j = (1...11).first(where: { generalProfileCompatibility & (1 << (31 - $0)) != 0 }) { idc = UInt8(j) }
        switch idc {
        case 1: return "Main"
        case 2: return "Main 10"
        case 3: return "Main Still Picture"
        case 4: return "Range Extensions"
        case 5: return "High Throughput"
        case 6: return "Multiview Main"
        case 7: return "Scalable Main"
        case 8: return "3D Main"
        case 9: return "Screen Content Coding"
        case 10: return "Scalable Range Extensions"
        case 11: return "High Throughput Screen Content Coding"
        default: return "profile \(idc)"
        }
    }

    public var parameters: VideoParameters {
        VideoParameters(codec: .h265, width: width, height: height, profileIdc: Int(generalProfileIdc), profile: profileName,
                        tier: generalTierFlag ? "High" : "Main", levelIdc: Int(generalLevelIdc),  // bounded: a byte
                        level: Double(generalLevelIdc) / 30,
                        bitDepthLuma: Int(bitDepthLumaMinus8) + 8, bitDepthChroma: Int(bitDepthChromaMinus8) + 8,
                        chromaFormatIdc: Int(chromaFormatIdc))
    }
}

/// The ids at the start of a PPS (§7.3.2.3.1): pps_pic_parameter_set_id (0–63) and the SPS it names.
public struct HEVCPictureParameterSetIds: Sendable, Equatable {
    public var picParameterSetId: UInt32
    public var seqParameterSetId: UInt32

    public init?(nal: UnsafeRawBufferPointer) {
        guard nal.count >= 3, HEVCNALHeader(nal).type == HEVCNALUnitType.pps else { return nil }
        var r = RBSPBitReader(nal.view(2..<nal.count))
        guard let pps = r.readUE(), pps <= 63, let sps = r.readUE(), sps <= 15 else { return nil }
        picParameterSetId = pps
        seqParameterSetId = sps
    }
}

/// vps_video_parameter_set_id (§7.3.2.1), the first four bits of a VPS.
public func hevcVideoParameterSetId(nal: UnsafeRawBufferPointer) -> UInt8? {
    guard nal.count >= 3, HEVCNALHeader(nal).type == HEVCNALUnitType.vps else { return nil }
    return nal[2] >> 4
}

/// The start of a slice segment header (§7.3.6.1): whether it begins its picture, and its PPS.
public struct HEVCSliceSegmentHeaderPrefix: Sendable, Equatable {
    public var firstSliceSegmentInPicFlag: Bool
    public var slicePicParameterSetId: UInt32

    /// `body` is what follows the two header bytes.
    public init?(type: UInt8, body: UnsafeRawBufferPointer) {
        var r = RBSPBitReader(body)
        guard let first = r.readFlag() else { return nil }
        // no_output_of_prior_pics_flag, in IRAP pictures only.
        if HEVCNALUnitType.isIRAP(type) && !r.skipBits(1) { return nil }
        guard let pps = r.readUE(), pps <= 63 else { return nil }
        firstSliceSegmentInPicFlag = first
        slicePicParameterSetId = pps
    }
}
