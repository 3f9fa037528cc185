/// Digest access authentication (RFC 7616, and RFC 2617 before it): the response to a challenge,
/// with MD5, MD5-sess and SHA-256, with `qop=auth` or none (RFC 2069, which old cameras use).
///
///     HA1 = H(user ":" realm ":" password)         (-sess: H(HA1 ":" nonce ":" cnonce))
///     HA2 = H(method ":" uri)
///     response = H(HA1 ":" nonce ":" nc ":" cnonce ":" qop ":" HA2)   or, without qop,
///                H(HA1 ":" nonce ":" HA2)
public struct DigestAuthentication: Sendable {
    public enum Algorithm: String, Sendable {
        case md5 = "MD5", md5Session = "MD5-sess", sha256 = "SHA-256", sha256Session = "SHA-256-sess"

        func hash(_ text: String) -> String {
            let bytes = Array(text.utf8)
            switch self {
            case .md5, .md5Session: return MD5.hash(bytes).lowercaseHex
            case .sha256, .sha256Session: return SHA256.hash(bytes).lowercaseHex
            }
        }

        var isSession: Bool { self == .md5Session || self == .sha256Session }
    }

    public enum Unsupported: Error, CustomStringConvertible, Sendable {
        case algorithm(String)
        case qop(String)
        case missingNonce

        public var description: String {
            switch self {
            case .algorithm(let a): "the server asks for Digest algorithm \(a), which rtprecv does not know"
            case .qop(let q): "the server offers only qop=\(q); rtprecv does qop=auth or none"
            case .missingNonce: "the server's Digest challenge has no nonce"
            }
        }
    }

    public let realm: String
    public let nonce: String
    public let opaque: String?
    public let algorithm: Algorithm
    /// qop=auth when the server offers it; nil for the RFC 2069 form.
    public let qop: String?
    /// The server said the nonce was stale: retry with the new one, not an error in the credentials.
    public let stale: Bool
    private var nonceCount = 0

    public init(challenge: Challenge) throws(Unsupported) {
        guard let nonce = challenge.parameter("nonce") else { throw .missingNonce }
        let name = challenge.parameter("algorithm") ?? "MD5"
        guard let algorithm = Algorithm.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
            throw .algorithm(name)
        }
        var qop: String?
        if let offered = challenge.parameter("qop") {
            let options = offered.split(separator: ",").map { $0.trimmingWhitespace().lowercased() }
            guard options.contains("auth") else { throw .qop(offered) }
            qop = "auth"
        }
        self.realm = challenge.parameter("realm") ?? ""
        self.nonce = nonce
        self.opaque = challenge.parameter("opaque")
        self.algorithm = algorithm
        self.qop = qop
        self.stale = challenge.parameter("stale")?.lowercased() == "true"
    }

    /// The Authorization header value for one request; `cnonce` is the client's random nonce.
    public mutating func authorization(user: String, password: String, method: String, uri: String, cnonce: String) -> String {
        nonceCount += 1
        let hex = String(nonceCount, radix: 16)
        let count = String(repeating: "0", count: max(0, 8 - hex.count)) + hex
        var ha1 = algorithm.hash("\(user):\(realm):\(password)")
        if algorithm.isSession { ha1 = algorithm.hash("\(ha1):\(nonce):\(cnonce)") }
        let ha2 = algorithm.hash("\(method):\(uri)")
        let response = qop.map { algorithm.hash("\(ha1):\(nonce):\(count):\(cnonce):\($0):\(ha2)") }
            ?? algorithm.hash("\(ha1):\(nonce):\(ha2)")
        var fields = ["username=\"\(user)\"", "realm=\"\(realm)\"", "nonce=\"\(nonce)\"", "uri=\"\(uri)\"",
                      "response=\"\(response)\""]
        if algorithm != .md5 { fields.append("algorithm=\(algorithm.rawValue)") }
        if let opaque { fields.append("opaque=\"\(opaque)\"") }
        if let qop { fields += ["qop=\(qop)", "nc=\(count)", "cnonce=\"\(cnonce)\""] }
        return "Digest " + fields.joined(separator: ", ")
    }
}

extension DigestAuthentication.Algorithm: CaseIterable {}
