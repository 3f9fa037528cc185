/// The payload structures of RFC 7798 §4.4, by the Type field of the two-byte payload header (the
/// form of H.265's NAL unit header, `HEVCNALHeader`): single NAL unit packets (any NAL type),
/// aggregation packets (48), fragmentation units (49) and PACI packets (50), which carry one of the
/// others behind a payload header extension.
///
/// When the SDP's sprop-max-don-diff or sprop-depack-buf-nalus is above 0, each carries decoding
/// order numbers (§4.4): a 16-bit DONL in a single NAL unit packet, before an AP's first unit and in
/// an FU's first fragment, and an 8-bit DOND before each further unit of an AP.
public enum H265Payload {
    public static let aggregationPacket: UInt8 = 48
    public static let fragmentationUnit: UInt8 = 49
    public static let paci: UInt8 = 50

    /// What a PACI packet (§4.4.4) carries: the payload header it stands for (its own, with F and
    /// Type from A and cType) and what follows the extensions.
    ///
    ///     PayloadHdr (Type=50) | A | cType(6) | PHSsize(5) | F0 F1 F2 | Y | PHES (PHSsize bytes) | payload
    @inline(__always)
    public static func unwrapPACI(_ header: HEVCNALHeader, rest: UnsafeRawBufferPointer) -> (HEVCNALHeader, UnsafeRawBufferPointer)? {
        guard rest.count >= 2 else { return nil }
        let a = rest[0] & 0x80 != 0
        let cType = rest[0] >> 1 & 0x3F
        let phsSize = Int((rest[0] & 1) << 4 | rest[1] >> 4)
        guard rest.count > 2 + phsSize else { return nil }
        return (header.with(type: cType, forbiddenBit: a), rest.view(2 + phsSize..<rest.count))
    }

    /// Checks every length and type; nil when well formed. `rest` follows the payload header.
    public static func validate(_ payload: UnsafeRawBufferPointer, decodingOrderNumbers donl: Bool) -> VideoPayloadInvalid? {
        guard !payload.isEmpty else { return .empty }
        guard payload.count >= 2 else { return .tooShort }
        var header = HEVCNALHeader(payload)
        var rest = payload.view(2..<payload.count)
        if header.forbiddenZeroBit { return .forbiddenBit }
        if header.temporalIdPlus1 == 0 { return .zeroTemporalId }
        if header.type == paci {
            guard let (inner, carried) = unwrapPACI(header, rest: rest) else { return .paciOverrun }
            if inner.type == paci { return .paciNestedType }
            if inner.forbiddenZeroBit { return .forbiddenBit }
            (header, rest) = (inner, carried)
        }
        switch header.type {
        case aggregationPacket:
            var units = H265AggregationUnits(rest, decodingOrderNumbers: donl)
            var count = 0
            // (A unit too short for its header ends the walk as an overrun.)
            while let unit = units.next() {
                let inner = HEVCNALHeader(unit.nal)
                if inner.forbiddenZeroBit { return .forbiddenBit }
                if inner.type >= aggregationPacket && inner.type <= paci { return .aggregationNestedType }
                count += 1
            }
            if count == 0 { return units.overran ? .aggregationOverrun : .aggregationEmpty }
            return nil
        case fragmentationUnit:
            // An FU header (and a first fragment's DONL) and no fragment bytes adds nothing: taken.
            guard rest.count >= 1 else { return .fragmentTooShort }
            let start = rest[0] & 0x80 != 0
            if start && donl && rest.count < 3 { return .fragmentTooShort }
            let type = rest[0] & 0x3F
            return type >= aggregationPacket && type <= paci ? .fragmentType : nil
        default:
            return donl && rest.count < 2 ? .tooShort : nil
        }
    }

    /// Calls `body` with the header of each NAL unit a valid payload carries or starts.
    public static func forEachNALUnit(_ payload: UnsafeRawBufferPointer, decodingOrderNumbers donl: Bool,
                                      _ body: (HEVCNALHeader) -> Void) {
        guard payload.count >= 2 else { return }
        var header = HEVCNALHeader(payload)
        var rest = payload.view(2..<payload.count)
        if header.type == paci {
            guard let unwrapped = unwrapPACI(header, rest: rest) else { return }
            (header, rest) = unwrapped
        }
        switch header.type {
        case aggregationPacket:
            var units = H265AggregationUnits(rest, decodingOrderNumbers: donl)
            while let unit = units.next() { body(HEVCNALHeader(unit.nal)) }
        case fragmentationUnit:
            if rest.count > 0, rest[0] & 0x80 != 0 { body(header.with(type: rest[0] & 0x3F)) }
        default:
            body(header)
        }
    }

    /// The first NAL unit a valid payload (PACI unwrapped, without DONL) starts, with the bytes after
    /// its header; nil for an FU that is not a first fragment.
    public static func leadingNAL(_ header: HEVCNALHeader, rest: UnsafeRawBufferPointer) -> (header: HEVCNALHeader, body: UnsafeRawBufferPointer)? {
        switch header.type {
        case aggregationPacket:
            var units = H265AggregationUnits(rest, decodingOrderNumbers: false)
            return units.next().map { (HEVCNALHeader($0.nal), $0.nal.view(2..<$0.nal.count)) }
        case fragmentationUnit:
            guard rest[0] & 0x80 != 0 else { return nil }
            return (header.with(type: rest[0] & 0x3F), rest.view(1..<rest.count))
        default:
            return (header, rest)
        }
    }
}

/// The units of an aggregation packet (RFC 7798 §4.4.2), after its payload header: each a 16-bit
/// size and a NAL unit, the first behind a DONL and the rest each behind a DOND when decoding order
/// numbers are in use. A unit that runs past the packet, or is too short for its header, ends the
/// walk with `overran` set.
public struct H265AggregationUnits {
    public struct Unit {
        /// The DON: DONL for the first unit, the previous one's plus DOND + 1 after it (§4.4.2).
        public var decodingOrderNumber: UInt16
        public var nal: UnsafeRawBufferPointer
    }

    private let bytes: UnsafeRawBufferPointer
    private let donl: Bool
    private var offset = 0
    private var don: UInt16 = 0
    private var first = true
    public private(set) var overran = false

    public init(_ bytes: UnsafeRawBufferPointer, decodingOrderNumbers: Bool) {
        self.bytes = bytes
        donl = decodingOrderNumbers
    }

    public mutating func next() -> Unit? {
        guard !overran, offset < bytes.count else { return nil }
        if donl {
            if first {
                guard offset + 2 <= bytes.count else { return overrun() }
                don = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
                offset += 2
            } else {
                guard offset + 1 <= bytes.count else { return overrun() }
                don = don &+ UInt16(bytes[offset]) &+ 1
                offset += 1
            }
        }
        first = false
        guard offset + 2 <= bytes.count else { return overrun() }
        let size = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
        offset += 2
        guard size >= 2, offset + size <= bytes.count else { return overrun() }
        let nal = bytes.view(offset..<offset + size)
        offset += size
        return Unit(decodingOrderNumber: don, nal: nal)
    }

    private mutating func overrun() -> Unit? {
        overran = true
        return nil
    }
}
