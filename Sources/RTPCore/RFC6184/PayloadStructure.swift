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
        case unsupportedType = "STAP-B, MTAP or FU-B (interleaved mode, not supported yet)"
        case stapOverrun = "STAP-A unit size runs past the packet"
        case stapEmpty = "STAP-A with no NAL unit"
        case stapNestedType = "STAP-A carries an aggregation or fragment type"
        case fragmentTooShort = "FU-A without fragment bytes"
        case fragmentType = "FU-A carries an aggregation or fragment type"
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
            var cursor = ByteCursor(payload, at: 1)
            var units = 0
            while cursor.readableBytes > 0 {
                guard let size = cursor.readUInt16(), size > 0, let nal = cursor.readSlice(Int(size)) else {
                    return .stapOverrun
                }
                if nal[0] & 0x80 != 0 { return .forbiddenBit }
                let inner = nalUnitType(nal[0])
                if inner == 0 || inner >= 24 { return .stapNestedType }
                units += 1
            }
            return units == 0 ? .stapEmpty : nil
        case fuA:
            // FU-A (§5.8): FU indicator, FU header S|E|R|Type, then fragment bytes.
            guard payload.count >= 3 else { return .fragmentTooShort }
            let inner = nalUnitType(payload[1])
            return inner == 0 || inner >= 24 ? .fragmentType : nil
        case stapB, mtap16, mtap24, fuB:
            return .unsupportedType
        default:
            return .reservedType
        }
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
        default:
            return (payload[0], payload.view(1..<payload.count))
        }
    }
}
