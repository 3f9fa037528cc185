import SystemIO

/// A config's sources side by side in one process: a thread each, running the live run the source
/// would have alone, so that one camera's failure, slowness or hostility (a connection that hangs,
/// a server that answers slowly) stalls no other. Each thread's messages begin with "[name] ".
///
/// SIGHUP reloads the config: a source added starts, one removed finishes its files and stops, one
/// whose settings changed stops and starts again, and the others are not touched. A config that
/// no longer loads is said, and the sources go on as they were.
final class SourceSupervisor {
    private final class Running {
        let source: ConfigFile.Source
        let stop = StopRequest()
        private let lock = ConditionLock()
        private var status: Int32?
        var thread: WorkerThread?

        init(_ source: ConfigFile.Source) { self.source = source }

        func finished(_ status: Int32) { lock.locked { self.status = status } }
        var exitStatus: Int32? { lock.locked { status } }
    }

    private let path: String
    private var running: [Running] = []
    /// The exit statuses of runs that ended on their own (not stopped by a reload).
    private var statuses: [Int32] = []

    init(_ config: ConfigFile) {
        path = config.path
        for source in config.sources { start(source) }
    }

    /// Until every source's run has ended (a signal, their --duration, or their failure); the exit
    /// status is 1 when any failed, else the highest (3 when one received no RTP).
    func run() -> Int32 {
        var hangups = HangupSignal.count
        while running.contains(where: { $0.exitStatus == nil }) {
            if HangupSignal.count != hangups && StopSignal.received == 0 {
                hangups = HangupSignal.count
                reload()
            }
            Terminal.sleep(nanoseconds: 50_000_000)
        }
        for r in running {
            r.thread?.join()
            statuses.append(r.exitStatus ?? 1)
        }
        return statuses.contains(1) ? 1 : statuses.max() ?? 0
    }

    /// Installed before any source's thread, so that a signal in between is not lost.
    static func installSignals() throws {
        try StopSignal.install()
        try HangupSignal.install()
        _ = OpenFileLimit.raise()
    }

    private func start(_ source: ConfigFile.Source) {
        let r = Running(source)
        var options = source.options
        options.sharesTerminal = true
        options.hangupReopens = false
        options.stopRequest = r.stop
        let name = source.name
        r.thread = WorkerThread {
            Terminal.prefixMessages("[\(name)] ")
            r.finished(Command.run(options))
        }
        if r.thread == nil {
            Terminal.printError("rtprecv: error: no thread could be made for source '\(name)'\n")
            r.finished(1)
        }
        running.append(r)
    }

    /// The config read again, and the sources made to match it.
    private func reload() {
        let config: ConfigFile
        do {
            config = try ConfigFile.load(path)
        } catch {
            Terminal.printError("rtprecv: SIGHUP: the config did not reload, the sources go on as they were: \(error)\n")
            return
        }
        let wanted = Dictionary(config.sources.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var said: [String] = []
        // Removed or changed: stopped first, so that a changed one's files and ports are free again.
        for r in running where wanted[r.source.name].map({ $0.signature != r.source.signature }) ?? true {
            let why = wanted[r.source.name] == nil ? "removed from the config" : "changed in the config"
            r.stop.request(why)
            said.append("'\(r.source.name)' \(why == "removed from the config" ? "removed" : "changed")")
        }
        for r in running where r.stop.reason != nil { r.thread?.join() }
        // A run that had ended on its own before the reload keeps its exit status.
        running.removeAll { r in
            guard r.stop.reason != nil || r.exitStatus != nil else { return false }
            if r.stop.reason == nil { statuses.append(r.exitStatus ?? 1) }
            return true
        }
        for source in config.sources where !running.contains(where: { $0.source.name == source.name }) {
            if !said.contains(where: { $0.hasPrefix("'\(source.name)' ") }) { said.append("'\(source.name)' added") }
            start(source)
        }
        Terminal.printError("rtprecv: SIGHUP: \(path) reloaded" + (said.isEmpty ? ", nothing changed" : ": " + said.joined(separator: ", ")) + "\n")
    }
}
