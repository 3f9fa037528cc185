/// An `rtsp://` or `rtsps://` URL (RFC 2326 §3.2): credentials (percent-decoded) kept apart, so
/// that what is sent and printed never carries them.
public struct RTSPURL: Equatable, Sendable, CustomStringConvertible {
    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    public var scheme: String
    public var user: String?
    public var password: String?
    public var host: String
    public var port: UInt16
    /// From the first "/" after the authority, query included; "/" at least.
    public var path: String

    public init(parsing text: String) throws(Invalid) {
        guard let schemeEnd = text.firstRange(of: "://") else {
            throw Invalid(description: "'\(RTSPURL.masked(text))' is not an rtsp:// URL")
        }
        scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "rtsp" || scheme == "rtsps" else {
            throw Invalid(description: "'\(RTSPURL.masked(text))': the scheme must be rtsp or rtsps")
        }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        path = String(rest[authorityEnd...])
        if path.isEmpty { path = "/" } else if path.first == "?" { path = "/" + path }
        if let at = authority.lastIndex(of: "@") {
            let userinfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
            if let colon = userinfo.firstIndex(of: ":") {
                user = RTSPURL.percentDecoded(userinfo[..<colon])
                password = RTSPURL.percentDecoded(userinfo[userinfo.index(after: colon)...])
            } else {
                user = RTSPURL.percentDecoded(userinfo)
            }
        }
        var portText: Substring?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { throw Invalid(description: "'\(RTSPURL.masked(text))': an unclosed [IPv6] host") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.first == ":" { portText = after.dropFirst() }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty else { throw Invalid(description: "'\(RTSPURL.masked(text))' names no host") }
        if let portText {
            guard let p = UInt16(portText), p > 0 else { throw Invalid(description: "'\(RTSPURL.masked(text))': '\(portText)' is not a port") }
            port = p
        } else {
            port = scheme == "rtsps" ? 322 : 554
        }
    }

    /// Scheme, host, port and path with its query: what requests name. Never the credentials.
    public var uri: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(h):\(port)\(path)"
    }

    /// `uri` as it may be shown: query values masked too (some cameras take ?user=…&password=…).
    public var description: String { CredentialMask.maskedWord(uri) }

    /// The URL an `a=control` (RFC 2326 C.1.1) or a relative Content-Base names against this one
    /// as base: absolute as it is, `*` the base itself, a path from "/" on this host, else the
    /// base with "/" and the control after it, as servers mean it.
    public func resolving(_ reference: String) -> RTSPURL {
        let reference = Substring(reference).trimmingWhitespace()
        if reference.isEmpty || reference == "*" { return self }
        if reference.lowercased().hasPrefix("rtsp://") || reference.lowercased().hasPrefix("rtsps://") {
            if var absolute = try? RTSPURL(parsing: String(reference)) {
                absolute.user = absolute.user ?? user
                absolute.password = absolute.password ?? password
                return absolute
            }
        }
        var resolved = self
        if reference.first == "/" {
            resolved.path = String(reference)
        } else if reference.contains("://") == false, let slash = reference.firstIndex(of: "/"),
                  reference[..<slash].contains(".") || reference[..<slash].contains(":") {
            // Content-Base without its scheme: "host[:port]/path".
            if let parsed = try? RTSPURL(parsing: scheme + "://" + reference) {
                resolved.host = parsed.host
                resolved.port = parsed.port
                resolved.path = parsed.path
            }
        } else {
            resolved.path = (path.hasSuffix("/") ? path : path + "/") + reference
        }
        return resolved
    }

    /// `text` with any password or query value in a URL in it replaced by "***".
    public static func masked(_ text: String) -> String { CredentialMask.masked(text) }

    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var i = text.utf8.startIndex
        let utf8 = text.utf8
        while i < utf8.endIndex {
            let c = utf8[i]
            if c == UInt8(ascii: "%"), let a = utf8.index(i, offsetBy: 1, limitedBy: utf8.endIndex), a < utf8.endIndex,
               let b = utf8.index(i, offsetBy: 2, limitedBy: utf8.endIndex), b < utf8.endIndex,
               let high = Hex.value(utf8[a]), let low = Hex.value(utf8[b]) {
                bytes.append(high << 4 | low)
                i = utf8.index(after: b)
            } else {
                bytes.append(c)
                i = utf8.index(after: i)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
