/// Reads the RBSP bits of a NAL unit (H.264 §7.3, §9.1): removes emulation-prevention bytes
/// (00 00 03) on the fly and decodes Exp-Golomb codes. Every read fails with `nil` past the end.
public struct RBSPBitReader {
    private let bytes: UnsafeRawBufferPointer
    private var index: Int
    private var zeros = 0
    private var current: UInt8 = 0
    private var bitsLeft = 0

    /// `bytes` is the NAL unit payload after its one-byte header.
    public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        index = 0
    }

    private mutating func loadByte() -> Bool {
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            current = byte
            bitsLeft = 8
            return true
        }
        return false
    }

    public mutating func readBit() -> UInt32? {
        if bitsLeft == 0 { guard loadByte() else { return nil } }
        bitsLeft -= 1
        return UInt32((current >> UInt8(bitsLeft)) & 1)
    }

    /// Up to a byte's worth of bits at a time.
    public mutating func readBits(_ count: Int) -> UInt32? {
        precondition(count <= 32)
        var value: UInt32 = 0
        var needed = count
        while needed > 0 {
            if bitsLeft == 0 { guard loadByte() else { return nil } }
            let take = min(needed, bitsLeft)
            bitsLeft -= take
            let bits = UInt32(current >> UInt8(bitsLeft)) & (1 << UInt32(take) &- 1)
            value = value << UInt32(take) | bits
            needed -= take
        }
        return value
    }

    public mutating func readFlag() -> Bool? { readBit().map { $0 == 1 } }

    /// ue(v), §9.1. Codes longer than 32 bits are treated as corrupt. The leading zeros are
    /// counted a byte at a time.
    public mutating func readUE() -> UInt32? {
        var leadingZeros = 0
        while true {
            if bitsLeft == 0 { guard loadByte() else { return nil } }
            // The bits not read yet, at the top of a byte.
            let unread = current << UInt8(8 - bitsLeft)
            if unread == 0 {
                leadingZeros += bitsLeft
                bitsLeft = 0
                if leadingZeros > 31 { return nil }
                continue
            }
            let zeros = unread.leadingZeroBitCount
            leadingZeros += zeros
            // The zeros and the one that ends them.
            bitsLeft -= zeros + 1
            break
        }
        if leadingZeros > 31 { return nil }
        guard let suffix = readBits(leadingZeros) else { return nil }
        return UInt32((UInt64(1) << leadingZeros) - 1 + UInt64(suffix))
    }

    /// se(v), §9.1.1.
    public mutating func readSE() -> Int32? {
        guard let k = readUE() else { return nil }
        let magnitude = Int32(truncatingIfNeeded: (UInt64(k) + 1) / 2)
        return k & 1 == 1 ? magnitude : -magnitude
    }

    /// Whole bytes are skipped a byte at a time (emulation prevention still taken out).
    public mutating func skipBits(_ count: Int) -> Bool {
        guard count >= 0 else { return false }
        var needed = count
        let fromCurrent = min(needed, bitsLeft)
        bitsLeft -= fromCurrent
        needed -= fromCurrent
        while needed >= 8 {
            guard loadByte() else { return false }
            bitsLeft = 0
            needed -= 8
        }
        if needed > 0 {
            guard loadByte() else { return false }
            bitsLeft -= needed
        }
        return true
    }

    /// Reads a whole byte of the RBSP (used for SEI headers, which are byte aligned).
    public mutating func readByte() -> UInt8? { readBits(8).map { UInt8($0) } }
}
