/// Base64 (RFC 4648 §4) as sprop-parameter-sets uses it. Missing padding is tolerated, as cameras omit it.
public enum Base64 {
    /// With padding, as Basic credentials (RFC 7617) need.
    public static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        for i in stride(from: 0, to: bytes.count, by: 3) {
            let n = min(3, bytes.count - i)
            let v = (0..<3).reduce(UInt32(0)) { $0 << 8 | UInt32($1 < n ? bytes[i + $1] : 0) }
            for j in 0..<4 { out.append(j <= n ? alphabet[Int(v >> (18 - 6 * UInt32(j)) & 63)] : UInt8(ascii: "=")) }
        }
        return String(decoding: out, as: UTF8.self)
    }

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
