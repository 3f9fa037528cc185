/// Which server certificates a TLS client accepts: one chained to a trusted authority (the
/// system's, or those of `caFile`) that names the host, or, pinned, the one certificate whose
/// SHA-256 fingerprint is `fingerprint` (a camera's own, self-signed), whatever it names.
public struct TLSTrust: Sendable, Equatable {
    /// PEM certificates of authorities to trust instead of the system's.
    public var caFile: String?
    /// The SHA-256 of the certificate's DER bytes.
    public var fingerprint: [UInt8]?

    public init(caFile: String? = nil, fingerprint: [UInt8]? = nil) {
        self.caFile = caFile
        self.fingerprint = fingerprint
    }

    /// A fingerprint as `openssl x509 -fingerprint -sha256` prints it (pairs of hex digits between
    /// colons), or as 64 hex digits; nil where it is neither.
    public static func fingerprint(parsing text: String) -> [UInt8]? {
        let digits = text.filter { $0 != ":" }
        guard digits.count == 64, digits.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        var at = digits.startIndex
        while at < digits.endIndex {
            let next = digits.index(at, offsetBy: 2)
            guard let byte = UInt8(digits[at..<next], radix: 16) else { return nil }
            bytes.append(byte)
            at = next
        }
        return bytes
    }

    /// `bytes` as that command prints them: "AB:CD:…".
    public static func said(fingerprint bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: ":")
    }
}

/// A server whose certificate the trust did not accept: why, what the certificate says it is,
/// and its fingerprint, with which a user who knows it for the server's own can pin it.
public struct UntrustedCertificate: Error, CustomStringConvertible {
    public var reason: String
    public var subject: String
    public var fingerprint: [UInt8]

    public var description: String {
        "the server's certificate (\(subject)) is not trusted: \(reason)"
    }
}

/// A TLS connection that could not be set up, for a reason other than the certificate.
public struct TLSError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
