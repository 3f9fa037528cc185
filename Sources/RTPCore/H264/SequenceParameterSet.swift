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
    public var separateColourPlaneFlag = false
    public var log2MaxFrameNumMinus4: UInt32 = 0
    public var picOrderCntType: UInt32 = 0
    public var log2MaxPicOrderCntLsbMinus4: UInt32 = 0
    public var deltaPicOrderAlwaysZeroFlag = false
    public var maxNumRefFrames: UInt32 = 0
    /// frame_num may skip values (§7.4.3): then a gap in frame_num does not mean a lost picture.
    public var gapsInFrameNumValueAllowedFlag = false
    public var picWidthInMbsMinus1: UInt32 = 0
    public var picHeightInMapUnitsMinus1: UInt32 = 0
    public var frameMbsOnlyFlag = true
    public var frameCropping: (left: UInt32, right: UInt32, top: UInt32, bottom: UInt32) = (0, 0, 0, 0)
    /// VUI sample aspect ratio, when signalled.
    public var sampleAspectRatio: (width: Int, height: Int)?
    /// VUI timing_info: num_units_in_tick and time_scale, when signalled.
    public var timing: (numUnitsInTick: UInt32, timeScale: UInt32)?
    /// VUI bitstream_restriction: how many frames may precede one in decoding order and follow it in
    /// output order. Nil when not signalled.
    public var maxNumReorderFrames: UInt32?

    public static func == (a: Self, b: Self) -> Bool {
        a.profileIdc == b.profileIdc && a.seqParameterSetId == b.seqParameterSetId
            && a.width == b.width && a.height == b.height && a.chromaFormatIdc == b.chromaFormatIdc
    }

    /// Profiles whose SPS carries chroma_format_idc and the bit depths (§7.3.2.1.1).
    public static let highProfiles: Set<UInt8> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    /// seq_parameter_set_id alone, read without the rest: nil when `nal` is no SPS or the id is out
    /// of range. `nal` is the whole NAL unit, header byte included.
    public static func id(nal: UnsafeRawBufferPointer) -> UInt32? {
        guard nal.count >= 4, nalUnitType(nal[0]) == NALUnitType.sps else { return nil }
        var r = RBSPBitReader(nal.view(1..<nal.count))
        guard r.skipBits(24), let id = r.readUE(), id <= 31 else { return nil }
        return id
    }

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

        if Self.highProfiles.contains(profileIdc) { guard parseHighProfileFields(&r) else { return nil } }
        guard parseFrameNumAndPictureOrderCount(&r) else { return nil }
        guard let refFrames = r.readUE(), let gapsAllowed = r.readFlag(),
              let widthMbs = r.readUE(), let heightMapUnits = r.readUE(),
              widthMbs < 1024, heightMapUnits < 1024,
              let frameMbsOnly = r.readFlag() else { return nil }
        maxNumRefFrames = refFrames
        gapsInFrameNumValueAllowedFlag = gapsAllowed
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
        // Everything before the VUI is parsed; a VUI cut short leaves its fields unknown.
        if r.readFlag() == true { parseVUI(&r) }
    }

    /// The high profiles' chroma format, bit depths and scaling lists; false when cut short or out of range.
    private mutating func parseHighProfileFields(_ r: inout RBSPBitReader) -> Bool {
        guard let chroma = r.readUE(), chroma <= 3 else { return false }
        chromaFormatIdc = chroma
        if chroma == 3 {
            guard let separate = r.readFlag() else { return false }
            separateColourPlaneFlag = separate
        }
        guard let luma = r.readUE(), let chromaDepth = r.readUE(), luma <= 6, chromaDepth <= 6,
              r.readFlag() != nil,  // qpprime_y_zero_transform_bypass_flag
              let scalingMatrixPresent = r.readFlag() else { return false }
        bitDepthLumaMinus8 = luma
        bitDepthChromaMinus8 = chromaDepth
        if scalingMatrixPresent {
            for i in 0..<(chroma == 3 ? 12 : 8) {
                guard let listPresent = r.readFlag() else { return false }
                if listPresent, !Self.skipScalingList(&r, size: i < 6 ? 16 : 64) { return false }
            }
        }
        return true
    }

    /// log2_max_frame_num and the picture order count's fields; false when cut short or out of range.
    private mutating func parseFrameNumAndPictureOrderCount(_ r: inout RBSPBitReader) -> Bool {
        guard let log2MaxFrameNum = r.readUE(), log2MaxFrameNum <= 12,
              let pocType = r.readUE(), pocType <= 2 else { return false }
        log2MaxFrameNumMinus4 = log2MaxFrameNum
        picOrderCntType = pocType
        if pocType == 0 {
            guard let log2MaxPoc = r.readUE(), log2MaxPoc <= 12 else { return false }
            log2MaxPicOrderCntLsbMinus4 = log2MaxPoc
        } else if pocType == 1 {
            guard let alwaysZero = r.readFlag(), r.readSE() != nil, r.readSE() != nil,
                  let cycle = r.readUE(), cycle <= 255 else { return false }
            deltaPicOrderAlwaysZeroFlag = alwaysZero
            for _ in 0..<cycle { guard r.readSE() != nil else { return false } }
        }
        return true
    }

    /// vui_parameters(), Annex E.1.1: aspect ratio, timing and bitstream restriction.
    private mutating func parseVUI(_ r: inout RBSPBitReader) {
        guard let aspectPresent = r.readFlag() else { return }
        if aspectPresent {
            guard let idc = r.readBits(8) else { return }
            if idc == 255 {
                guard let w = r.readBits(16), let h = r.readBits(16) else { return }
                sampleAspectRatio = (Int(w), Int(h))
            } else if idc >= 1 && idc <= 16 {
                let table = [(1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11),
                             (80, 33), (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1)]
                sampleAspectRatio = table[Int(idc) - 1]
            }
        }
        guard let overscan = r.readFlag() else { return }
        if overscan { guard r.skipBits(1) else { return } }
        guard let signalType = r.readFlag() else { return }
        if signalType {
            guard r.skipBits(4), let colour = r.readFlag() else { return }
            if colour { guard r.skipBits(24) else { return } }
        }
        guard let chromaLoc = r.readFlag() else { return }
        if chromaLoc { guard r.readUE() != nil, r.readUE() != nil else { return } }
        guard let timingPresent = r.readFlag() else { return }
        if timingPresent {
            guard let units = r.readBits(32), let scale = r.readBits(32), r.skipBits(1) else { return }
            if units > 0 && scale > 0 { timing = (units, scale) }
        }
        guard let nalHRD = r.readFlag() else { return }
        if nalHRD { guard Self.skipHRD(&r) else { return } }
        guard let vclHRD = r.readFlag() else { return }
        if vclHRD { guard Self.skipHRD(&r) else { return } }
        if nalHRD || vclHRD { guard r.skipBits(1) else { return } }  // low_delay_hrd_flag
        guard r.skipBits(1), let restriction = r.readFlag(), restriction else { return }  // pic_struct_present_flag
        guard r.skipBits(1), r.readUE() != nil, r.readUE() != nil, r.readUE() != nil, r.readUE() != nil,
              let reorder = r.readUE(), reorder <= 16 else { return }
        maxNumReorderFrames = reorder
    }

    private static func skipHRD(_ r: inout RBSPBitReader) -> Bool {
        guard let count = r.readUE(), count < 32, r.skipBits(8) else { return false }
        for _ in 0...count {
            guard r.readUE() != nil, r.readUE() != nil, r.skipBits(1) else { return false }
        }
        return r.skipBits(20)
    }

    /// Frames per second from the VUI timing (two fields per frame), when signalled.
    public var frameRate: Double? {
        timing.map { Double($0.timeScale) / (2 * Double($0.numUnitsInTick)) }
    }

    /// The VUI frame rate as a fraction: time_scale / (2 × num_units_in_tick), reduced.
    public var frameRateFraction: (numerator: Int, denominator: Int)? {
        timing.map { reducedFraction(Int($0.timeScale), 2 * Int($0.numUnitsInTick)) }
    }

    private static func skipScalingList(_ r: inout RBSPBitReader, size: Int) -> Bool {
        var last: Int32 = 8, next: Int32 = 8
        for _ in 0..<size where next != 0 {
            // delta_scale lies in -128...127 (§7.4.2.1.1.1); anything else is corrupt.
            guard let delta = r.readSE(), delta >= -128, delta <= 127 else { return false }
            next = (last + delta + 256) % 256
            if next != 0 { last = next }
        }
        return true
    }

    /// Cropped picture width in luma samples (§7.4.2.1.1, equations 7-19 to 7-22).
    public var width: Int {
        let cropUnitX = chromaFormatIdc == 0 || chromaFormatIdc == 3 ? 1 : 2
        return Int(picWidthInMbsMinus1 + 1) * 16
            - cropUnitX * (Int(frameCropping.left) + Int(frameCropping.right))
    }

    public var height: Int {
        let frameHeightInMbs = (2 - (frameMbsOnlyFlag ? 1 : 0)) * Int(picHeightInMapUnitsMinus1 + 1)
        let subHeightC = chromaFormatIdc == 1 ? 2 : 1
        let cropUnitY = (chromaFormatIdc == 0 ? 1 : subHeightC) * (2 - (frameMbsOnlyFlag ? 1 : 0))
        return frameHeightInMbs * 16 - cropUnitY * (Int(frameCropping.top) + Int(frameCropping.bottom))
    }

    /// What the report and `--list` say of it.
    public var parameters: VideoParameters {
        VideoParameters(codec: .h264, width: width, height: height, profileIdc: Int(profileIdc),
                        profile: Self.profileName(profileIdc), tier: nil, levelIdc: Int(levelIdc), level: Double(levelIdc) / 10,  // bounded: a byte
                        bitDepthLuma: Int(bitDepthLumaMinus8) + 8, bitDepthChroma: Int(bitDepthChromaMinus8) + 8,
                        chromaFormatIdc: Int(chromaFormatIdc))
    }

    /// The profile's name (Annex A.2).
    public static func profileName(_ idc: UInt8) -> String {
        switch idc {
        case 66: "Baseline"
        case 77: "Main"
        case 88: "Extended"
        case 100: "High"
        case 110: "High 10"
        case 122: "High 4:2:2"
        case 244: "High 4:4:4 Predictive"
        case 44: "CAVLC 4:4:4 Intra"
        default: "profile \(idc)"
        }
    }
}
