/// An RTMP URL as it may be shown: `rtmp://[user[:password]@]host[:port]/app[/more]/key[?query]`, with
/// the stream key (the last path component after the application), any password and any query masked.
public enum RTMPURL {
    public static let schemes = ["rtmp", "rtmps", "rtmpt", "rtmpts", "rtmpe", "rtmpte"]

    /// Nil when `url` is not rtmp://host/app/key (or another RTMP scheme).
    public static func validationError(_ url: String) -> String? {
        guard let separator = url.firstRange(of: "://"), schemes.contains(url[..<separator.lowerBound].lowercased()) else {
            return "'--rtmp \(masked(url))' is not an RTMP URL: expected rtmp://server[:port]/app/key (or rtmps://, rtmpt://)"
        }
        let path = url[separator.upperBound...].split(separator: "/", omittingEmptySubsequences: true)
        guard path.count >= 2 else {
            return "'--rtmp \(masked(url))' names no application: expected rtmp://server[:port]/app/key"
        }
        return nil
    }

    public static func masked(_ url: String) -> String {
        guard let separator = url.firstRange(of: "://") else { return url.count > 8 ? "****" : url }
        var rest = url[separator.upperBound...]
        var query = ""
        if let mark = rest.firstIndex(of: "?") {
            query = "?****"
            rest = rest[..<mark]
        }
        var parts = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if let at = parts[0].lastIndex(of: "@") {
            let user = parts[0][..<at], host = parts[0][parts[0].index(after: at)...]
            parts[0] = (user.split(separator: ":").first.map(String.init) ?? "") + (user.contains(":") ? ":****" : "") + "@" + host
        }
        // host / app / key: the key is what follows the application.
        if parts.count >= 3, !parts[parts.count - 1].isEmpty { parts[parts.count - 1] = "****" }
        return url[..<separator.upperBound] + parts.joined(separator: "/") + query
    }

    /// `text` (a library's message) with the URL, its stream key and its password masked wherever they appear.
    public static func masking(_ text: String, of url: String) -> String {
        var result = text.replacing(url, with: masked(url))
        let secrets = secretParts(of: url)
        for secret in secrets where secret.count >= 3 { result = result.replacing(secret, with: "****") }
        return result
    }

    /// The stream key, the password and the query: what `masked` hides.
    public static func secretParts(of url: String) -> [String] {
        guard let separator = url.firstRange(of: "://") else { return [url] }
        var rest = url[separator.upperBound...]
        var secrets: [String] = []
        if let mark = rest.firstIndex(of: "?") {
            secrets.append(String(rest[rest.index(after: mark)...]))
            rest = rest[..<mark]
        }
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        if let at = parts[0].lastIndex(of: "@"), let colon = parts[0][..<at].firstIndex(of: ":") {
            secrets.append(String(parts[0][parts[0].index(after: colon)..<at]))
        }
        if parts.count >= 3, !parts[parts.count - 1].isEmpty { secrets.append(String(parts[parts.count - 1])) }
        return secrets
    }
}
