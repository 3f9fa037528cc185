/// Reads bits most significant first from a borrowed buffer, at any bit offset: the AU headers of
/// RFC 3640 and the LATM StreamMuxConfig of RFC 6416 are bit fields that do not keep to bytes.
/// Every read returns `nil` past the end.
public struct BitReader {
    public let bytes: UnsafeRawBufferPointer
    /// Bits read from the start of `bytes`.
    public private(set) var position: Int

    public init(_ bytes: UnsafeRawBufferPointer, bitOffset: Int = 0) {
        self.bytes = bytes
        position = bitOffset
    }

    public var bitsLeft: Int { bytes.count * 8 - position }

    /// Up to 32 bits as an unsigned number.
    public mutating func read(_ count: Int) -> UInt32? {
        precondition(count >= 0 && count <= 32)
        guard count <= bitsLeft else { return nil }
        var value: UInt64 = 0
        var remaining = count
        while remaining > 0 {
            let byte = bytes[position >> 3]
            let offset = position & 7
            let take = min(8 - offset, remaining)
            let bits = (UInt64(byte) >> UInt64(8 - offset - take)) & ((1 << UInt64(take)) - 1)
            value = value << UInt64(take) | bits
            remaining -= take
            position += take
        }
        return UInt32(value)
    }

    public mutating func readFlag() -> Bool? { read(1).map { $0 == 1 } }

    public mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= bitsLeft else { return false }
        position += count
        return true
    }

    /// On to the next byte boundary.
    public mutating func alignToByte() { position = min((position + 7) & ~7, bytes.count * 8) }

    public var isByteAligned: Bool { position & 7 == 0 }

    /// Appends `count` bits from here to `out` as whole bytes, the last one padded with zero bits.
    public mutating func copyBits(_ count: Int, into out: inout [UInt8]) -> Bool {
        guard count >= 0, count <= bitsLeft else { return false }
        if isByteAligned {
            let start = position >> 3
            out.append(contentsOf: bytes[start..<start + count / 8])
            position += count / 8 * 8
            if count % 8 > 0 { out.append(UInt8(read(count % 8)! << (8 - UInt32(count % 8)))) }
            return true
        }
        var left = count
        while left >= 8 {
            out.append(UInt8(read(8)!))
            left -= 8
        }
        if left > 0 { out.append(UInt8(read(left)! << UInt32(8 - left))) }
        return true
    }
}
