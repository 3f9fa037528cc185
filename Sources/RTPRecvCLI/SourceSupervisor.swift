import Fleet
import HTTPEndpoint
import SystemIO

/// A config's sources side by side in one process: a thread each, running the live run the source
/// would have alone, so that one camera's failure, slowness or hostility (a connection that hangs,
/// a server that answers slowly) stalls no other. Each thread's messages begin with "[name] ".
///
/// A thread a source rather than one event loop for all: a source's loop blocks now and then by
/// design (an fsync as a segment closes, tens of milliseconds on a busy disk; a keyframe decoded
/// for the live page; a write to a slow mount), and on a thread of its own that holds up its own
/// camera alone, whose socket buffers absorb the wait. What a thread costs is a wake-up a turn,
/// which `batch-ms` gathers (100 ms by default for a camera into files: `Options.gatherMilliseconds`).
///
/// SIGHUP reloads the config: a source added starts, one removed finishes its files and stops, one
/// whose settings changed stops and starts again, and the others are not touched. A config that
/// no longer loads is said, and the sources go on as they were.
///
/// With `nats:`, the process is one member of a fleet (`FleetMember`): it runs only the sources it
/// holds a claim to, until a signal, and tells the fleet of each run's start, end and segments.
///
/// `metrics:` in the config is the process's one endpoint, served from this thread: /metrics and
/// /healthz of every source (its samples labelled `source="name"`), the live page with a section a
/// source, and `/snapshot/NAME/SSRC.jpg`, each asked of the sources' threads (`SourceInbox`).
final class SourceSupervisor {
    private final class Running {
        let source: ConfigFile.Source
        let stop = StopRequest()
        let inbox = SourceInbox()
        /// When the run was asked to stop at its next keyframe.
        var askedAtKeyframe: Int64?
        private let lock = ConditionLock()
        private var status: Int32?
        var thread: WorkerThread?

        init(_ source: ConfigFile.Source) { self.source = source }

        func finished(_ status: Int32) { lock.locked { self.status = status } }
        /// Why the run was asked to stop, at once or at its next keyframe; nil when it ended on its own.
        var stoppedBecause: String? { stop.reason ?? stop.reasonAtKeyframe }
        var exitStatus: Int32? { lock.locked { status } }
        /// Whether its run's loop answers requests: not ended, and its session set up.
        var answers: Bool { exitStatus == nil && inbox.settingUp == nil }
    }

    /// -q and -v of the command line, for every source.
    struct Messages {
        var quiet = false
        var verbose = false
    }

    private let path: String
    private let messages: Messages
    /// How long a run asked to stop at its next keyframe may wait for one (an audio source, a
    /// camera with a long group of pictures) before it stops anyway.
    static let keyframeWait: Int64 = 10_000_000_000
    private var running: [Running] = []
    private let metrics: HTTPEndpoint?
    /// What `metrics:` said at the start: the endpoint stays there until the process restarts.
    private let metricsTarget: String?
    private let started = Terminal.monotonicNanoseconds()
    private let fleet: FleetMember?
    /// How the fleet reaches NATS, as the config last said.
    private var fleetClient: NATSClient.Settings?
    /// The config's sources by name, for the fleet's claims.
    private var listed: [String: ConfigFile.Source] = [:]
    /// How runs ended on their own (not stopped by a reload or the fleet), in order.
    private var endings: [(source: String, status: Int32)] = []

    init(_ config: ConfigFile, messages: Messages) throws {
        path = config.path
        self.messages = messages
        metricsTarget = config.metrics.map { "\($0.address):\($0.port)" }
        metrics = try config.metrics.map {
            try LiveReception.serveMetrics(at: $0, named: "\(config.path): metrics", quiet: messages.quiet, say: "rtprecv: ")
        }
        fleet = config.fleet.map { FleetMember($0, sources: config.sources.map(\.name)) }
        fleetClient = config.fleet?.client
        listed = Dictionary(config.sources.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        if let fleet {
            guard fleet.start() else { throw RunError(description: "no thread could be made for the fleet") }
        } else {
            for source in config.sources { start(source) }
        }
    }

    /// Until every source's run has ended (a signal, their --duration, or their failure); the exit
    /// status is 1 when any failed, else the highest (3 when one received no RTP).
    func run() -> Int32 {
        var hangups = HangupSignal.count
        while running.contains(where: { $0.exitStatus == nil }) || (fleet != nil && StopSignal.received == 0 && fleet?.refused == nil) {
            if HangupSignal.count != hangups && StopSignal.received == 0 {
                hangups = HangupSignal.count
                reload()
            }
            if let fleet { follow(fleet) }
            serve(milliseconds: 50)
        }
        for r in running {
            r.thread?.join()
            ended(r)
        }
        fleet?.finish()
        if let refused = fleet?.refused {
            Terminal.printError("rtprecv: error: \(refused)\n")
            return 1
        }
        if !messages.quiet { Terminal.printError(summary() + "\n") }
        let statuses = endings.map(\.status)
        return statuses.contains(1) ? 1 : statuses.max() ?? 0
    }

    /// How each source's run ended, in one line for the operator: "rtprecv: 3 sources: door, yard:
    /// ended as asked; gate: failed". A group names its first sources only ("…, cam9 and 990
    /// more"): each source's own lines said the rest.
    private func summary() -> String {
        let words: [Int32: String] = [0: "ended as asked", 1: "failed", Command.noRTPExitStatus: "received no RTP"]
        // Each source once, as its last run ended.
        var last: [String: Int32] = [:]
        var order: [String] = []
        for (source, status) in endings {
            if last.updateValue(status, forKey: source) == nil { order.append(source) }
        }
        let groups = Dictionary(grouping: order) { last[$0]! }.sorted { $0.key < $1.key }
        return "rtprecv: \(order.count) source\(order.count == 1 ? "" : "s"): " + groups.map { status, names in
            let shown = names.prefix(Self.namesInSummary).joined(separator: ", ")
            return (names.count > Self.namesInSummary ? shown + " and \(names.count - Self.namesInSummary) more" : shown)
                + ": " + (words[status] ?? "exit status \(status)")
        }.joined(separator: "; ")
    }

    static let namesInSummary = 10

    /// A run that ended on its own: its exit status for the summary, and the fleet's event.
    private func ended(_ r: Running) {
        endings.append((r.source.name, r.exitStatus ?? 1))
        fleet?.post(r.source.name, "stopped", [("exit_status", .int(Int(r.exitStatus ?? 1)))])
    }

    /// A run stopped as asked (a reload, the fleet): the fleet's event, and a claim being handed
    /// over let go.
    private func stopped(_ r: Running, because why: String) {
        fleet?.post(r.source.name, "stopped", [("exit_status", .int(Int(r.exitStatus ?? 1))), ("reason", .string(why))])
        fleet?.stopped(r.source.name)
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
        options.quiet = options.quiet || messages.quiet
        options.verbose = options.verbose || messages.verbose
        options.supervised = Options.Supervised(stop: r.stop, inbox: metrics == nil ? nil : r.inbox)
        let name = source.name
        if let fleet {
            options.supervised?.announce = { kind, fields in fleet.post(name, kind, fields) }
            if let gone = fleet.takeOver(of: name) {
                // It died most of a TTL ago at least (its claim expired); a member cut off from NATS writes on.
                let theirs = source.recording(of: gone)
                options.supervised?.expiredWriter = theirs.segmentIndex.map {
                    Options.ExpiredWriter(member: gone, index: $0, templates: SegmentIndex.templates(theirs),
                                          idle: fleet.settings.ttlMilliseconds * 500_000)
                }
            }
            fleet.post(name, "started")
        }
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
        listed = wanted
        fleet?.update(sources: config.sources.map(\.name))
        var said: [String] = []
        // Removed or changed: stopped first, so that a changed one's files and ports are free again.
        for r in running where r.exitStatus == nil {
            if wanted[r.source.name] == nil {
                r.stop.request("removed from the config")
                said.append("'\(r.source.name)' removed")
            } else if wanted[r.source.name]!.signature != r.source.signature {
                r.stop.request("changed in the config")
                said.append("'\(r.source.name)' changed")
            }
        }
        for r in running where r.stop.reason != nil { r.thread?.join() }
        // Runs that ended on their own keep their exit status, and start again if still listed.
        for r in running where r.exitStatus != nil {
            if let why = r.stoppedBecause {
                stopped(r, because: why)
            } else {
                ended(r)
                if wanted[r.source.name] != nil { said.append("'\(r.source.name)' started again") }
            }
        }
        let kept = Set(running.filter { $0.exitStatus == nil }.map(\.source.name))
        let known = Set(running.map(\.source.name))
        running.removeAll { $0.exitStatus != nil }
        for source in config.sources where !kept.contains(source.name) {
            if !known.contains(source.name) { said.append("'\(source.name)' added") }
            // A fleet's member starts only what it holds (at its next turn).
            if fleet == nil { start(source) }
        }
        if let fleet, let settings = config.fleet {
            said += reconnect(fleet, settings)
        } else if config.fleet != fleet?.settings {
            said.append("the fleet's nats: settings stay as they were until rtprecv restarts")
        }
        if config.metrics.map({ "\($0.address):\($0.port)" }) != metricsTarget {
            said.append("the metrics endpoint stays \(metricsTarget.map { "at " + $0 } ?? "off") until rtprecv restarts")
        }
        guard !messages.quiet else { return }
        Terminal.printError("rtprecv: SIGHUP: \(path) reloaded" + (said.isEmpty ? ", nothing changed" : ": " + said.joined(separator: ", ")) + "\n")
    }

    /// What a reload changed of `nats:`: other servers or credentials are taken at once (the member
    /// connects again, holding its claims); its name, TTL, bucket, stream and replicas wait for a restart.
    private func reconnect(_ fleet: FleetMember, _ wanted: FleetSettings) -> [String] {
        var said: [String] = []
        if wanted.client != fleetClient {
            fleetClient = wanted.client
            fleet.reconnect(with: wanted.client)
            said.append("the fleet connects to NATS again with the new servers or credentials")
        }
        var rest = wanted
        rest.client = fleet.settings.client
        if rest != fleet.settings { said.append("the fleet's member, ttl-seconds, bucket, events and replicas stay as they were until rtprecv restarts") }
        return said
    }

    /// The runs made to match the fleet's claims: what this member holds runs, what it lost stops,
    /// and a run that ended on its own lets its claim go.
    private func follow(_ fleet: FleetMember) {
        let held = fleet.held
        let now = Terminal.monotonicNanoseconds()
        // A run ends before a keyframe, so that its last file holds whole groups of pictures and the
        // next writer's begins where it ends (a member that took it after a partition records already).
        for r in running where r.exitStatus == nil && r.stop.reason == nil && !held.contains(r.source.name) {
            let why = fleet.owner(afterLosing: r.source.name).map { "recorded by member '\($0)' now" } ?? "handed to another member of the fleet"
            r.askedAtKeyframe = r.askedAtKeyframe ?? now
            r.stop.requestAtKeyframe(why)
            if now - r.askedAtKeyframe! > Self.keyframeWait { r.stop.request(why + "; no keyframe came") }
        }
        for r in running where r.exitStatus != nil {
            r.thread?.join()
            if let why = r.stoppedBecause {
                stopped(r, because: why)
            } else {
                ended(r)
                if StopSignal.received == 0 { fleet.ended(r.source.name) }
            }
        }
        running.removeAll { $0.exitStatus != nil }
        guard StopSignal.received == 0 else { return }
        let live = Set(running.map(\.source.name))
        for name in held.sorted() where !live.contains(name) {
            if let source = listed[name] { start(source) }
        }
    }

    // MARK: The metrics endpoint

    /// Requests to the endpoint for up to `milliseconds`; a sleep without one.
    private func serve(milliseconds: Int) {
        guard let metrics else { return Terminal.sleep(nanoseconds: Int64(milliseconds) * 1_000_000) }
        metrics.serve(milliseconds: milliseconds) { page($0) }
    }

    /// What every source running answers to `request` on its own thread, within `milliseconds`.
    private func ask<Answer>(_ sources: [Running], within milliseconds: Int64 = 300,
                             _ request: @escaping (String, LiveReception, Int64) -> Answer) -> [String: Answer] {
        let answers = SourceAnswers<Answer>()
        let asked = sources.filter(\.answers)
        for r in asked {
            let name = r.source.name
            r.inbox.post { reception, now in answers.put(name, request(name, reception, now)) }
        }
        return answers.wait(for: asked.count, until: Terminal.monotonicNanoseconds() + milliseconds * 1_000_000)
    }

    private func page(_ path: String) -> HTTPAnswer {
        switch path {
        case "/metrics":
            let answers = ask(running) { name, reception, now in
                var e = PrometheusExposition()
                e.labels = "source=\"\(name)\""
                reception.expose(into: &e, now: now)
                return e
            }
            var e = PrometheusExposition()
            for r in running {
                if let a = answers[r.source.name] { e.add(a) }
                if let setup = r.inbox.settingUp {
                    var s = PrometheusExposition()
                    s.labels = "source=\"\(r.source.name)\""
                    s.rtspSetup(failures: setup.failures, underway: true)
                    e.add(s)
                }
            }
            for r in running {
                e.sample("rtprecv_source_up", type: "gauge", help: "1 while the source's run answers (0: setting up, or ended)",
                         labels: "source=\"\(r.source.name)\"", value: answers[r.source.name] == nil ? 0 : 1)
            }
            return HTTPAnswer(200, "OK", PrometheusExposition.contentType, e.text)
        case "/healthz":
            let answers = ask(running) { _, reception, now in reception.silentInputs(now: now) }
            let unwell = running.compactMap { r -> String? in
                guard let silent = answers[r.source.name] else { return "\(r.source.name): " + (r.inbox.settingUp?.said ?? "not receiving") }
                return silent.isEmpty ? nil : "\(r.source.name): silent: " + silent.joined(separator: ", ")
            }
            return unwell.isEmpty ? HTTPAnswer(200, "OK", "text/plain", "ok\n")
                : HTTPAnswer(503, "Service Unavailable", "text/plain", unwell.joined(separator: "\n") + "\n")
        case "/":
            let answers = ask(running) { name, reception, now in reception.liveSection(now: now, source: name) }
            let sections = running.map {
                answers[$0.source.name] ?? LivePage.Section(name: $0.source.name, streams: 0, cards: "", state: $0.inbox.settingUp?.said)
            }
            return HTTPAnswer(200, "OK", "text/html; charset=utf-8", LivePage.html(sections, now: Terminal.monotonicNanoseconds(), started: started))
        case _ where path.hasPrefix("/snapshot/"):
            let owner = running.filter { path.hasPrefix("/snapshot/\($0.source.name)/") }
            // A picture is decoded when asked for (the first loads libavcodec): more time.
            let answers = ask(owner, within: 1500) { name, reception, now in reception.snapshot(path, now: now, source: name) }
            guard let jpeg = answers.values.first ?? nil else {
                // A run that was asked and said nothing in time is busy, not without a picture.
                let busy = answers.isEmpty && owner.contains(where: \.answers)
                return busy ? HTTPAnswer(503, "Service Unavailable", "text/plain", "the source did not answer in time\n")
                    : HTTPAnswer(404, "Not Found", "text/plain", "no keyframe of such a stream yet\n")
            }
            return HTTPAnswer(200, "OK", "image/jpeg", jpeg, extraHeaders: "Cache-Control: no-store\r\n")
        default:
            return HTTPAnswer(404, "Not Found", "text/plain", "/, /metrics, /healthz or /snapshot/SOURCE/SSRC.jpg\n")
        }
    }
}
