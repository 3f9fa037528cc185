import Fleet
import SystemIO

/// `rtprecv fleet status --config FILE`: the fleet as NATS sees it now: its members, who records
/// which source, and each source's last event.
enum FleetStatusCommand {
    static func main(_ arguments: [String]) -> Int32 {
        guard arguments.count == 3, arguments[0] == "status", arguments[1] == "--config" else {
            return Command.usageError(Options.UsageError(description: "rtprecv fleet status --config FILE"))
        }
        let config: ConfigFile
        do {
            config = try ConfigFile.load(arguments[2])
        } catch {
            Terminal.printError("rtprecv: error: \(error)\n")
            return 64
        }
        guard let settings = config.fleet else {
            Terminal.printError("rtprecv: error: \(config.path) has no 'nats:': it is no fleet's config\n")
            return 64
        }
        do {
            let text = try status(settings, sources: config.sources.map(\.name))
            try? OutputFile(path: "-").write(text)
            return 0
        } catch {
            Terminal.printError("rtprecv: error: \(error)\n")
            return 1
        }
    }

    static func status(_ settings: FleetSettings, sources: [String]) throws -> String {
        let client = try NATSClient(settings.client)
        let bucket = try ClaimBucket(client, name: settings.bucket, ttlMilliseconds: settings.ttlMilliseconds, replicas: settings.replicas)
        let events = try EventStream(client, name: settings.events, replicas: settings.replicas)
        let keys = try bucket.keys()
        let members = keys.compactMap { $0.hasPrefix("member.") ? String($0.dropFirst(7)) : nil }.sorted()
        var owners: [String: String] = [:]
        for source in sources { owners[source] = try bucket.get("source.\(source)")?.value }
        var lines = ["fleet on \(settings.client.servers.joined(separator: ", ")): \(members.count) member\(members.count == 1 ? "" : "s"), "
                     + "\(owners.count) of \(sources.count) sources recorded"]
        for member in members {
            let mine = sources.filter { owners[$0] == member }
            lines.append("  member \(member): " + (mine.isEmpty ? "nothing" : mine.joined(separator: ", ")))
        }
        let width = sources.map(\.count).max() ?? 0
        for source in sources {
            let by = owners[source].map { "recorded by \($0)" } ?? "NOT RECORDED"
            let last = try events.last(source: source).map { "; last event \($0)" } ?? ""
            lines.append("  " + source + String(repeating: " ", count: width - source.count) + "  " + by + last)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
