/// nal_unit_type values, ITU-T H.264 Table 7-1.
public enum NALUnitType {
    public static let nonIDRSlice: UInt8 = 1
    public static let sliceDataPartitionA: UInt8 = 2
    public static let idrSlice: UInt8 = 5
    public static let sei: UInt8 = 6
    public static let sps: UInt8 = 7
    public static let pps: UInt8 = 8
    public static let accessUnitDelimiter: UInt8 = 9
    public static let endOfSequence: UInt8 = 10
    public static let endOfStream: UInt8 = 11
    public static let fillerData: UInt8 = 12

    /// Slices of a primary or redundant coded picture (types 1-5).
    @inline(__always)
    public static func isVCL(_ type: UInt8) -> Bool { type >= 1 && type <= 5 }

    /// Types whose first appearance after a picture's last VCL NAL unit starts a new access unit (§7.4.1.2.3).
    @inline(__always)
    public static func startsAccessUnit(_ type: UInt8) -> Bool {
        (type >= 6 && type <= 9) || (type >= 14 && type <= 18)
    }

    public static func name(_ type: UInt8) -> String {
        switch type {
        case 1: "slice"
        case 2, 3, 4: "partition"
        case 5: "IDR"
        case 6: "SEI"
        case 7: "SPS"
        case 8: "PPS"
        case 9: "AUD"
        case 10: "end-of-seq"
        case 11: "end-of-stream"
        case 12: "filler"
        default: "type \(type)"
        }
    }
}

/// The one-byte NAL unit header: forbidden_zero_bit(1) | nal_ref_idc(2) | nal_unit_type(5).
@inline(__always)
public func nalUnitType(_ header: UInt8) -> UInt8 { header & 0x1F }
