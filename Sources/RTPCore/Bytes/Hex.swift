/// Hexadecimal digits, as SDP configs, keying material, percent-encoding and Digest write them.
public enum Hex {
    /// A digit's value, either case; nil for any other byte.
    public static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Bytes from a hex string (`config=` values, key logs); nil on an odd length or a non-hex digit.
public func hexBytes(_ hex: String) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(digits.count / 2)
    var i = 0
    while i < digits.count {
        guard let high = Hex.value(digits[i]), let low = Hex.value(digits[i + 1]) else { return nil }
        out.append(high << 4 | low)
        i += 2
    }
    return out
}

/// An SSRC (or another 32-bit value) as the report writes it: 0x and eight lowercase digits.
public func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
}

extension Array where Element == UInt8 {
    /// Lowercase hexadecimal, as Digest writes hashes.
    public var lowercaseHex: String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }, as: UTF8.self)
    }
}
