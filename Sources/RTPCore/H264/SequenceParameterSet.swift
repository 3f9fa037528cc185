/// The fields of seq_parameter_set_data() (H.264 §7.3.2.1.1) that a receiver needs:
/// ids for parameter-set bookkeeping, and the picture size.
public struct SequenceParameterSet: Equatable, Sendable {
    public var profileIdc: UInt8
    public var constraintFlags: UInt8
    public var levelIdc: UInt8
    public var seqParameterSetId: UInt32
    public var chromaFormatIdc: UInt32 = 1
    public var bitDepthLumaMinus8: UInt32 = 0
    public var bitDepthChromaMinus8: UInt32 = 0
    public var log2MaxFrameNumMinus4: UInt32 = 0
    public var picOrderCntType: UInt32 = 0
    public var maxNumRefFrames: UInt32 = 0
    public var picWidthInMbsMinus1: UInt32 = 0
    public var picHeightInMapUnitsMinus1: UInt32 = 0
    public var frameMbsOnlyFlag = true
    public var frameCropping: (left: UInt32, right: UInt32, top: UInt32, bottom: UInt32) = (0, 0, 0, 0)

    public static func == (a: Self, b: Self) -> Bool {
        a.profileIdc == b.profileIdc && a.seqParameterSetId == b.seqParameterSetId
            && a.width == b.width && a.height == b.height && a.chromaFormatIdc == b.chromaFormatIdc
    }

    /// Profiles whose SPS carries chroma_format_idc and the bit depths (§7.3.2.1.1).
    public static let highProfiles: Set<UInt8> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    /// `nal` is the whole NAL unit, header byte included.
    public init?(nal: UnsafeRawBufferPointer) {
        guard nal.count >= 4, nalUnitType(nal[0]) == NALUnitType.sps else { return nil }
        var r = RBSPBitReader(nal.view(1..<nal.count))
        guard let profile = r.readBits(8), let constraints = r.readBits(8), let level = r.readBits(8),
              let id = r.readUE(), id <= 31 else { return nil }
        profileIdc = UInt8(profile)
        constraintFlags = UInt8(constraints)
        levelIdc = UInt8(level)
        seqParameterSetId = id

        if Self.highProfiles.contains(profileIdc) {
            guard let chroma = r.readUE(), chroma <= 3 else { return nil }
            chromaFormatIdc = chroma
            if chroma == 3 { guard r.readFlag() != nil else { return nil } }  // separate_colour_plane_flag
            guard let luma = r.readUE(), let chromaDepth = r.readUE(), luma <= 6, chromaDepth <= 6,
                  r.readFlag() != nil,  // qpprime_y_zero_transform_bypass_flag
                  let scalingMatrixPresent = r.readFlag() else { return nil }
            bitDepthLumaMinus8 = luma
            bitDepthChromaMinus8 = chromaDepth
            if scalingMatrixPresent {
                for i in 0..<(chroma == 3 ? 12 : 8) {
                    guard let listPresent = r.readFlag() else { return nil }
                    if listPresent, !Self.skipScalingList(&r, size: i < 6 ? 16 : 64) { return nil }
                }
            }
        }
        guard let log2MaxFrameNum = r.readUE(), log2MaxFrameNum <= 12,
              let pocType = r.readUE(), pocType <= 2 else { return nil }
        log2MaxFrameNumMinus4 = log2MaxFrameNum
        picOrderCntType = pocType
        if pocType == 0 {
            guard let log2MaxPoc = r.readUE(), log2MaxPoc <= 12 else { return nil }
        } else if pocType == 1 {
            guard r.readFlag() != nil, r.readSE() != nil, r.readSE() != nil,
                  let cycle = r.readUE(), cycle <= 255 else { return nil }
            for _ in 0..<cycle { guard r.readSE() != nil else { return nil } }
        }
        guard let refFrames = r.readUE(), r.readFlag() != nil,
              let widthMbs = r.readUE(), let heightMapUnits = r.readUE(),
              widthMbs < 1024, heightMapUnits < 1024,
              let frameMbsOnly = r.readFlag() else { return nil }
        maxNumRefFrames = refFrames
        picWidthInMbsMinus1 = widthMbs
        picHeightInMapUnitsMinus1 = heightMapUnits
        frameMbsOnlyFlag = frameMbsOnly
        if !frameMbsOnly { guard r.readFlag() != nil else { return nil } }  // mb_adaptive_frame_field_flag
        guard r.readFlag() != nil, let cropping = r.readFlag() else { return nil }  // direct_8x8_inference_flag
        if cropping {
            guard let left = r.readUE(), let right = r.readUE(), let top = r.readUE(), let bottom = r.readUE()
            else { return nil }
            frameCropping = (left, right, top, bottom)
        }
        guard width > 0, height > 0 else { return nil }
    }

    private static func skipScalingList(_ r: inout RBSPBitReader, size: Int) -> Bool {
        var last: Int32 = 8, next: Int32 = 8
        for _ in 0..<size where next != 0 {
            guard let delta = r.readSE() else { return false }
            next = (last + delta + 256) % 256
            if next != 0 { last = next }
        }
        return true
    }

    /// Cropped picture width in luma samples (§7.4.2.1.1, equations 7-19 to 7-22).
    public var width: Int {
        let cropUnitX = chromaFormatIdc == 0 || chromaFormatIdc == 3 ? 1 : 2
        return Int(picWidthInMbsMinus1 + 1) * 16
            - cropUnitX * Int(frameCropping.left + frameCropping.right)
    }

    public var height: Int {
        let frameHeightInMbs = (2 - (frameMbsOnlyFlag ? 1 : 0)) * Int(picHeightInMapUnitsMinus1 + 1)
        let subHeightC = chromaFormatIdc == 1 ? 2 : 1
        let cropUnitY = (chromaFormatIdc == 0 ? 1 : subHeightC) * (2 - (frameMbsOnlyFlag ? 1 : 0))
        return frameHeightInMbs * 16 - cropUnitY * Int(frameCropping.top + frameCropping.bottom)
    }
}
