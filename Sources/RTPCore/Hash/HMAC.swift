/// HMAC (RFC 2104) over SHA-256 or SHA-384, for TLS 1.2's PRF (RFC 5246 §5).
public enum HMAC {
    public enum Hash: Sendable {
        case sha256, sha384

        func digest(_ message: [UInt8]) -> [UInt8] {
            switch self {
            case .sha256: SHA256.hash(message)
            case .sha384: SHA384.hash(message)
            }
        }

        var blockBytes: Int { self == .sha256 ? 64 : 128 }
    }

    /// The HMAC of `message` under `key`.
    public static func mac(_ hash: Hash, key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var k = key.count > hash.blockBytes ? hash.digest(key) : key
        k += [UInt8](repeating: 0, count: hash.blockBytes - k.count)
        let inner = hash.digest(k.map { $0 ^ 0x36 } + message)
        return hash.digest(k.map { $0 ^ 0x5c } + inner)
    }
}
