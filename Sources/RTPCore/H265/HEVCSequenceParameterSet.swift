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
        // log2_max_pic_order_cnt_lsb_minus4, then the sub-layer ordering info (§7.3.2.2.1).
        if r.readUE() != nil, let allSubLayers = r.readFlag() {
            for _ in (allSubLayers ? 0 : subLayers)...subLayers {
                guard r.readUE() != nil, let reorder = r.readUE(), r.readUE() != nil else { break }
                maxNumReorderPics = min(reorder, 16)
            }
        }
        guard width > UInt32(subWidthC) * (conformanceWindow.left + conformanceWindow.right),
              height > UInt32(subHeightC) * (conformanceWindow.top + conformanceWindow.bottom) else { return nil }
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
                        tier: generalTierFlag ? "High" : "Main", levelIdc: Int(generalLevelIdc),
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
