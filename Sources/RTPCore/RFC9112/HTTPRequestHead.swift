/// An HTTP/1.1 request's first line (RFC 9112 §3): method and path, the query left off.
public struct HTTPRequestHead: Sendable {
    public var method: String
    public var path: String

    public init?(_ bytes: ArraySlice<UInt8>) {
        let line = String(decoding: bytes.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return nil }
        method = String(parts[0])
        path = String(parts[1].prefix { $0 != "?" })
    }

    /// Where the header ends (after its empty line), once it has.
    public static func end(of bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i + 4
        }
        return nil
    }
}
