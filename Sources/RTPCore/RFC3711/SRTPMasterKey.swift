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

    /// `SUITE:BASE64`, or a bare BASE64 key of the default suite (`--srtp-key`).
    public init(option text: String, origin: String) throws(Invalid) {
        var suite = SRTPSuite.default
        var encoded = Substring(text)
        if let colon = text.firstIndex(of: ":") {
            let name = text[..<colon]
            guard let named = SRTPSuite(name: name) else {
                throw Invalid(description: "\(origin): unknown SRTP suite '\(name)' (known: \(SRTPSuite.names))")
            }
            suite = named
            encoded = text[text.index(after: colon)...]
        }
        guard let bytes = Base64.decode(encoded), !bytes.isEmpty else {
            let alphabet = encoded.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+/-_=".contains($0)) }
            throw Invalid(description: "\(origin): " + (alphabet && !encoded.isEmpty
                ? "the key is cut short: \(encoded.count) base64 characters make no whole number of bytes"
                : "the key is not base64"))
        }
        try self.init(suite: suite, keyAndSalt: bytes, origin: origin)
    }

    public var description: String {
        "\(suite.rawValue) key from \(origin)" + (mki.map { " (MKI of \($0.count) bytes)" } ?? "")
    }
}
