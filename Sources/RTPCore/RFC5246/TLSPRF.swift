/// TLS 1.2's pseudorandom function (RFC 5246 §5), with the hash its cipher suite names: SHA-256 for
/// every suite but those named _SHA384 (RFC 5289, RFC 5288), which use SHA-384.
///
///     PRF(secret, label, seed) = P_hash(secret, label + seed)
///     P_hash(secret, seed) = HMAC_hash(secret, A(1) + seed) + HMAC_hash(secret, A(2) + seed) + ...
///     A(0) = seed, A(i) = HMAC_hash(secret, A(i-1))
public enum TLSPRF {
    /// `count` bytes (at most 4096, which no exporter asks more of) of PRF(secret, label, seed).
    public static func bytes(_ hash: HMAC.Hash, secret: [UInt8], label: String, seed: [UInt8], count: Int) -> [UInt8] {
        let count = min(max(count, 0), 4096)
        let labelled = Array(label.utf8) + seed
        var output: [UInt8] = []
        var a = labelled
        while output.count < count {
            a = HMAC.mac(hash, key: secret, a)
            output += HMAC.mac(hash, key: secret, a + labelled)
        }
        return Array(output.prefix(count))
    }

    /// The PRF's hash for a TLS 1.2 cipher suite: SHA-384 for the suites named _SHA384 (RFC 5288,
    /// RFC 5289, RFC 5487, RFC 5489), else SHA-256.
    public static func hash(forCipherSuite suite: UInt16) -> HMAC.Hash {
        sha384Suites.contains(suite) ? .sha384 : .sha256
    }

    private static let sha384Suites: Set<UInt16> = [
        0x009D, 0x009F, 0x00A1, 0x00A3, 0x00A5, 0x00A7, 0x00A9, 0x00AB, 0x00AD, 0x00AF, 0x00B1, 0x00B3, 0x00B5, 0x00B7, 0x00B9,
        0xC024, 0xC026, 0xC028, 0xC02A, 0xC02C, 0xC02E, 0xC030, 0xC032, 0xC038, 0xC03B,
    ]
}
