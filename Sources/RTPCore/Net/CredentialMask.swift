/// Credentials as they appear in text that is shown (messages, statistics): a URL's password
/// (`rtsp://admin:***@cam/…`, in any form a user may type it: `rtsp:/admin:pw@…`, a leading space)
/// and its query's values (`?user=***&password=***`, as some cameras take them), and any secret the
/// run was given (a password, a key), wherever it appears.
public enum CredentialMask {
    public static let mask = "***"
    /// Query parameters whose values say nothing secret (Hikvision's, Dahua's, Axis's), shown as they are.
    static let plainQueryKeys: Set<String> = ["channel", "subtype", "stream", "streamtype", "transportmode", "profile", "codec",
                                              "resolution", "fps", "videocodec", "audio", "unicast", "tcp", "camera", "track", "tcp_nodelay"]

    /// `text` with every URL-shaped word's password and query values masked, and each of `secrets`
    /// (of 4 characters or more: shorter ones would mask ordinary words) wherever it appears.
    public static func masked(_ text: String, secrets: [String] = []) -> String {
        var result = text
        for secret in secrets where secret.count >= 4 && result.contains(secret) { result = result.replacing(secret, with: mask) }
        // Most text has no URL: a scan of its bytes, not a search by Character.
        guard result.utf8.contains(where: { $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "?") }) else { return result }
        var out = ""
        var word = ""
        for c in result {
            if c == " " || c == "'" || c == "\"" || c == "\n" || c == "(" || c == ")" || c == "," {
                out += maskedWord(word) + String(c)
                word = ""
            } else {
                word.append(c)
            }
        }
        return out + maskedWord(word)
    }

    /// One word: a URL's userinfo password and query values masked; anything else as it is.
    static func maskedWord(_ word: String) -> String {
        guard let colon = word.firstIndex(of: ":"), word[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+.-".contains($0) }),
              !word[..<colon].isEmpty else { return word }
        // After "scheme:", "scheme:/" or "scheme://".
        var authority = word.index(after: colon)
        while authority < word.endIndex, word[authority] == "/" { authority = word.index(after: authority) }
        let queryStart = word[authority...].firstIndex(of: "?") ?? word.endIndex
        var result = String(word[..<authority])
        let beforeQuery = word[authority..<queryStart]
        if let at = beforeQuery.lastIndex(of: "@") {
            let userinfo = beforeQuery[..<at]
            if let separator = userinfo.firstIndex(of: ":") {
                result += userinfo[..<separator] + ":" + mask
            } else {
                result += userinfo
            }
            result += beforeQuery[at...]
        } else {
            result += beforeQuery
        }
        guard queryStart < word.endIndex else { return result }
        let query = word[word.index(after: queryStart)...]
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let key = pair[..<equals]
            return plainQueryKeys.contains(key.lowercased()) ? String(pair) : key + "=" + mask
        }
        return result + "?" + pairs.joined(separator: "&")
    }
}
