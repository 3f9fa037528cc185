/// Base64 (RFC 4648 §4) as sprop-parameter-sets uses it. Missing padding is tolerated, as cameras omit it.
public enum Base64 {
    public static func decode(_ text: Substring) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        var sawPadding = false
        for c in text.utf8 {
            let value: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(c - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(c - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): value = 63
            case UInt8(ascii: "="):
                sawPadding = true
                continue
            default:
                return nil
            }
            if sawPadding { return nil }
            accumulator = accumulator << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // One leftover character (6 bits) cannot encode a byte.
        return bits >= 6 ? nil : out
    }
}
