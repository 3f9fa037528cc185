import SystemIO

/// A config's sources side by side in one process: a thread each, running the live run the source
/// would have alone, so that one camera's failure, slowness or hostility (a connection that hangs,
/// a server that answers slowly) stalls no other. Each thread's messages begin with "[name] ".
enum SourceThreads {
    /// Waits for every source's run to end (a signal, their --duration, or their failure); the exit
    /// status is 1 when any failed, else the highest (3 when one received no RTP).
    static func run(_ sources: [ConfigFile.Source]) -> Int32 {
        _ = OpenFileLimit.raise()
        let statuses = UnsafeMutableBufferPointer<Int32>.allocate(capacity: sources.count)
        statuses.initialize(repeating: 1)
        defer { statuses.deallocate() }
        var threads: [WorkerThread] = []
        for (i, source) in sources.enumerated() {
            var options = source.options
            options.sharesTerminal = true
            let name = source.name
            guard let thread = WorkerThread({
                Terminal.prefixMessages("[\(name)] ")
                statuses[i] = Command.run(options)
            }) else {
                Terminal.printError("rtprecv: error: no thread could be made for source '\(name)'\n")
                continue
            }
            threads.append(thread)
        }
        for thread in threads { thread.join() }
        return statuses.contains(1) ? 1 : statuses.max() ?? 0
    }
}
