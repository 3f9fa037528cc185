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

    public typealias Invalid = VideoPayloadInvalid

    /// Checks every length and type in `payload`; nil when it is well formed.
    @inline(__always)
    public static func validate(_ payload: UnsafeRawBufferPointer) -> Invalid? {
        guard let first = payload.first else { return .empty }
        if first & 0x80 != 0 { return .forbiddenBit }
        let type = nalUnitType(first)
        switch type {
        case 1...23:
            return nil
        case stapA, stapB, mtap16, mtap24:
            // STAP-A/B (§5.7.1) and MTAP16/24 (§5.7.2); see `AggregationUnits`.
            return validateAggregation(payload)
        case fuA:
            // FU-A (§5.8): FU indicator, FU header S|E|R|Type, then fragment bytes; none at all is
            // a fragment that adds nothing, as some cameras send, not a loss.
            guard payload.count >= 2 else { return .fragmentTooShort }
            let inner = nalUnitType(payload[1])
            return inner == 0 || inner >= 24 ? .fragmentType : nil
        case fuB:
            // FU-B (§5.8): as FU-A with a 16-bit DON after the FU header; first fragments only.
            guard payload.count >= 4 else { return .fragmentTooShort }
            guard payload[1] & 0x80 != 0 else { return .fuBWithoutStart }
            let inner = nalUnitType(payload[1])
            return inner == 0 || inner >= 24 ? .fragmentType : nil
        default:
            return .reservedType
        }
    }

    /// Checks the units of an aggregation packet. A unit that runs past the packet costs only itself
    /// when whole units came before it: the packet is valid, and its units are kept up to there.
    private static func validateAggregation(_ payload: UnsafeRawBufferPointer) -> Invalid? {
        var units = AggregationUnits(payload)
        if units.decodingOrderNumber != nil, nalUnitType(payload[0]) != stapB,
           !AggregationUnits.fitExactly(payload, sizeCountsPrefix: false),
           AggregationUnits.fitExactly(payload, sizeCountsPrefix: true) {
            return nil  // an MTAP whose sizes count DOND and the TS offset too
        }
        var count = 0
        while let unit = units.next() {
            if unit.nal[0] & 0x80 != 0 { return .forbiddenBit }
            guard isAggregatable(unit.nal[0]) else { return .aggregationNestedType }
            count += 1
        }
        if count == 0 { return units.overran ? .aggregationOverrun : .aggregationEmpty }
        return nil
    }

    /// Whether a NAL unit header may stand inside an aggregation packet: F clear, type 1-23.
    @inline(__always)
    static func isAggregatable(_ header: UInt8) -> Bool {
        let type = nalUnitType(header)
        return header & 0x80 == 0 && type >= 1 && type <= 23
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
            var units = AggregationUnits(payload)
            while let unit = units.next() { body(nalUnitType(unit.nal[0]), unit.nal) }
        case fuA, fuB:
            if payload.count > 1 { body(nalUnitType(payload[1]), nil) }
        default:
            break
        }
    }

    /// Bit n set for NAL unit type n: the payload structure's own type, and the type of each unit it
    /// carries or starts. For a payload `validate` passed.
    @inline(__always)
    public static func typesCarried(by payload: UnsafeRawBufferPointer) -> UInt64 {
        let type = nalUnitType(payload[0])
        switch type {
        case 1...23:
            return 1 << type
        case fuA, fuB:
            return 1 << type | 1 << nalUnitType(payload[1])
        default:
            var types: UInt64 = 1 << type
            forEachNALUnit(payload) { unit, _ in types |= 1 << unit }
            return types
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
            var units = AggregationUnits(payload)
            return units.next().map { ($0.nal[0], $0.nal.view(1..<$0.nal.count)) }
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
