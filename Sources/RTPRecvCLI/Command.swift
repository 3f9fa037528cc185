import SystemIO

/// The whole tool: parses the arguments, runs, and maps every failure to a message and an exit status.
public enum Command {
    /// A run that ended as asked but received no RTP packet at all: nothing came, or nothing that
    /// was RTP (a wrong port, a firewall, a camera that accepted PLAY and sends nothing), which
    /// `Restart=on-failure` and scripts must notice.
    public static let noRTPExitStatus: Int32 = 3

    public static func main(_ arguments: [String]) -> Int32 {
        Terminal.ignoreSIGPIPE()
        let options: Options
        do {
            options = try Options(arguments: arguments)
            if options.mode == .run { try OutputCollisions.check(options) }
        } catch {
            Terminal.printError("""
                Error: \(error)
                Usage: \(Help.usage)
                See 'rtprecv --help' for more information.

                """)
            return 64
        }
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
                return options.isLive ? try Live(options: options).run() : try Replay(options: options).run()
            }
        } catch {
            Terminal.printError("rtprecv: error: \(error)\n")
            return 1
        }
    }
}
