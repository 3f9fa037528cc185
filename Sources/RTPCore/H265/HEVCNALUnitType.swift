/// The NAL unit header of H.265 §7.3.1.2, two bytes:
///
///    +---------------+---------------+
///    |0|1|2|3|4|5|6|7|0|1|2|3|4|5|6|7|
///    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///    |F|   Type    |  LayerId  | TID |
///    +-------------+-----------------+
///
/// RFC 7798's payload header has the same form, with types 48 (AP), 49 (FU) and 50 (PACI) of its own.
public struct HEVCNALHeader: Sendable, Equatable {
    public var byte0: UInt8
    public var byte1: UInt8

    @inline(__always)
    public init(_ byte0: UInt8, _ byte1: UInt8) {
        self.byte0 = byte0
        self.byte1 = byte1
    }

    /// The first two bytes of `bytes`, which has at least two.
    @inline(__always)
    public init(_ bytes: UnsafeRawBufferPointer) { self.init(bytes[0], bytes[1]) }

    public var forbiddenZeroBit: Bool { byte0 & 0x80 != 0 }
    /// nal_unit_type.
    public var type: UInt8 { byte0 >> 1 & 0x3F }
    /// nuh_layer_id: 0 for the base layer.
    public var layerId: UInt8 { (byte0 & 1) << 5 | byte1 >> 3 }
    /// nuh_temporal_id_plus1 − 1; a header with nuh_temporal_id_plus1 of 0 is invalid.
    public var temporalIdPlus1: UInt8 { byte1 & 7 }
    public var temporalId: Int { Int(temporalIdPlus1) - 1 }

    /// The same header with another type (an FU's FuType, a PACI's cType).
    public func with(type: UInt8, forbiddenBit: Bool? = nil) -> HEVCNALHeader {
        let f: UInt8 = (forbiddenBit ?? forbiddenZeroBit) ? 0x80 : 0
        return HEVCNALHeader(f | (type & 0x3F) << 1 | byte0 & 1, byte1)
    }
}

/// nal_unit_type values of H.265 Table 7-1, and the classes of them §7.4.2.2 and §7.4.2.4.4 use.
public enum HEVCNALUnitType {
    public static let trailN: UInt8 = 0
    public static let trailR: UInt8 = 1
    public static let radlN: UInt8 = 6
    public static let radlR: UInt8 = 7
    public static let raslN: UInt8 = 8
    public static let raslR: UInt8 = 9
    public static let blaWLP: UInt8 = 16
    public static let blaWRADL: UInt8 = 17
    public static let blaNLP: UInt8 = 18
    public static let idrWRADL: UInt8 = 19
    public static let idrNLP: UInt8 = 20
    public static let craNUT: UInt8 = 21
    public static let vps: UInt8 = 32
    public static let sps: UInt8 = 33
    public static let pps: UInt8 = 34
    public static let accessUnitDelimiter: UInt8 = 35
    public static let endOfSequence: UInt8 = 36
    public static let endOfBitstream: UInt8 = 37
    public static let fillerData: UInt8 = 38
    public static let prefixSEI: UInt8 = 39
    public static let suffixSEI: UInt8 = 40

    @inline(__always)
    public static func isVCL(_ type: UInt8) -> Bool { type < 32 }

    /// Types H.265 reserves or leaves unspecified, which decoders ignore (§7.4.2.2): VCL 10–15 and
    /// 22–31, non-VCL 41–47, and 48–63 (where RFC 7798's AP, FU and PACI live).
    @inline(__always)
    public static func isReserved(_ type: UInt8) -> Bool {
        (type >= 10 && type <= 15) || (type >= 22 && type <= 31) || type >= 41
    }

    /// IRAP pictures (BLA, IDR, CRA): decoding may start at one.
    @inline(__always)
    public static func isIRAP(_ type: UInt8) -> Bool { type >= blaWLP && type <= craNUT }

    @inline(__always)
    public static func isIDR(_ type: UInt8) -> Bool { type == idrWRADL || type == idrNLP }

    /// Random access skipped leading pictures: they refer to pictures before their IRAP, so they
    /// cannot be decoded when decoding starts at that IRAP (a CRA at the start, or a BLA).
    @inline(__always)
    public static func isRASL(_ type: UInt8) -> Bool { type == raslN || type == raslR }

    /// Sub-layer non-reference pictures (§3.132): no picture of the same sub-layer refers to them.
    @inline(__always)
    public static func isSubLayerNonReference(_ type: UInt8) -> Bool { type <= 14 && type % 2 == 0 }

    /// Types that, after the last VCL NAL unit of a picture, begin the next access unit (§7.4.2.4.4).
    @inline(__always)
    public static func startsAccessUnit(_ type: UInt8) -> Bool {
        (type >= vps && type <= accessUnitDelimiter) || type == prefixSEI || (type >= 41 && type <= 44)
            || (type >= 48 && type <= 55)
    }

    /// Table 7-1's name, and RFC 7798's for its payload structures.
    public static func name(_ type: UInt8) -> String {
        switch type {
        case 0: "TRAIL_N"
        case 1: "TRAIL_R"
        case 2: "TSA_N"
        case 3: "TSA_R"
        case 4: "STSA_N"
        case 5: "STSA_R"
        case 6: "RADL_N"
        case 7: "RADL_R"
        case 8: "RASL_N"
        case 9: "RASL_R"
        case 16: "BLA_W_LP"
        case 17: "BLA_W_RADL"
        case 18: "BLA_N_LP"
        case 19: "IDR_W_RADL"
        case 20: "IDR_N_LP"
        case 21: "CRA"
        case 32: "VPS"
        case 33: "SPS"
        case 34: "PPS"
        case 35: "AUD"
        case 36: "EOS"
        case 37: "EOB"
        case 38: "FD"
        case 39: "prefix-SEI"
        case 40: "suffix-SEI"
        case 48: "AP"
        case 49: "FU"
        case 50: "PACI"
        default: "type \(type)"
        }
    }
}
