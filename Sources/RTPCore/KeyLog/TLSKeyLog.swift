/// A TLS key log (the SSLKEYLOGFILE that browsers and OpenSSL's keylog callback write; NSS's format):
/// lines of "LABEL <client random, hex> <secret, hex>", comments after '#'. For (D)TLS 1.2 the label
/// is CLIENT_RANDOM and the secret the 48-byte master secret; TLS 1.3's labels are counted, since
/// DTLS 1.3's exporter is not derived here.
public struct TLSKeyLog: Sendable {
    /// Master secrets by client random.
    public private(set) var masterSecrets: [[UInt8]: [UInt8]] = [:]
    /// Lines with TLS 1.3 labels, and lines that are neither that nor a CLIENT_RANDOM line.
    public private(set) var tls13Lines = 0
    public private(set) var unreadLines: [Int] = []

    private static let tls13Labels: Set<Substring> = [
        "CLIENT_EARLY_TRAFFIC_SECRET", "CLIENT_HANDSHAKE_TRAFFIC_SECRET", "SERVER_HANDSHAKE_TRAFFIC_SECRET",
        "CLIENT_TRAFFIC_SECRET_0", "SERVER_TRAFFIC_SECRET_0", "EARLY_EXPORTER_SECRET", "EXPORTER_SECRET",
    ]

    /// At most 100,000 secrets are kept; the line numbers of the first 10 lines not read are.
    public init(text: String) {
        // Lines end in LF or CRLF (one Character in Swift, which a split on "\n" would not see).
        for (n, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard !fields.isEmpty else { continue }
            if fields.count == 3, fields[0] == "CLIENT_RANDOM", let random = hexBytes(String(fields[1])), random.count == 32,
               let secret = hexBytes(String(fields[2])), secret.count == 48 {
                if masterSecrets.count < 100_000 { masterSecrets[random] = secret }
            } else if fields.count == 3, Self.tls13Labels.contains(fields[0]) {
                tls13Lines += 1
            } else if unreadLines.count < 10 {
                unreadLines.append(n + 1)
            }
        }
    }
}
