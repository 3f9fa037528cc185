/// The ids at the head of pic_parameter_set_rbsp() (H.264 §7.3.2.2): which SPS a PPS refers to.
public struct PictureParameterSetIds: Equatable, Sendable {
    public var picParameterSetId: UInt32
    public var seqParameterSetId: UInt32

    /// `nal` is the whole NAL unit, header byte included.
    public init?(nal: UnsafeRawBufferPointer) {
        guard nal.count >= 2, nalUnitType(nal[0]) == NALUnitType.pps else { return nil }
        var r = RBSPBitReader(nal.view(1..<nal.count))
        self.init(reading: &r)
    }

    /// Reads the ids from the start of the RBSP, leaving `r` after them.
    init?(reading r: inout RBSPBitReader) {
        guard let pps = r.readUE(), pps <= 255, let sps = r.readUE(), sps <= 31 else { return nil }
        picParameterSetId = pps
        seqParameterSetId = sps
    }
}

/// The first fields of slice_header() (§7.3.3), enough to find where a picture starts and
/// which PPS it uses.
public struct SliceHeaderPrefix: Equatable, Sendable {
    public var firstMbInSlice: UInt32
    public var sliceType: UInt32
    public var picParameterSetId: UInt32

    /// `nal` starts with the NAL header; a first FU-A fragment's bytes are enough.
    public init?(nal: UnsafeRawBufferPointer) {
        guard nal.count >= 2 else { return nil }
        self.init(header: nal[0], body: nal.view(1..<nal.count))
    }

    /// `body` is what follows the NAL header byte.
    public init?(header: UInt8, body: UnsafeRawBufferPointer) {
        guard NALUnitType.isVCL(nalUnitType(header)) else { return nil }
        var r = RBSPBitReader(body)
        self.init(reading: &r)
    }

    /// Reads the fields from the start of the slice header, leaving `r` after them.
    init?(reading r: inout RBSPBitReader) {
        guard let firstMb = r.readUE(), let type = r.readUE(), type <= 9,
              let pps = r.readUE(), pps <= 255 else { return nil }
        firstMbInSlice = firstMb
        sliceType = type
        picParameterSetId = pps
    }
}

/// A slice's frame_num and how its stream counts frame_num: what tells whether a reference picture
/// was lost (§7.4.3). Read at the first slice of every access unit, so it costs a few bit reads.
public struct FrameNum: Sendable, Equatable {
    public var value: UInt32
    public var maxFrameNum: UInt32
    public var gapsAllowed: Bool
    /// field_pic_flag: a field, whose pair shares its frame_num.
    public var fieldPicture: Bool

    /// `body` is what follows the slice's NAL header byte.
    public init?(body: UnsafeRawBufferPointer, numbering: ParameterSetCache.FrameNumbering) {
        var r = RBSPBitReader(body)
        guard SliceHeaderPrefix(reading: &r) != nil else { return nil }
        if numbering.separateColourPlane { guard r.skipBits(2) else { return nil } }  // colour_plane_id
        guard let frameNum = r.readBits(numbering.log2MaxFrameNum) else { return nil }
        value = frameNum
        maxFrameNum = numbering.maxFrameNum
        gapsAllowed = numbering.gapsAllowed
        fieldPicture = false
        if !numbering.frameMbsOnly {
            guard let field = r.readFlag() else { return nil }
            fieldPicture = field
        }
    }
}

/// The slice_header() fields by which H.264 §7.4.1.2.4 tells the first slice of a new primary coded
/// picture: two slices whose identities differ belong to different pictures.
public struct PictureIdentity: Equatable, Sendable {
    public private(set) var picParameterSetId: UInt32
    public private(set) var frameNum: UInt32
    public private(set) var fieldPicFlag = false
    public private(set) var bottomFieldFlag = false
    /// nal_ref_idc counts only as zero or not.
    public private(set) var isReference: Bool
    public private(set) var idrPicFlag: Bool
    var idrPicId: UInt32 = 0
    public private(set) var picOrderCntLsb: UInt32 = 0
    var deltaPicOrderCntBottom: Int32 = 0
    var deltaPicOrderCnt: (Int32, Int32) = (0, 0)

    /// `pps` is the whole PPS NAL unit the slice names, `sps` the SPS that PPS names.
    public init?(header: UInt8, body: UnsafeRawBufferPointer, sps: SequenceParameterSet, pps: UnsafeRawBufferPointer) {
        let type = nalUnitType(header)
        guard type == NALUnitType.idrSlice || type == NALUnitType.nonIDRSlice, pps.count >= 2 else { return nil }
        // pic_parameter_set_rbsp(): the ids, entropy_coding_mode_flag, bottom_field_pic_order_in_frame_present_flag.
        var p = RBSPBitReader(pps.view(1..<pps.count))
        guard PictureParameterSetIds(reading: &p) != nil, p.readFlag() != nil, let bottomFieldPicOrder = p.readFlag()
        else { return nil }
        var r = RBSPBitReader(body)
        guard let prefix = SliceHeaderPrefix(reading: &r) else { return nil }
        if sps.separateColourPlaneFlag { guard r.skipBits(2) else { return nil } }
        guard let frameNum = r.readBits(Int(sps.log2MaxFrameNumMinus4) + 4) else { return nil }
        picParameterSetId = prefix.picParameterSetId
        self.frameNum = frameNum
        isReference = header & 0x60 != 0
        idrPicFlag = type == NALUnitType.idrSlice
        if !sps.frameMbsOnlyFlag {
            guard let field = r.readFlag() else { return nil }
            fieldPicFlag = field
            if field {
                guard let bottom = r.readFlag() else { return nil }
                bottomFieldFlag = bottom
            }
        }
        if idrPicFlag {
            guard let id = r.readUE() else { return nil }
            idrPicId = id
        }
        if sps.picOrderCntType == 0 {
            guard let lsb = r.readBits(Int(sps.log2MaxPicOrderCntLsbMinus4) + 4) else { return nil }
            picOrderCntLsb = lsb
            if bottomFieldPicOrder && !fieldPicFlag {
                guard let delta = r.readSE() else { return nil }
                deltaPicOrderCntBottom = delta
            }
        } else if sps.picOrderCntType == 1 && !sps.deltaPicOrderAlwaysZeroFlag {
            guard let first = r.readSE() else { return nil }
            deltaPicOrderCnt.0 = first
            if bottomFieldPicOrder && !fieldPicFlag {
                guard let second = r.readSE() else { return nil }
                deltaPicOrderCnt.1 = second
            }
        }
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.picParameterSetId == b.picParameterSetId && a.frameNum == b.frameNum && a.fieldPicFlag == b.fieldPicFlag
            && a.bottomFieldFlag == b.bottomFieldFlag && a.isReference == b.isReference && a.idrPicFlag == b.idrPicFlag
            && a.idrPicId == b.idrPicId && a.picOrderCntLsb == b.picOrderCntLsb
            && a.deltaPicOrderCntBottom == b.deltaPicOrderCntBottom && a.deltaPicOrderCnt == b.deltaPicOrderCnt
    }
}
