/// An AV1 OBU header (AV1 specification §5.3): its type, the extension with the temporal and
/// spatial layer, and whether an obu_size follows.
///
///     obu_forbidden_bit (1) | obu_type (4) | obu_extension_flag (1) | obu_has_size_field (1) | reserved (1)
///     extension: temporal_id (3) | spatial_id (2) | reserved (3)
public struct OBUHeader: Sendable, Equatable {
    public var type: UInt8
    public var hasExtension: Bool
    public var hasSizeField: Bool
    public var temporalID = 0
    public var spatialID = 0
    /// obu_reserved_1bit, or the extension's reserved bits, set: no encoder sets them.
    public var setsReservedBits: Bool

    /// Bytes the header takes: 1, or 2 with the extension.
    public var size: Int { hasExtension ? 2 : 1 }

    public static let sequenceHeader: UInt8 = 1
    public static let temporalDelimiter: UInt8 = 2
    public static let frameHeader: UInt8 = 3
    public static let tileGroup: UInt8 = 4
    public static let metadata: UInt8 = 5
    public static let frame: UInt8 = 6
    public static let redundantFrameHeader: UInt8 = 7
    public static let tileList: UInt8 = 8
    public static let padding: UInt8 = 15

    /// The header at the start of `obu`, or nil when it is cut short or sets the forbidden bit.
    public init?(_ obu: UnsafeRawBufferPointer) {
        guard let first = obu.first, first & 0x80 == 0 else { return nil }
        type = first >> 3 & 0x0f
        hasExtension = first & 0x04 != 0
        hasSizeField = first & 0x02 != 0
        setsReservedBits = first & 0x01 != 0
        if hasExtension {
            guard obu.count >= 2 else { return nil }
            setsReservedBits = setsReservedBits || obu[1] & 0x07 != 0
            temporalID = Int(obu[1] >> 5)  // bounded: three bits
            spatialID = Int(obu[1] >> 3 & 3)  // bounded: two bits
        }
    }

    /// The types the specification defines; the rest are reserved.
    public var isDefined: Bool { (1...8).contains(type) || type == Self.padding }

    /// The payload of `obu`, which begins with this header: to its obu_size when it has one, else
    /// to its end; nil when the size runs past it.
    public func payload(of obu: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let rest = obu.view(size..<obu.count)
        guard hasSizeField else { return rest }
        guard let length = LEB128.read(rest), length.value <= rest.count - length.size else { return nil }
        return rest.view(length.size..<length.size + length.value)
    }
}

/// LEB128 (AV1 specification §4.10.5): up to eight bytes, seven bits each, least significant first.
public enum LEB128 {
    /// The value at the start of `bytes` and the bytes it took, or nil when it runs past them or
    /// past eight bytes, or exceeds 2^32 - 1 (which the specification requires it not to).
    public static func read(_ bytes: UnsafeRawBufferPointer) -> (value: Int, size: Int)? {
        var value = 0
        for i in 0..<min(8, bytes.count) {
            // bounded: seven bits shifted at most 49, within Int
            value |= Int(bytes[i] & 0x7f) << (7 * i)
            if bytes[i] & 0x80 == 0 { return value <= 0xFFFF_FFFF ? (value, i + 1) : nil }
        }
        return nil
    }

    /// The most bytes a value takes.
    public static let maxBytes = 8

    /// Appends `value` in the fewest bytes.
    public static func append(_ value: Int, to bytes: inout [UInt8]) {
        var v = value
        repeat {
            let low = UInt8(truncatingIfNeeded: v & 0x7f)
            v >>= 7
            bytes.append(v == 0 ? low : low | 0x80)
        } while v != 0
    }
}

/// The OBUs of a temporal unit in the low-overhead bitstream format (AV1 specification §5, every
/// OBU with its obu_size), one after another.
public struct OBUs: Sequence, IteratorProtocol {
    private var rest: UnsafeRawBufferPointer

    public init(_ temporalUnit: UnsafeRawBufferPointer) { rest = temporalUnit }

    /// The next OBU's header and payload; nil at the end or at one that cannot be read.
    public mutating func next() -> (header: OBUHeader, payload: UnsafeRawBufferPointer)? {
        guard let header = OBUHeader(rest), header.hasSizeField,
              let size = LEB128.read(rest.view(header.size..<rest.count)),
              size.value <= rest.count - header.size - size.size else { return nil }
        let start = header.size + size.size
        let payload = rest.view(start..<start + size.value)
        rest = rest.view(start + size.value..<rest.count)
        return (header, payload)
    }
}
