import SystemIO

/// `rtprecv --config FILE [--check]`: the config's sources checked (`--check`), or run; `-q` and
/// `-v` beside it hold for every source (a service's unit passes -q).
enum ConfigCommand {
    static func main(_ arguments: [String]) -> Int32 {
        var path: String?
        var check = false
        var messages = SourceSupervisor.Messages()
        var reader = ArgumentReader(arguments)
        do {
            while reader.next() {
                switch reader.name {
                case "--config":
                    guard path == nil else { throw Options.UsageError(description: "one --config at a time") }
                    path = try reader.value()
                case "--check": check = true
                case "-q", "--quiet": messages.quiet = true
                case "-v", "--verbose": messages.verbose = true
                default:
                    throw Options.UsageError(description: "with --config, settings go in the file ('\(reader.name)' is not "
                                             + "taken beside it); only --check, -q and -v are")
                }
            }
        } catch {
            return Command.usageError(error)
        }
        let config: ConfigFile
        do {
            config = try ConfigFile.load(path!)
        } catch {
            Terminal.printError("rtprecv: error: \(error)\n")
            return 64
        }
        if check {
            try? OutputFile(path: "-").write(summary(config))
            return 0
        }
        do {
            try SourceSupervisor.installSignals()
            return try SourceSupervisor(config, messages: messages).run()
        } catch {
            Terminal.printError("rtprecv: error: \(error)\n")
            return 1
        }
    }

    /// What --check says of a valid config: each source, what it receives, and what it writes.
    static func summary(_ config: ConfigFile) -> String {
        var lines = ["\(config.path): \(config.sources.count) source\(config.sources.count == 1 ? "" : "s"), valid"]
        if let fleet = config.fleet {
            lines.append("  fleet: member '\(fleet.member)' of \(fleet.client.servers.joined(separator: ", ")), "
                         + "claims in bucket \(fleet.bucket) (TTL \(fleet.ttlMilliseconds / 1000) s, \(fleet.replicas) replicas), events in \(fleet.events)")
        }
        for source in config.sources {
            let o = source.options
            let input = o.rtsp.map { "rtsp " + Terminal.masked($0) }
                ?? (o.sdp ?? o.sessionSDPs.first).map { "sdp " + $0 }
                ?? o.portRange.map { "ports \($0.lowerBound)-\($0.upperBound)" } ?? "port \(o.port ?? 0)"
            let outputs = o.givenFileOutputs.map { "\($0.output.flag) \($0.path)" } + (o.rtmp.map { ["--rtmp " + Terminal.masked($0)] } ?? [])
            lines.append("  \(source.name): \(input)" + (outputs.isEmpty ? "" : "; " + outputs.joined(separator: ", ")))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
