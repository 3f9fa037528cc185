/// One SRTP master key and salt (RFC 3711 §3.2.1) for a suite, and its MKI when packets carry one
/// (§3.1). Its description never shows the key.
public struct SRTPMasterKey: Sendable, CustomStringConvertible {
    public let suite: SRTPSuite
    /// The master key followed by the master salt, as SDES's `inline:` gives them.
    public let keyAndSalt: [UInt8]
    /// The Master Key Identifier every packet protected with this key carries, if any.
    public let mki: [UInt8]?
    /// Where the key came from, for messages: "--srtp-key 1", "SDP line 12".
    public let origin: String

    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    public init(suite: SRTPSuite, keyAndSalt: [UInt8], mki: [UInt8]? = nil, origin: String) throws(Invalid) {
        let expected = suite.keyLength + suite.saltLength
        guard keyAndSalt.count == expected else {
            throw Invalid(description: "\(origin): \(suite.rawValue) takes \(expected) bytes of key and salt "
                          + "(\(suite.keyLength) + \(suite.saltLength)); this key has \(keyAndSalt.count)")
        }
        self.suite = suite
        self.keyAndSalt = keyAndSalt
        self.mki = mki
        self.origin = origin
    }

    /// `--srtp-key`: `SUITE:BASE64`, a bare BASE64 key of the default suite, or an `a=crypto` value
    /// pasted whole (`[TAG] SUITE inline:BASE64|2^31|1:1`) or its key parameters alone
    /// (`inline:BASE64|…`, `BASE64|2^31|1:1`, of the default suite). Messages never show the key.
    public init(option text: String, origin: String) throws(Invalid) {
        let fields = text.split(separator: " ", omittingEmptySubsequences: true)
        if fields.count >= 2 {
            // An a=crypto value, its tag left out or not.
            let named = Int(fields[0]) != nil ? fields.dropFirst() : fields[...]
            guard named.count >= 2, let suite = SRTPSuite(name: named.first!) else {
                throw Invalid(description: "\(origin): not SUITE:BASE64 nor an a=crypto value (tag, suite, inline:key)")
            }
            self = try Self(keyParameters: named.dropFirst().first!, suite: suite, origin: origin)
            return
        }
        if text.hasPrefix("inline:") || text.contains("|") {
            self = try Self(keyParameters: Substring(text), suite: .default, origin: origin)
            return
        }
        var suite = SRTPSuite.default
        var encoded = Substring(text)
        if let colon = text.firstIndex(of: ":") {
            guard let named = SRTPSuite(name: text[..<colon]) else { throw Invalid(description: "\(origin): \(SRTPSuite.unknown(text[..<colon]))") }
            suite = named
            encoded = text[text.index(after: colon)...]
        }
        try self.init(suite: suite, keyAndSalt: Self.decode(encoded, origin: origin), origin: origin)
    }

    /// SDES key parameters (RFC 4568 §9.2): `inline:<base64 key||salt>[|<lifetime>][|<MKI>:<length>]`
    /// (`inline:` may be left out). Lifetimes are not enforced: packets past one came anyway.
    public init(keyParameters: Substring, suite: SRTPSuite, origin: String) throws(Invalid) {
        let parts = keyParameters.dropFirst(keyParameters.hasPrefix("inline:") ? "inline:".count : 0)
            .split(separator: "|", omittingEmptySubsequences: false)
        var mki: [UInt8]?
        // The lifetime has no colon; an MKI is value:length, its value written in decimal.
        if let field = parts.dropFirst().first(where: { $0.contains(":") }) {
            let pair = field.split(separator: ":")
            guard pair.count == 2, let value = UInt64(pair[0]), let length = Int(pair[1]), (1...8).contains(length),
                  length == 8 || value >> (8 * UInt64(length)) == 0 else {
                throw Invalid(description: "\(origin): MKI '\(field)' is not value:length (1 to 8 bytes)")
            }
            mki = (0..<length).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
        }
        try self.init(suite: suite, keyAndSalt: Self.decode(parts[0], origin: origin), mki: mki, origin: origin)
    }

    /// The key and salt of base64 `encoded`; the error says what is wrong, never what it is.
    private static func decode(_ encoded: Substring, origin: String) throws(Invalid) -> [UInt8] {
        guard let bytes = Base64.decode(encoded), !bytes.isEmpty else {
            let alphabet = encoded.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+/-_=".contains($0)) }
            throw Invalid(description: "\(origin): " + (alphabet && !encoded.isEmpty
                ? "the key is cut short: \(encoded.count) base64 characters make no whole number of bytes"
                : "the key is not base64"))
        }
        return bytes
    }

    public var description: String {
        "\(suite.rawValue) key from \(origin)" + (mki.map { " (MKI of \($0.count) bytes)" } ?? "")
    }
}
