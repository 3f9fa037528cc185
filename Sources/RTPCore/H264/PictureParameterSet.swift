/// The ids at the head of pic_parameter_set_rbsp() (H.264 §7.3.2.2): which SPS a PPS refers to.
public struct PictureParameterSetIds: Equatable, Sendable {
    public var picParameterSetId: UInt32
    public var seqParameterSetId: UInt32

    /// `nal` is the whole NAL unit, header byte included.
    public init?(nal: UnsafeRawBufferPointer) {
        guard nal.count >= 2, nalUnitType(nal[0]) == NALUnitType.pps else { return nil }
        var r = RBSPBitReader(nal.view(1..<nal.count))
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
        guard let firstMb = r.readUE(), let type = r.readUE(), type <= 9,
              let pps = r.readUE(), pps <= 255 else { return nil }
        firstMbInSlice = firstMb
        sliceType = type
        picParameterSetId = pps
    }
}
