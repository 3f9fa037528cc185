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
            do {
                keys.append(try SRTPMasterKey(keyParameters: params, suite: suite, origin: "SDP line \(line)"))
            } catch {
                throw Invalid(description: error.description)
            }
        }
    }
}
