/// Credentials against a server's challenges (RFC 2326 §16.6; RFC 7235): Digest preferred over
/// Basic, SHA-256 over MD5. A second 401 for the same nonce means the credentials are wrong;
/// one with `stale=true` only that the nonce expired.
public struct RTSPAuthorization: Sendable {
    public enum Failure: Error, CustomStringConvertible, Sendable {
        case noCredentials(realm: String?)
        case rejected(user: String)
        case unsupported(String)

        public var description: String {
            switch self {
            case .noCredentials(let realm):
                "the server asks for a login\(realm.map { " (realm \"\($0)\")" } ?? ""): give it in the URL "
                    + "(rtsp://user:password@host/…), with --user and --password, or in RTSP_PASSWORD"
            case .rejected(let user): "the server rejected the credentials of user '\(user)' (401 again for the same challenge)"
            case .unsupported(let why): why
            }
        }
    }

    public let user: String?
    public let password: String?
    private var digest: DigestAuthentication?
    private var basic = false
    private var lastNonce: String?
    private var cnonceSeed: UInt64

    public init(user: String?, password: String?, seed: UInt64) {
        self.user = user
        self.password = password
        cnonceSeed = seed
    }

    /// A 401's WWW-Authenticate headers: be ready to answer them, or fail.
    public mutating func challenged(by headers: [String]) throws(Failure) {
        let challenges = headers.flatMap { Challenge.parse($0) }
        guard let user, let password else {
            throw .noCredentials(realm: challenges.first?.parameter("realm"))
        }
        _ = password
        let digests = challenges.filter { $0.scheme.lowercased() == "digest" }
        let preferred = digests.first { $0.parameter("algorithm")?.uppercased().hasPrefix("SHA-256") == true } ?? digests.first
        if let preferred {
            let next: DigestAuthentication
            do { next = try DigestAuthentication(challenge: preferred) } catch { throw .unsupported(error.description) }
            if next.nonce == lastNonce && !next.stale { throw .rejected(user: user) }
            lastNonce = next.nonce
            digest = next
            basic = false
        } else if challenges.contains(where: { $0.scheme.lowercased() == "basic" }) {
            if basic { throw .rejected(user: user) }
            basic = true
        } else {
            throw .unsupported("the server asks for authentication by \(challenges.map(\.scheme).joined(separator: ", ")), "
                               + "which rtprecv does not know (it does Basic and Digest)")
        }
    }

    /// The Authorization header for a request, once challenged.
    public mutating func header(method: String, uri: String) -> String? {
        guard let user, let password else { return nil }
        if basic { return BasicCredentials.authorization(user: user, password: password) }
        guard digest != nil else { return nil }
        cnonceSeed = cnonceSeed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return digest!.authorization(user: user, password: password, method: method, uri: uri,
                                     cnonce: String(cnonceSeed >> 16, radix: 16))
    }
}
