/// The RTP payload formats of RFC 6184 §5.2, and a structural check run on every packet before it
/// enters the reorder buffer, so that a malformed packet never takes the sequence slot of a good one.
///
/// The payload header has the NAL unit header's form:
///    +---------------+
///    |0|1|2|3|4|5|6|7|
///    +-+-+-+-+-+-+-+-+
///    |F|NRI|  Type   |
///    +---------------+
public enum H264Payload {
    public static let stapA: UInt8 = 24
    public static let stapB: UInt8 = 25
    public static let mtap16: UInt8 = 26
    public static let mtap24: UInt8 = 27
    public static let fuA: UInt8 = 28
    public static let fuB: UInt8 = 29

    public enum Invalid: String, Error, CaseIterable, Sendable {
        case empty = "empty H.264 payload"
        case forbiddenBit = "forbidden_zero_bit set"
        case reservedType = "reserved NAL unit type (0, 30, 31)"
        case aggregationOverrun = "aggregation unit size runs past the packet"
        case aggregationEmpty = "aggregation packet with no NAL unit"
        case aggregationNestedType = "aggregation packet carries an aggregation or fragment type"
        case fragmentTooShort = "fragmentation unit without fragment bytes"
        case fragmentType = "fragmentation unit carries an aggregation or fragment type"
        case fuBWithoutStart = "FU-B that is not a first fragment"
    }

    /// Checks every length and type in `payload`; nil when it is well formed.
    public static func validate(_ payload: UnsafeRawBufferPointer) -> Invalid? {
        guard let first = payload.first else { return .empty }
        if first & 0x80 != 0 { return .forbiddenBit }
        let type = nalUnitType(first)
        switch type {
        case 1...23:
            return nil
        case stapA:
            // STAP-A (§5.7.1): [16-bit size][NAL unit] repeated to the end of the payload.
            return validateAggregation(payload, headerBytes: 1, unitPrefixBytes: 0)
        case stapB:
            // STAP-B (§5.7.1): a 16-bit DON, then units as in STAP-A.
            return validateAggregation(payload, headerBytes: 3, unitPrefixBytes: 0)
        case mtap16, mtap24:
            // MTAP (§5.7.2): a 16-bit DON base, then [16-bit NAL unit size][8-bit DOND][TS offset][NAL unit].
            return validateAggregation(payload, headerBytes: 3, unitPrefixBytes: type == mtap16 ? 3 : 4)
        case fuA:
            // FU-A (§5.8): FU indicator, FU header S|E|R|Type, then fragment bytes.
            guard payload.count >= 3 else { return .fragmentTooShort }
            let inner = nalUnitType(payload[1])
            return inner == 0 || inner >= 24 ? .fragmentType : nil
        case fuB:
            // FU-B (§5.8): as FU-A with a 16-bit DON after the FU header; first fragments only.
            guard payload.count >= 5 else { return .fragmentTooShort }
            guard payload[1] & 0x80 != 0 else { return .fuBWithoutStart }
            let inner = nalUnitType(payload[1])
            return inner == 0 || inner >= 24 ? .fragmentType : nil
        default:
            return .reservedType
        }
    }

    /// Walks the units of an aggregation packet: each is a 16-bit NAL unit size, `unitPrefixBytes`
    /// of DOND and timestamp offset, then the NAL unit.
    private static func validateAggregation(_ payload: UnsafeRawBufferPointer, headerBytes: Int, unitPrefixBytes: Int) -> Invalid? {
        var cursor = ByteCursor(payload, at: min(headerBytes, payload.count))
        guard payload.count >= headerBytes else { return .aggregationOverrun }
        var units = 0
        while cursor.readableBytes > 0 {
            guard let size = cursor.readUInt16(), size > 0, cursor.skip(unitPrefixBytes),
                  let nal = cursor.readSlice(Int(size)) else {
                return .aggregationOverrun
            }
            if nal[0] & 0x80 != 0 { return .forbiddenBit }
            let inner = nalUnitType(nal[0])
            if inner == 0 || inner >= 24 { return .aggregationNestedType }
            units += 1
        }
        return units == 0 ? .aggregationEmpty : nil
    }

    /// Calls `body` with the type of each NAL unit a payload carries or starts, and the unit itself when
    /// it is whole in this payload (nil for a fragment). Bounds-checked: safe on unchecked payloads.
    public static func forEachNALUnit(_ payload: UnsafeRawBufferPointer, _ body: (UInt8, UnsafeRawBufferPointer?) -> Void) {
        guard let first = payload.first else { return }
        let type = nalUnitType(first)
        switch type {
        case 1...23:
            body(type, payload)
        case stapA, stapB, mtap16, mtap24:
            var cursor = ByteCursor(payload, at: type == stapA ? 1 : 3)
            let prefix = type == mtap16 ? 3 : type == mtap24 ? 4 : 0
            while let size = cursor.readUInt16(), size > 0, cursor.skip(prefix), let nal = cursor.readSlice(Int(size)) {
                body(nalUnitType(nal[0]), nal)
            }
        case fuA, fuB:
            if payload.count > 1 { body(nalUnitType(payload[1]), nil) }
        default:
            break
        }
    }

    /// Whether a payload structure belongs to the interleaved packetization mode (mode 2) only.
    @inline(__always)
    public static func isInterleavedType(_ type: UInt8) -> Bool {
        type == stapB || type == mtap16 || type == mtap24 || type == fuB
    }

    /// The type of the first NAL unit a valid payload starts or continues, and whether its first bytes
    /// are here (false for an FU-A continuation).
    public static func leadingNAL(_ payload: UnsafeRawBufferPointer) -> (header: UInt8, body: UnsafeRawBufferPointer)? {
        let type = nalUnitType(payload[0])
        switch type {
        case stapA:
            let size = Int(payload.loadUnaligned(fromByteOffset: 1, as: UInt16.self).bigEndian)
            return (payload[3], payload.view(4..<3 + size))
        case fuA:
            guard payload[1] & 0x80 != 0 else { return nil }
            return ((payload[0] & 0xE0) | (payload[1] & 0x1F), payload.view(2..<payload.count))
        case stapB, mtap16, mtap24, fuB:
            // Interleaved: transmission order says nothing about where access units start.
            return nil
        default:
            return (payload[0], payload.view(1..<payload.count))
        }
    }
}
