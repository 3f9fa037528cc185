import FFmpeg
import RTMPOutput
import RTPCore
import SystemIO

/// The whole tool: parses the arguments, runs, and maps every failure to a message and an exit status.
public enum Command {
    /// A run that ended as asked but received no RTP packet at all: nothing came, or nothing that
    /// was RTP (a wrong port, a firewall, a camera that accepted PLAY and sends nothing), which
    /// `Restart=on-failure` and scripts must notice.
    public static let noRTPExitStatus: Int32 = 3

    /// Passwords and keys, from the arguments as typed (before they parse: an error may echo them)
    /// and the environment, are masked in everything shown. A URL's password and query values are
    /// masked by their shape.
    static func keepSecrets(_ arguments: [String]) {
        let secretOptions = ["--password", "--srtp-key", "--srtp-keying-material", "--rtmp"]
        for (i, argument) in arguments.enumerated() {
            var value: String?
            if let option = secretOptions.first(where: { argument.hasPrefix($0 + "=") }) {
                value = String(argument.dropFirst(option.count + 1))
            } else if secretOptions.contains(argument), i + 1 < arguments.count {
                value = arguments[i + 1]
            }
            guard let value else { continue }
            if argument.hasPrefix("--rtmp") {
                RTMPURL.secretParts(of: value).forEach(Terminal.keepSecret)
                continue
            }
            Terminal.keepSecret(value)
            // A key's base64 alone, as it may appear apart from its suite or parameters; a suite's
            // name, known or not, is shown (an error names it).
            for part in value.split(whereSeparator: { ":| ".contains($0) }) where part.count >= 16 && !looksLikeSuiteName(part) {
                Terminal.keepSecret(String(part))
            }
        }
        if let password = Terminal.environment("RTSP_PASSWORD") { Terminal.keepSecret(password) }
        for argument in arguments where argument.contains("@") {
            let trimmed = argument.trimmingPrefix(while: \.isWhitespace)
            if let password = (try? RTSPURL(parsing: String(trimmed)))?.password { Terminal.keepSecret(password) }
        }
    }

    /// `AES_CM_128_HMAC_SHA1_80` and its misspellings: capitals, digits and underscores, which no
    /// random base64 key of 16 or more characters is.
    private static func looksLikeSuiteName(_ part: Substring) -> Bool {
        part.contains("_") && part.allSatisfy { $0 == "_" || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }

    public static func main(_ arguments: [String]) -> Int32 {
        Terminal.ignoreSIGPIPE()
        keepSecrets(arguments)
        if arguments.first == "fleet" { return FleetStatusCommand.main(Array(arguments.dropFirst())) }
        if arguments.contains(where: { $0 == "--config" || $0.hasPrefix("--config=") }) { return ConfigCommand.main(arguments) }
        let options: Options
        do {
            options = try Options(arguments: arguments)
            if options.mode == .run { try OutputCollisions.check(options) }
        } catch {
            return usageError(error)
        }
        return run(options)
    }

    /// A usage error said with the usage: exit status 64 (EX_USAGE).
    static func usageError(_ error: any Error) -> Int32 {
        Terminal.printError("""
            Error: \(error)
            Usage: \(Help.usage)
            See 'rtprecv --help' for more information.

            """)
        return 64
    }

    static func run(_ options: Options) -> Int32 {
        do {
            switch options.mode {
            case .help:
                try OutputFile(path: "-").write(Help.text + "\n")
                return 0
            case .version:
                try OutputFile(path: "-").write(Help.version + "\n")
                return 0
            case .list:
                return try ListStreams(options: options).run()
            case .run:
                // Many streams or sessions hold many files.
                if options.allStreams || options.recordsSessions { OpenFileLimit.raise() }
                // libavformat links in tens of milliseconds: before the first packet, not at a stream's.
                if Container.allCases.contains(where: { options[keyPath: $0.path] != nil }) { try MediaMuxer.load() }
                return options.isLive ? try Live(options: options).run() : try Replay(options: options).run()
            }
        } catch {
            Terminal.printError("rtprecv: error: \(error)\n")
            return 1
        }
    }
}
