/// The SRTP crypto suites rtprecv decrypts, by their SDES names: RFC 4568 §6.2 (AES_CM_128), RFC 6188 §7.1
/// (AES_256_CM) and RFC 7714 §14.2 (AEAD_AES_GCM). DTLS-SRTP's profile names (RFC 5764 §4.1.2, RFC 7714 §14.2)
/// are taken as aliases.
public enum SRTPSuite: String, CaseIterable, Sendable {
    case aes128CMHMACSHA1_80 = "AES_CM_128_HMAC_SHA1_80"
    case aes128CMHMACSHA1_32 = "AES_CM_128_HMAC_SHA1_32"
    case aes256CMHMACSHA1_80 = "AES_256_CM_HMAC_SHA1_80"
    case aes256CMHMACSHA1_32 = "AES_256_CM_HMAC_SHA1_32"
    case aeadAES128GCM = "AEAD_AES_128_GCM"
    case aeadAES256GCM = "AEAD_AES_256_GCM"

    /// The suite a bare key is taken as: the one every SDES endpoint offers.
    public static let `default` = SRTPSuite.aes128CMHMACSHA1_80

    /// A suite's SDES name or DTLS-SRTP profile name, in any case.
    public init?(name: some StringProtocol) {
        let upper = name.uppercased()
        if let suite = SRTPSuite(rawValue: upper) {
            self = suite
            return
        }
        switch upper {
        case "SRTP_AES128_CM_SHA1_80", "SRTP_AES128_CM_HMAC_SHA1_80": self = .aes128CMHMACSHA1_80
        case "SRTP_AES128_CM_SHA1_32", "SRTP_AES128_CM_HMAC_SHA1_32": self = .aes128CMHMACSHA1_32
        case "SRTP_AEAD_AES_128_GCM": self = .aeadAES128GCM
        case "SRTP_AEAD_AES_256_GCM": self = .aeadAES256GCM
        default: return nil
        }
    }

    /// Master key bytes.
    public var keyLength: Int {
        switch self {
        case .aes128CMHMACSHA1_80, .aes128CMHMACSHA1_32, .aeadAES128GCM: 16
        case .aes256CMHMACSHA1_80, .aes256CMHMACSHA1_32, .aeadAES256GCM: 32
        }
    }

    /// Master salt bytes: 112 bits for AES-CM (RFC 3711 §8.2), 96 for GCM (RFC 7714 §11).
    public var saltLength: Int { isAEAD ? 12 : 14 }

    public var isAEAD: Bool { self == .aeadAES128GCM || self == .aeadAES256GCM }

    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// Why `name` names no suite, echoing it only when it is shaped like a suite's name (capitals,
    /// digits and underscores): anything else may be key material pasted in the wrong place.
    public static func unknown(_ name: some StringProtocol) -> String {
        let suiteShaped = !name.isEmpty && name.count <= 32 && name.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") }
        return (suiteShaped ? "unknown SRTP suite '\(name)'" : "what comes before ':' is no SRTP suite (not shown: it may be key material)")
            + " (known: \(names))"
    }
}
