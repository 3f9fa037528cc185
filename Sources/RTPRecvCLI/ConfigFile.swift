import RTPCore
import SystemIO
import YAML

/// `--config FILE`: the sources to record, each named, with settings named as the command line's
/// options are (`segment-seconds: 60` is `--segment-seconds 60`) and checked by the same parser.
///
///     defaults:                  # every source's, unless it says otherwise
///       mp4: rec/{source}/{start}.mp4
///       segment-seconds: 60
///     sources:
///       - name: door
///         rtsp: rtsp://10.0.0.5/stream1
///         user: admin
///         password-env: DOOR_PASSWORD
///       - name: call
///         sdp: call.sdp
///         srtp-key-file: call.key
///
/// Secrets stay out of the file: passwords come from the environment or a file, SRTP keys from a
/// file. Every error names the file, line and column.
public struct ConfigFile {
    struct Source {
        let name: String
        let mark: YAMLMark
        var options: Options
        /// What the source was made of (its arguments and secrets): a reload restarts it when this changes.
        let signature: [String]
        /// Its settings that name `{member}` (flag, value with the field), for `recording(of:)`.
        let memberSettings: [String]

        /// Where `member` records this source: its recording's settings as that member reads them
        /// (the storage is shared), so that a member taking the source over from a dead one finds
        /// the files it left.
        func recording(of member: String) -> Options {
            var options = self.options
            var reader = ArgumentReader(memberSettings.map { $0.replacingAll(ConfigFile.memberField, with: member) })
            // Checked when the config loaded, with this member's name.
            while reader.next() { _ = try? options.take(&reader) }
            return options
        }
    }

    public let path: String
    private(set) var sources: [Source] = []
    /// `metrics:` at the top: the process's one endpoint, every source's streams labelled with its name.
    private(set) var metrics: (address: String, port: UInt16)?
    /// `nats:` at the top: the process is one member of a fleet recording these sources.
    private(set) var fleet: FleetSettings?

    /// The most a config file may hold; larger is not a config.
    static let maxBytes = 1 << 20
    static let sourceField = "{source}"
    static let memberField = "{member}"
    /// Settings of the config's own, beside the command line's options.
    private static let ownKeys: Set<String> = ["name", "rtsp", "password-env", "password-file", "srtp-key-file"]

    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    static func load(_ path: String) throws(Invalid) -> ConfigFile {
        let text: [UInt8]
        do {
            text = try Terminal.readBytes(path)
        } catch {
            throw Invalid(description: "cannot read the config \(error)")
        }
        guard text.count <= maxBytes else { throw Invalid(description: "\(path): larger than \(maxBytes >> 20) MiB: not a config") }
        return try ConfigFile(path: path, text: text)
    }

    public init(path: String, text: [UInt8]) throws(Invalid) {
        self.path = path
        let root: YAMLNode?
        do {
            root = try YAML.parse(text)
        } catch {
            throw Invalid(description: error.mark.map { "\(path):\($0): \(error.message)" } ?? error.message)
        }
        guard let root else { throw Invalid(description: "\(path): empty: list the sources under 'sources:'") }
        let top = try mapping(root, "the config")
        var defaults: [(key: YAMLNode, value: YAMLNode)] = []
        var list: YAMLNode?
        for (key, value) in top {
            switch try name(key) {
            case "defaults": defaults = try mapping(value, "'defaults'")
            case "sources": list = value
            case "metrics": metrics = try checked("--metrics", try scalar(value, "metrics"), at: value).metrics
            case "nats": fleet = try fleetSettings(value)
            case let other: throw invalid(key, "unknown section '\(other)': the config has 'metrics', 'nats', 'defaults' and 'sources'")
            }
        }
        guard let list else { throw invalid(root, "no 'sources': list what to record, each with a name") }
        guard case .sequence(let items) = list.value, !items.isEmpty else {
            throw invalid(list, "'sources' is a list, each item a source: '- name: door' and its settings")
        }
        for item in items {
            let source = try self.source(item, defaults: defaults)
            if let other = sources.first(where: { $0.name == source.name }) {
                throw invalid(item, "a second source named '\(source.name)' (the first is at line \(other.mark.line))")
            }
            sources.append(source)
        }
        try checkCollisions()
    }

    /// One source: the defaults, then its own settings, as one command line.
    private func source(_ node: YAMLNode, defaults: [(key: YAMLNode, value: YAMLNode)]) throws(Invalid) -> Source {
        let own = try mapping(node, "a source")
        guard let nameNode = own.first(where: { (try? name($0.key)) == "name" })?.value, case .scalar(let name, _) = nameNode.value else {
            throw invalid(node, "a source without a name: give it 'name:', which {source} in its outputs stands for")
        }
        guard Self.isName(name) else {
            throw invalid(nameNode, "invalid source name '\(name)': letters, digits, '-', '_' and '.', as it becomes part of file names")
        }
        // The source's settings win over the defaults: later arguments win on the command line.
        var settings: [String: (key: YAMLNode, value: YAMLNode)] = [:]
        var order: [String] = []
        for (key, value) in defaults + own {
            let k = try self.name(key)
            if settings[k] == nil { order.append(k) }
            settings[k] = (key, value)
        }
        var arguments: [String] = []
        var extra = Extra()
        for k in order where k != "name" {
            let (key, value) = settings[k]!
            try take(k, key: key, value: value, source: name, into: &arguments, extra: &extra)
        }
        guard order.contains(where: { ["rtsp", "sdp", "port"].contains($0) }) else {
            throw invalid(node, "source '\(name)' has nothing to receive: give it 'rtsp:', 'sdp:' or 'port:'")
        }
        var options: Options
        do {
            options = try Options(arguments: arguments)
            try OutputCollisions.check(options)
        } catch {
            throw invalid(node, "source '\(name)': \(error)")
        }
        if let password = extra.password { options.password = password }
        options.srtpKeys += extra.srtpKeys
        return Source(name: name, mark: node.mark, options: options, signature: arguments + [extra.password ?? ""] + extra.keyLines,
                      memberSettings: extra.memberSettings)
    }

    /// What the config gives beside the arguments: secrets, read from where it says.
    private struct Extra {
        var password: String?
        var srtpKeys: [SRTPMasterKey] = []
        var keyLines: [String] = []
        var memberSettings: [String] = []
    }

    /// One setting into the command line, or into `extra`; checked alone first, so that an error
    /// points at its own line.
    private func take(_ k: String, key: YAMLNode, value: YAMLNode, source: String, into arguments: inout [String],
                      extra: inout Extra) throws(Invalid) {
        switch k {
        case "rtsp":
            arguments.append(try rtspURL(value, k))
            return
        case "sdp":
            // Read when the source starts; a file that is not there is the config's error, at its place.
            let file = try scalar(value, k)
            guard Directory.regularFile(file) != nil else { throw invalid(value, "\(file): no such file (the source's SDP)") }
            try takeOption(k, key: key, value: value, source: source, into: &arguments, extra: &extra)
        case "password-env", "password-file":
            extra.password = try password(value, k)
            return
        case "srtp-key-file":
            try readKeys(value, k, into: &extra)
            return
        case "password", "srtp-key", "srtp-keying-material":
            throw invalid(key, "keep secrets out of the config: "
                          + (k == "password" ? "'password-env:' or 'password-file:'" : "'srtp-key-file:', a key a line"))
        case "config", "check", "help", "version", "list", "pcap", "sdp-dir":
            throw invalid(key, "'\(k)' is for the command line, not a source")
        case "metrics", "nats":
            throw invalid(key, "'\(k)' is the process's, for every source: put it at the top of the config, beside 'sources'")
        default:
            try takeOption(k, key: key, value: value, source: source, into: &arguments, extra: &extra)
        }
    }

    /// A setting named as an option: on or off, or its value (a list repeats it), each checked alone.
    private func takeOption(_ k: String, key: YAMLNode, value: YAMLNode, source: String, into arguments: inout [String],
                            extra: inout Extra) throws(Invalid) {
        let flag = "--" + k
        guard let option = Options.optionsByName[flag] else {
            throw invalid(key, "unknown setting '\(k)': settings are named as rtprecv's options (see rtprecv --help)")
        }
        if option.value == nil {
            guard case .scalar(let text, plain: true) = value.value, let on = Self.boolean(text) else {
                throw invalid(value, "'\(k)' is on or off: write '\(k): true' or '\(k): false'")
            }
            if on { arguments.append(flag) }
        } else {
            let values: [YAMLNode]
            if case .sequence(let items) = value.value { values = items } else { values = [value] }
            for v in values {
                var text = try scalar(v, k).replacingAll(Self.sourceField, with: source)
                if text.contains(Self.memberField) {
                    guard let fleet else { throw invalid(v, "\(Self.memberField) is a fleet member's name: the config has no 'nats:'") }
                    extra.memberSettings += [flag, text]
                    text = text.replacingAll(Self.memberField, with: fleet.member)
                }
                _ = try checked(flag, text, at: v)
                arguments += [flag, text]
            }
        }
    }

    /// An RTSP URL, without a password in it.
    private func rtspURL(_ value: YAMLNode, _ k: String) throws(Invalid) -> String {
        let url = try scalar(value, k)
        let parsed: RTSPURL
        do {
            parsed = try RTSPURL(parsing: url)
        } catch {
            throw invalid(value, error.description)
        }
        guard parsed.password == nil else {
            throw invalid(value, "keep the password out of the config: 'user:' with 'password-env:' or 'password-file:'")
        }
        return url
    }

    /// `srtp-key-file:`'s keys, one a line, kept secret.
    private func readKeys(_ value: YAMLNode, _ k: String, into extra: inout Extra) throws(Invalid) {
        let (file, text) = (try scalar(value, k), try secretFile(value, k))
        for (i, line) in text.split(whereSeparator: \.isNewline).enumerated() where !line.allSatisfy(\.isWhitespace) {
            let option = String(line.trimmingWhitespace())
            Terminal.keepSecret(option)
            do {
                extra.keyLines.append(option)
                extra.srtpKeys.append(try SRTPMasterKey(option: option, origin: "\(file) line \(i + 1)"))
            } catch {
                throw invalid(value, "\(error)")
            }
        }
    }

    /// `flag` with its value parsed alone, into the defaults: an error is the value's, at its place.
    private func checked(_ flag: String, _ value: String, at node: YAMLNode) throws(Invalid) -> Options {
        var alone = Options()
        var reader = ArgumentReader([flag, value])
        _ = reader.next()
        do {
            _ = try alone.take(&reader)
        } catch {
            throw invalid(node, error.description)
        }
        return alone
    }

    /// A password from `password-env:` (the variable it names) or `password-file:` (its first line),
    /// kept secret in all output.
    func password(_ node: YAMLNode, _ k: String) throws(Invalid) -> String {
        let password: String
        if k == "password-env" {
            let variable = try scalar(node, k)
            guard let value = Terminal.environment(variable) else { throw invalid(node, "the environment has no \(variable)") }
            password = value
        } else {
            password = try secretFile(node, k).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        }
        Terminal.keepSecret(password)
        return password
    }

    /// A secret's file, whole: a regular file (not a pipe or a device that could stall the start),
    /// bounded, and never shown.
    func secretFile(_ node: YAMLNode, _ k: String) throws(Invalid) -> String {
        let file = try scalar(node, k)
        guard let size = Directory.regularFile(file)?.size else { throw invalid(node, "\(file): no such regular file") }
        guard size <= 65536 else { throw invalid(node, "\(file): larger than 64 KiB: not a secret") }
        do {
            return try Terminal.readFile(file)
        } catch {
            throw invalid(node, "cannot read \(error)")
        }
    }

    /// YAML 1.1's words for on and off.
    private static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on": true
        case "false", "no", "off": false
        default: nil
        }
    }

    /// Two sources writing one file or listening on one port: each source's must differ (its files
    /// by {source}). Devices (/dev/null) may be shared, as on the command line.
    private func checkCollisions() throws(Invalid) {
        var written: [FileIdentity: String] = [:]
        var ports: [UInt16: String] = [:]
        for source in sources {
            let o = source.options
            let range = o.portRange ?? o.port.map { $0...$0 }
            for port in range.map(Array.init) ?? [] where port != 0 {
                if let other = ports[port] { throw invalid(source.mark, "sources '\(other)' and '\(source.name)' both listen on port \(port)") }
                ports[port] = source.name
            }
            for (output, path) in source.options.givenFileOutputs where path != "-" {
                guard let file = FileIdentity(path) else { continue }
                if let other = written[file] {
                    throw invalid(source.mark, "sources '\(other)' and '\(source.name)' would both write '\(path)' (\(output.flag)): "
                                  + "name each source's files with {source}")
                }
                written[file] = source.name
            }
        }
    }

    func name(_ key: YAMLNode) throws(Invalid) -> String {
        guard case .scalar(let text, _) = key.value else { throw invalid(key, "a key that is not a name") }
        return text
    }

    func scalar(_ node: YAMLNode, _ k: String) throws(Invalid) -> String {
        guard case .scalar(let text, _) = node.value else { throw invalid(node, "'\(k)' takes one value, not a list or a mapping") }
        return text
    }

    func mapping(_ node: YAMLNode, _ what: String) throws(Invalid) -> [(key: YAMLNode, value: YAMLNode)] {
        guard case .mapping(let pairs) = node.value else { throw invalid(node, "\(what) is a mapping of 'name: value' lines") }
        var seen: Set<String> = []
        for (key, _) in pairs {
            let k = try name(key)
            guard seen.insert(k).inserted else { throw invalid(key, "'\(k)' a second time") }
        }
        return pairs
    }

    func invalid(_ node: YAMLNode, _ message: String) -> Invalid { invalid(node.mark, message) }
    func invalid(_ mark: YAMLMark, _ message: String) -> Invalid { Invalid(description: "\(path):\(mark): \(message)") }
}
