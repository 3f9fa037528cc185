/// An authentication challenge (RFC 7235 §4.1, `WWW-Authenticate`), as RTSP servers send them:
/// a scheme, then auth-params `name=value` or `name="quoted"`, comma-separated. Names are
/// case-insensitive; several challenges may share one header, each starting with its scheme.
public struct Challenge: Equatable, Sendable {
    public var scheme: String
    public var parameters: [String: String]

    public init(scheme: String, parameters: [String: String]) {
        self.scheme = scheme
        self.parameters = parameters
    }

    public func parameter(_ name: String) -> String? { parameters[name.lowercased()] }

    /// Every challenge in one header value.
    public static func parse(_ header: String) -> [Challenge] {
        var challenges: [Challenge] = []
        var chars = Substring(header)
        func skipSpace() { chars = chars.drop { $0 == " " || $0 == "\t" || $0 == "," } }
        func token() -> Substring {
            let t = chars.prefix { !" \t,=\"".contains($0) }
            chars = chars.dropFirst(t.count)
            return t
        }
        while true {
            skipSpace()
            let word = token()
            guard !word.isEmpty else { break }
            chars = chars.drop { $0 == " " || $0 == "\t" }
            if chars.first == "=" {
                // name=value of the challenge in progress.
                chars = chars.dropFirst().drop { $0 == " " }
                var value = ""
                if chars.first == "\"" {
                    chars = chars.dropFirst()
                    while let c = chars.first, c != "\"" {
                        chars = chars.dropFirst()
                        if c == "\\", let escaped = chars.first {
                            value.append(escaped)
                            chars = chars.dropFirst()
                        } else {
                            value.append(c)
                        }
                    }
                    chars = chars.dropFirst()
                } else {
                    value = String(token())
                }
                if !challenges.isEmpty { challenges[challenges.count - 1].parameters[word.lowercased()] = value }
            } else {
                challenges.append(Challenge(scheme: String(word), parameters: [:]))
            }
        }
        return challenges
    }
}
