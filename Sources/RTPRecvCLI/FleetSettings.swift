import Fleet
import SystemIO
import YAML

/// `nats:` in a config: how this process joins a fleet that shares the config's sources.
///
///     nats:
///       servers: [nats://10.0.0.1:4222, nats://10.0.0.2:4222, nats://10.0.0.3:4222]
///       member: rec-a            # this process's name in the fleet (default: the host's name)
///       ttl-seconds: 5           # a dead member's sources move after this
///       user: rtprecv
///       password-env: NATS_PASSWORD
struct FleetSettings: Equatable {
    var client: NATSClient.Settings
    var member: String
    var ttlMilliseconds: Int64
    /// The key-value bucket of claims and heartbeats, and the stream of events.
    var bucket = "rtprecv"
    var events = "RTPRECV_EVENTS"
    /// How many servers keep the bucket and the stream: 3 (a node may be lost) when 3 or more are listed.
    var replicas: Int

    static let ttlSeconds = 1...300
}

extension ConfigFile {
    private static let natsKeys = ["servers", "member", "ttl-seconds", "bucket", "events", "replicas", "user", "password-env",
                                   "password-file", "creds-file", "tls-ca-file"]

    func fleetSettings(_ node: YAMLNode) throws(Invalid) -> FleetSettings {
        var servers: [String] = []
        var s = FleetSettings(client: .init(servers: [], name: "rtprecv", timeoutMilliseconds: 2000),
                              member: Self.memberName(Terminal.hostName), ttlMilliseconds: 5000, replicas: 1)
        var replicas: Int?
        for (key, value) in try mapping(node, "'nats'") {
            let k = try name(key)
            switch k {
            case "servers":
                let items: [YAMLNode]
                if case .sequence(let list) = value.value { items = list } else { items = [value] }
                for item in items { servers.append(try serverURL(item)) }
            case "member":
                s.member = try identifier(value, "member", what: "a member's name")
            case "ttl-seconds":
                s.ttlMilliseconds = Int64(try number(value, k, in: FleetSettings.ttlSeconds)) * 1000
            case "bucket", "events":
                let text = try identifier(value, k, what: "a bucket's or a stream's name", allowsDot: false)
                if k == "bucket" { s.bucket = text } else { s.events = text }
            case "replicas":
                replicas = try number(value, k, in: 1...5)
            case "user":
                s.client.user = try scalar(value, k)
            case "password-env", "password-file":
                s.client.password = try password(value, k)
            case "creds-file", "tls-ca-file":
                let file = try scalar(value, k)
                guard Directory.regularFile(file) != nil else { throw invalid(value, "\(file): no such regular file") }
                if k == "creds-file" { s.client.credentialsFile = file } else { s.client.trustedCertificates = file }
            case "password", "token":
                throw invalid(key, "keep secrets out of the config: 'password-env:', 'password-file:' or 'creds-file:'")
            default:
                throw invalid(key, "unknown setting '\(k)' of 'nats': " + Self.natsKeys.joined(separator: ", "))
            }
        }
        guard !servers.isEmpty else { throw invalid(node, "'nats' without 'servers': list the NATS servers, nats://HOST:PORT") }
        guard !s.member.isEmpty else {
            throw invalid(node, "the host name '\(Terminal.hostName)' gives no member name: give each member one with 'member:'")
        }
        s.client.servers = servers
        s.client.name = "rtprecv \(s.member)"
        s.replicas = replicas ?? (servers.count >= 3 ? 3 : 1)
        return s
    }

    /// A server's URL, without credentials (they would show in messages and the server's pages).
    private func serverURL(_ node: YAMLNode) throws(Invalid) -> String {
        let url = try scalar(node, "servers")
        let scheme = ["nats://", "tls://"].first { url.hasPrefix($0) }
        guard let scheme, url.count > scheme.count else { throw invalid(node, "'\(Terminal.masked(url))' is no NATS server: nats://HOST:PORT") }
        let authority = url.dropFirst(scheme.count).prefix { $0 != "/" }
        guard !authority.contains("@") else {
            throw invalid(node, "keep credentials out of the server's URL: 'user:' with 'password-env:', or 'creds-file:'")
        }
        return url
    }

    /// Letters, digits, '-' and '_' (and '.', where allowed): names that are keys, subjects and file names.
    private func identifier(_ node: YAMLNode, _ k: String, what: String, allowsDot: Bool = true) throws(Invalid) -> String {
        let text = try scalar(node, k)
        guard Self.isName(text), allowsDot || !text.contains(".") else {
            throw invalid(node, "invalid \(what) '\(text)': letters, digits, '-' and '_'" + (allowsDot ? " and '.'" : ""))
        }
        return text
    }

    private func number(_ node: YAMLNode, _ k: String, in range: ClosedRange<Int>) throws(Invalid) -> Int {
        guard let n = Int(try scalar(node, k)), range.contains(n) else {
            throw invalid(node, "'\(k)' is a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    /// Letters, digits, '-', '_' and '.', not first: a source's or a member's name, which becomes part
    /// of file names, keys and subjects.
    static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.first != "." && text.allSatisfy { isNameCharacter($0) }
    }

    private static func isNameCharacter(_ c: Character) -> Bool { c.isASCII && (c.isLetter || c.isNumber || "-_.".contains(c)) }

    /// `text` with what a name may not hold left out (a host name's other characters).
    static func memberName(_ text: String) -> String { String(text.filter(isNameCharacter).drop { $0 == "." }) }
}
