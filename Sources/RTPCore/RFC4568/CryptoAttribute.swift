/// An SDP `a=crypto` attribute (RFC 4568 §9.1, SDES): the master keys a sender protects a media line with.
///
///     a=crypto:<tag> <crypto-suite> <key-params> [<session-params>]
///     key-params: inline:<base64 key||salt>[|<lifetime>][|<MKI value>:<MKI length>], several joined by ";"
///
/// Lifetimes are not enforced: a receiver that sees packets past a lifetime has been given them anyway.
public struct CryptoAttribute: Sendable {
    public var tag: Int
    public var keys: [SRTPMasterKey]

    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    /// `value` is what follows `a=crypto:`. Messages name `line`, never the key.
    public init(_ value: Substring, line: Int) throws(Invalid) {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 3, let tag = Int(fields[0]) else {
            throw Invalid(description: "line \(line): malformed a=crypto (RFC 4568: tag, suite, key parameters)")
        }
        guard let suite = SRTPSuite(name: fields[1]) else {
            throw Invalid(description: "line \(line): a=crypto suite '\(fields[1])' is not one rtprecv decrypts (\(SRTPSuite.names))")
        }
        self.tag = tag
        keys = []
        for params in fields[2].split(separator: ";") {
            guard params.hasPrefix("inline:") else {
                throw Invalid(description: "line \(line): a=crypto key method is not inline:")
            }
            let parts = params.dropFirst("inline:".count).split(separator: "|", omittingEmptySubsequences: false)
            guard let bytes = Base64.decode(parts[0]) else {
                throw Invalid(description: "line \(line): a=crypto key is not base64")
            }
            var mki: [UInt8]?
            // The lifetime has no colon; an MKI is value:length, its value written in decimal.
            if let field = parts.dropFirst().first(where: { $0.contains(":") }) {
                let pair = field.split(separator: ":")
                guard pair.count == 2, let value = UInt64(pair[0]), let length = Int(pair[1]), (1...8).contains(length),
                      length == 8 || value >> (8 * UInt64(length)) == 0 else {
                    throw Invalid(description: "line \(line): a=crypto MKI '\(field)' is not value:length (1 to 8 bytes)")
                }
                mki = (0..<length).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
            }
            do {
                keys.append(try SRTPMasterKey(suite: suite, keyAndSalt: bytes, mki: mki, origin: "SDP line \(line)"))
            } catch {
                throw Invalid(description: error.description)
            }
        }
    }
}
