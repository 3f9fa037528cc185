import RTPCore
import HTTPEndpoint
import RTSPInput
import SystemIO

/// Receives from UDP ports, or an RTSP session, until a signal, `--duration`, `--frames` or
/// `--exit-on-timeout` ends it.
struct Live {
    let options: Options

    func run() throws -> Int32 {
        // The metrics endpoint first: it answers while an RTSP session is set up.
        let metrics = try options.metrics.map { try LiveReception.serveMetrics(at: $0, named: "--metrics", quiet: options.quiet) }
        // From an RTSP server, its session is set up first: the SDP, and the sockets SETUP named
        // (with --reconnect, a camera not up yet is waited for).
        var startup = options.rtsp.map { _ in RTSPStartup(options: options, metrics: metrics) }
        let rtsp = try startup?.session()
        let reception: LiveReception
        do {
            reception = try LiveReception(options: options, rtsp: rtsp, metrics: metrics, setupFailures: startup?.state.failures ?? 0)
        } catch {
            try? rtsp?.teardown()
            throw error
        }
        // The session then in use: --reconnect may have set up another.
        defer { try? reception.rtsp?.teardown() }
        return try reception.receive()
    }
}

/// A live run once set up: its recordings, its sockets and RTCP, then the loop that feeds them and
/// the report at its end.
final class LiveReception {
    let options: Options
    private(set) var rtsp: RTSPPull?
    /// The one run that follows the stream selected; with --all-streams one a stream; with several
    /// SDPs one a session.
    private let single: Run?
    private let fanOut: StreamFanOut?
    private let sessions: SessionFanOut?
    private let run: Recording
    /// One sender, from --source or the SDP's source-filter, and which of them said so.
    private let sourceFilter: Endpoint.Address?
    private let sourceFlag: String
    private var sockets: [UDPReceiver]
    private var roles: [String]

    private let progress: Progress
    private let status = LiveStatus()
    private let metrics: HTTPEndpoint?
    private let setupFailures: Int
    /// The live page's last minute of each stream.
    private let history = LiveHistory()
    /// --reconnect: a lost RTSP connection, or a stream silent for --timeout (10 s by default), is set
    /// up again, backing off from 1 s to 30 s; the outputs go on.
    private var reconnection: RTSPReconnection
    private var start: Int64 = 0
    private var lastPacket: Int64 = 0
    /// When each socket last had a datagram, for /healthz; nil before its first.
    private var lastReceived: [Int64?] = []
    /// Datagrams (or interleaved frames) in the loop's turn, and when it began (--batch-ms).
    private var received = 0
    private var turnBegan: Int64 = 0
    /// How long a turn gathers input with the media in the RTSP connection, and otherwise (ms): set
    /// once the sockets are open, whose receive buffers it reads.
    private var batch = (overTCP: 0, otherwise: 0)
    private var batchMilliseconds: Int { rtsp?.transport == .tcp ? batch.overTCP : batch.otherwise }
    /// The loop's turns, each a wake-up: what a camera costs most.
    private var turns = 0
    private var filtered = 0
    private var silenceReported = false
    /// Nothing at all within 5 s of the start (a wrong port, a firewall, a server that sends
    /// nothing after PLAY) is said once, whatever --timeout says.
    private var mediaSeen = false, mediaWarned = false
    private var hangupsSeen: Int32 = 0
    /// Whether the RTSP connection is polled: not once it went away (over TCP the media went with it
    /// and the run ends, exit 1; over UDP the media goes on).
    private var pollsConnection: Bool
    /// Every descriptor the loop waits on: the UDP sockets, the RTSP connection, the metrics
    /// endpoint's; remade when that set changes.
    private var polled: [Int32] = []
    private var poll = SocketPoll([])
    private var metricsGeneration = -1

    private var timeout: Int64? { options.timeoutNanoseconds }
    /// Why the RTSP session's media has stopped: its TCP connection lost, or the session ended.
    /// (Not while it is being set up again.)
    private var rtspEnded: String? {
        reconnection.isUnderway ? nil : rtsp?.connectionLost.flatMap { rtsp?.transport == .tcp ? $0 : nil } ?? rtsp?.sessionEnded
    }

    /// `metrics`: the endpoint `--metrics` opened; `setupFailures`: the tries at the first RTSP session that failed.
    init(options: Options, rtsp: RTSPPull?, metrics: HTTPEndpoint?, setupFailures: Int) throws {
        self.options = options
        self.rtsp = rtsp
        self.metrics = metrics
        self.setupFailures = setupFailures
        let sdp = try rtsp?.sdp ?? Run.loadSDP(options)
        let security = try Security.decryptor(options: options, sdp: sdp, inCapture: false)
        sessions = try options.recordsSessions ? SessionFanOut(options: options, sessions: SessionFanOut.load(options),
                                                               borrowsPayloads: false) : nil
        single = options.allStreams || sessions != nil ? nil : try Run(options: options, sdp: sdp, security: security)
        fanOut = options.allStreams ? StreamFanOut(options: options, sdp: sdp, borrowsPayloads: false) : nil
        run = single ?? fanOut.map { $0 as Recording } ?? sessions!
        // Filtered here, and joined source-specific when the address is a multicast group.
        let sourceText = options.sourceFilter ?? sdp?.sourceFilter
        sourceFlag = options.sourceFilter != nil ? "--source" : "the SDP's source-filter"
        if let sourceText {
            guard let parsed = SocketAddress.parse(sourceText) else {
                throw RunError(description: "\(sourceFlag) '\(sourceText)' is not a numeric IPv4 or IPv6 address")
            }
            sourceFilter = SocketAddress.address(parsed)
        } else {
            sourceFilter = nil
        }
        (sockets, roles) = (rtsp?.sockets ?? [], rtsp?.roles ?? [])
        pollsConnection = rtsp != nil
        progress = Progress(enabled: options.showsProgress)
        reconnection = RTSPReconnection(silence: options.timeoutNanoseconds ?? 10_000_000_000)
        let plan = options.rtsp != nil ? [] : sessions?.sessions.flatMap({ LiveSockets.plan($0.sdp, options: options) })
            ?? LiveSockets.plan(sdp, options: options)
        try openSockets(plan, source: sourceText)
        let buffer = sockets.map(\.grantedReceiveBufferBytes).min() ?? 0
        let described = [sdp].compactMap { $0 } + (sessions?.sessions.map(\.sdp) ?? [])
        batch = (options.gatherMilliseconds(overTCP: true),
                 options.gatherMilliseconds(overTCP: false, receiveBufferBytes: buffer, sdps: described))
        if let rtsp, !options.quiet { Terminal.printError("rtsp: playing \(rtsp.url) over \(rtsp.transport.words)\n") }
        try setUpFeedback()
    }

    // MARK: Setting up

    private func openSockets(_ plan: [LiveSockets.Listen], source: String?) throws {
        for listen in plan {
            do {
                sockets.append(try LiveSockets.open(listen, source: source, flag: sourceFlag, options: options))
                roles.append(listen.role)
            } catch let error as RunError where !listen.required {
                if !options.quiet { Terminal.printError("warning: \(error.description); no RTCP from there\n") }
            }
        }
        guard !options.quiet else { return }
        if let range = options.portRange, sockets.count > 1 {
            Terminal.printError("listening on udp \(sockets[0].boundDescription) to \(range.upperBound) (\(sockets.count) ports)\n")
        } else if !sockets.isEmpty {
            var lines: [String] = []
            for (socket, role) in zip(sockets, roles) {
                var line = "listening on udp \(socket.boundDescription)" + (sockets.count > 1 ? " (\(role))" : "")
                if let group = socket.joinedGroup {
                    line += " (joined multicast group \(group)"
                        + (socket.joinedSource.map { ", source-specific for \($0)" } ?? "") + ")"
                }
                if socket.grantedReceiveBufferBytes < options.receiveBufferBytes {
                    line += "\nwarning: the kernel granted a receive buffer of \(socket.grantedReceiveBufferBytes) bytes, "
                        + "not the \(options.receiveBufferBytes) asked for (raise net.core.rmem_max, or run as root)"
                }
                lines.append(line)
            }
            Terminal.printError(lines.joined(separator: "\n") + "\n")
        }
    }

    /// Each run's RTCP. A stream's RTCP port is the one after its RTP port, where that is listened on.
    private func setUpFeedback() throws {
        func socket(at port: UInt16) -> UDPReceiver? { sockets.first { $0.localEndpoint.port == port } }
        try fanOut?.giveFeedback { [unowned self] key, run in
            try talkBack(run, from: socket(at: key.port &+ 1) ?? socket(at: key.port))
        }
        try sessions?.giveFeedback { [unowned self] _, run in
            guard let line = run.sdp?.video ?? run.sdp?.media.first else { return nil }
            return try talkBack(run, from: socket(at: line.expectedRTCPPort) ?? socket(at: line.port))
        }
        single?.feedback = try singleTalkBack()
    }

    /// RTCP goes out of a stream's RTCP socket, or its RTP socket with rtcp-mux; over RTSP's TCP
    /// connection in its RTCP channel. A run a stream or a session speaks for its own.
    private func talkBack(_ run: Run, from socket: UDPReceiver?) throws -> RTCPFeedback? {
        guard !options.noRTCP else { return nil }
        let send: ([UInt8], Endpoint) throws -> Void
        if let rtsp, rtsp.transport == .tcp {
            send = { packet, _ in try rtsp.sendInterleaved(packet) }
        } else {
            guard let socket = socket ?? sockets.first else { return nil }
            send = { packet, to in try packet.withUnsafeBytes { try socket.send($0, to: to) } }
        }
        return try RTCPFeedback(options: run.options, sdp: run.sdp, receiver: run.receiver, send: send,
                                destination: rtsp?.rtcpDestination, start: Terminal.monotonicNanoseconds())
    }

    private func singleTalkBack() throws -> RTCPFeedback? {
        try single.flatMap { try talkBack($0, from: zip(sockets, roles).first { $0.1 == "video RTCP" }?.0) }
    }

    /// The metrics endpoint listening at `target`, said (`named` names it in errors).
    static func serveMetrics(at target: (address: String, port: UInt16), named: String, quiet: Bool, say prefix: String = "") throws
        -> HTTPEndpoint {
        let metrics: HTTPEndpoint
        do {
            metrics = try HTTPEndpoint(target)
        } catch {
            throw RunError(description: "\(named) \(error)")
        }
        if !quiet {
            Terminal.printError(prefix + "metrics on http://\(metrics.localEndpoint)/metrics, the live page on http://\(metrics.localEndpoint)/\n")
        }
        return metrics
    }

    private func makePoll() {
        polled = sockets.map(\.descriptor) + (pollsConnection ? [rtsp!.descriptor] : []) + (metrics?.descriptors ?? [])
        poll = SocketPoll(polled)
        metricsGeneration = metrics?.generation ?? 0
    }

    // MARK: The loop

    /// Receives until the run ends, then reports; the exit status.
    func receive() throws -> Int32 {
        // A try at setting the session up again, in flight when the run ends by an error, ends too.
        defer { reconnection.cancel() }
        try StopSignal.install()
        try HangupSignal.install()
        hangupsSeen = HangupSignal.count
        start = Terminal.monotonicNanoseconds()
        lastPacket = start
        lastReceived = [Int64?](repeating: nil, count: sockets.count)
        makePoll()
        var stopReason = "stopped"
        try run.writing {
            if let rtsp { try deliverEarly(rtsp) }
            turns: while true {
                if let reason = try reasonToStop() {
                    stopReason = reason
                    break turns
                }
                try reconnectIfDue()
                if let reason = timesOut() {
                    stopReason = reason
                    break turns
                }
                try receiveOnce()
                try afterTurn()
            }
        }
        return try finish(stopReason)
    }

    /// Why the run stops before this turn of the loop, if it does; a SIGHUP reopens the outputs
    /// (a config's source leaves SIGHUP to the config's reload).
    private func reasonToStop() throws -> String? {
        if let why = options.stopReason { return why }
        if let failure = run.failure { return "stopped: \(failure)" }
        if let why = options.supervised?.stop.reasonAtKeyframe {
            if !run.takesMore { return "stopped at a keyframe: \(why)" }
            run.endBeforeNextKeyframe()
        }
        if !run.takesMore { return "stopped after \(options.frames!) frames" }
        if options.supervised == nil && HangupSignal.count != hangupsSeen {
            // Log rotation: the files were moved; new ones at their paths, from a keyframe.
            hangupsSeen = HangupSignal.count
            try run.reopen()
            if !options.quiet { Terminal.printError("SIGHUP: the outputs reopen (--out at the next keyframe)\n") }
        }
        return nil
    }

    /// --reconnect: the session lost, or silent for --timeout, is set up again while the loop goes on.
    private func reconnectIfDue() throws {
        guard options.reconnect, let current = rtsp else { return }
        let now = Terminal.monotonicNanoseconds()
        if reconnection.isUnderway {
            if let next = reconnection.step(options: options, now: now) { try resume(next) }
        } else if let why = rtspEnded ?? reconnection.silent(now: now, lastPacket: lastPacket) {
            lose(current, because: why, now: now)
        }
    }

    /// The session given up: its RTCP ended, torn down, its sockets out of the poll.
    private func lose(_ current: RTSPPull, because why: String, now: Int64) {
        single?.endFeedback(now: now)
        try? current.teardown()
        progress.clear()
        (sockets, roles, lastReceived) = ([], [], [])
        pollsConnection = false
        makePoll()
        reconnection.begin(after: why, options: options, now: now)
    }

    /// The session set up again, with its sockets, RTCP and poll.
    private func resume(_ next: RTSPPull) throws {
        rtsp = next
        try deliverEarly(next)
        (sockets, roles) = (next.sockets, next.roles)
        single?.feedback = try singleTalkBack()
        pollsConnection = true
        lastReceived = [Int64?](repeating: nil, count: sockets.count)
        makePoll()
        lastPacket = Terminal.monotonicNanoseconds()
    }

    /// Why the run stops for time: the session ended, --duration passed, or --exit-on-timeout after
    /// --timeout of silence (which is said once, either way).
    private func timesOut() -> String? {
        if let rtspEnded { return "stopped: \(rtspEnded)" }
        let now = Terminal.monotonicNanoseconds()
        if let passed = options.durationPassed(since: start, now: now) { return passed }
        if let timeout, now - lastPacket >= timeout, !silenceReported, !reconnection.isUnderway {
            silenceReported = true
            progress.clear()
            if !options.quiet { Terminal.printError("no packets for \(options.timeout!) s\n") }
            options.supervised?.announce?("silent", [("seconds", .double(options.timeout!))])
            if options.exitOnTimeout { return "stopped: no packets for \(options.timeout!) s" }
        }
        return nil
    }

    /// One turn's input: a batch from the one socket, or whatever of the sockets, the RTSP
    /// connection and the metrics endpoint is ready within the turn's wait.
    private func receiveOnce() throws {
        gather(after: received)
        received = 0
        turns += 1
        let wait = run.waitMilliseconds(now: Terminal.monotonicNanoseconds())
        if sockets.count == 1 && rtsp == nil && metrics == nil {
            // One socket: block in recvmmsg itself, one system call a batch.
            try sockets[0].wait(milliseconds: wait)
            try drain(sockets[0])
            return
        }
        try poll.wait(milliseconds: wait) { i in
            if i < sockets.count {
                let before = received
                try drain(sockets[i])
                if received > before { lastReceived[i] = Terminal.monotonicNanoseconds() }
            } else if let metrics, metrics.descriptors.contains(polled[i]) {
                metrics.ready(polled[i], now: Terminal.monotonicNanoseconds()) { path in
                    page(path, now: Terminal.monotonicNanoseconds())
                }
            } else if let rtsp, rtsp.connectionLost == nil {
                let before = rtsp.interleavedFrames
                do {
                    let now = Terminal.monotonicNanoseconds()
                    try rtsp.readable { try run.receive(datagram: $0, source: $1, destination: $2, arrival: now, rtcpOnly: $3) }
                } catch let error as ConnectionError {
                    rtsp.connectionClosed(error.description)
                }
                received += rtsp.interleavedFrames - before
            }
        }
        if rtsp?.connectionLost != nil && pollsConnection {
            pollsConnection = false
            makePoll()
        }
        if let metrics {
            metrics.tick(now: Terminal.monotonicNanoseconds())
            if metrics.generation != metricsGeneration { makePoll() }
        }
    }

    /// --batch-ms: the rest of the turn's time asleep, so that each wake-up takes what came meanwhile
    /// (a wake-up, not a packet, is most of what a camera costs). Not after a turn that took
    /// nothing: a quiet input is waited on in the poll, which wakes at once when it speaks again,
    /// so that a request from the supervisor is answered within a turn's wait, not two.
    private func gather(after received: Int) {
        guard batchMilliseconds > 0 else { return }
        let now = Terminal.monotonicNanoseconds()
        guard received > 0 else {
            turnBegan = now
            return
        }
        let wake = turnBegan &+ Int64(batchMilliseconds) * 1_000_000
        if wake > now { Terminal.sleep(nanoseconds: wake - now) }
        turnBegan = Terminal.monotonicNanoseconds()
    }

    /// What came with PLAY's reply or before it, into the run.
    private func deliverEarly(_ session: RTSPPull) throws {
        let now = Terminal.monotonicNanoseconds()
        try session.deliverEarly { try run.receive(datagram: $0, source: $1, destination: $2, arrival: now, rtcpOnly: $3) }
    }

    /// One batch from `socket`, into the run.
    private func drain(_ socket: UDPReceiver) throws {
        let count = try socket.receive()
        let now = Terminal.monotonicNanoseconds()
        let local = socket.localEndpoint
        for i in 0..<count {
            let (bytes, source) = socket.datagram(i)
            if let sourceFilter, source?.address != sourceFilter {
                filtered += 1
                continue
            }
            try run.receive(datagram: bytes, source: source, destination: local, arrival: socket.arrival(i, now: now))
        }
        received += count
    }

    /// After each turn: silence said, the clocks of the run and the session, the status line.
    private func afterTurn() throws {
        let now = Terminal.monotonicNanoseconds()
        if !mediaSeen && !mediaWarned && received == 0 && now - start >= 5_000_000_000 {
            mediaWarned = true
            progress.clear()
            if !options.quiet { Terminal.printError("warning: no media in 5 s \(listening())\n") }
        }
        if received > 0 {
            mediaSeen = true
            lastPacket = now
            silenceReported = false
            reconnection.received(now: now)
        }
        try run.tick(now: now)
        try rtsp?.tick(now: now)
        options.supervised?.inbox?.serve(self, now: now)
        if options.servesLivePage && history.due(now: now) { history.sample(run.followedStreams, now: now) }
        if progress.due(now: now) {
            if let single {
                progress.show(status.line(now: now, start: start, receiver: single.receiver, rtmp: single.sink.rtmp?.statistics))
            } else {
                let followed = fanOut.map { "\($0.videoStreams) video streams" } ?? "\(sessions!.runs.count) sessions"
                progress.show("\(followed), \(run.framesWritten) frames written, \((now - start) / 1_000_000_000) s")
            }
        }
    }

    /// What the run listens on (or the RTSP session set up), for messages about what does not come.
    private func listening() -> String {
        rtsp?.mediaSetUp ?? "on udp " + zip(sockets, roles).prefix(4).map { "\($0.boundDescription) (\($1))" }.joined(separator: ", ")
            + (sockets.count > 4 ? " and \(sockets.count - 4) more ports" : "")
    }

    /// What the metrics endpoint serves at `path`.
    private func page(_ path: String, now: Int64) -> HTTPAnswer {
        switch path {
        case "/":
            return HTTPAnswer(200, "OK", "text/html; charset=utf-8", LivePage.html([liveSection(now: now, source: nil)], now: now, started: start))
        case _ where path.hasPrefix("/snapshot/"):
            guard let jpeg = snapshot(path, now: now) else {
                return HTTPAnswer(404, "Not Found", "text/plain", "no keyframe of such a stream yet\n")
            }
            return HTTPAnswer(200, "OK", "image/jpeg", jpeg, extraHeaders: "Cache-Control: no-store\r\n")
        case "/metrics":
            var e = PrometheusExposition()
            expose(into: &e, now: now)
            return HTTPAnswer(200, "OK", PrometheusExposition.contentType, e.text)
        case "/healthz":
            let silent = silentInputs(now: now)
            return silent.isEmpty ? HTTPAnswer(200, "OK", "text/plain", "ok\n")
                : HTTPAnswer(503, "Service Unavailable", "text/plain", "silent: " + silent.joined(separator: ", ") + "\n")
        default:
            return HTTPAnswer(404, "Not Found", "text/plain", "/, /metrics, /healthz or /snapshot/SSRC.jpg\n")
        }
    }

    /// The live page's section of the streams followed (each read once); `source` names the run's
    /// in a config's page.
    func liveSection(now: Int64, source: String?) -> LivePage.Section {
        let streams = run.followedStreams
        return LivePage.Section(name: source, streams: streams.count, cards: LivePage.cards(streams, history: history, now: now, source: source))
    }

    /// The picture of the last keyframe of the stream at `path` (`/snapshot/[SOURCE/]SSRC.jpg`).
    func snapshot(_ path: String, now: Int64, source: String? = nil) -> [UInt8]? {
        var jpeg: [UInt8]?
        run.forEachStream { f in
            if jpeg == nil, let snapshot = f.snapshot, LivePage.snapshotPath(f.statistics.ssrc, source: source) == path {
                jpeg = snapshot.jpeg(now: now)
            }
        }
        return jpeg
    }

    /// The run's samples for /metrics: its streams' and its own.
    func expose(into e: inout PrometheusExposition, now: Int64) {
        run.forEachStream { e.stream($0, lastPacketAge: Double(now - $0.lastArrival) / 1e9) }
        var runs: [Run] = []
        run.forEachRun { runs.append($0) }
        e.counts(of: runs)
        e.sample("rtprecv_datagrams_total", type: "counter", help: "datagrams received, RTP and RTCP",
                 value: Double(run.datagrams))
        e.sample("rtprecv_kernel_drops_total", type: "counter", help: "datagrams the kernel dropped (receive buffers full)",
                 value: Double(sockets.reduce(0) { $0 + Int($1.kernelDrops) }))
        e.sample("rtprecv_bytes_written_total", type: "counter", help: "Annex-B bytes written",
                 value: Double(run.bytesWritten))
        e.sample("rtprecv_last_packet_age_seconds", type: "gauge", help: "time since the last packet of any stream",
                 value: Double(now - lastPacket) / 1e9)
        e.rtspSetup(failures: setupFailures, underway: false)
        e.sample("rtprecv_rtsp_reconnects_total", type: "counter", help: "RTSP sessions set up again (--reconnect)",
                 value: Double(reconnection.reconnects))
        e.sample("rtprecv_rtsp_reconnect_failures_total", type: "counter", help: "tries to set an RTSP session up again that failed",
                 value: Double(reconnection.failedAttempts))
        e.sample("rtprecv_rtsp_reconnecting", type: "gauge", help: "1 while a lost RTSP session is being set up again",
                 value: reconnection.isUnderway ? 1 : 0)
        var decoded = 0
        run.forEachStream { decoded += $0.snapshot?.decoded ?? 0 }
        e.sample("rtprecv_snapshots_decoded_total", type: "counter", help: "keyframes decoded for the live page's pictures",
                 value: Double(decoded))
    }

    /// For /healthz: the inputs silent for --timeout (5 s by default), RTP ports only (RTCP ports
    /// may rightly hear nothing); empty when all is well.
    func silentInputs(now: Int64) -> [String] {
        if reconnection.isUnderway, let rtsp { return ["\(rtsp.url) (reconnecting)"] }
        let silence = timeout ?? 5_000_000_000
        return sockets.indices.filter { roles[$0].hasSuffix("RTP") && (lastReceived[$0].map { now - $0 > silence } ?? true) }
            .map { sockets[$0].boundDescription }
            + (sockets.isEmpty && (received == 0 && run.datagrams == 0 || now - lastPacket > silence)
                ? [rtsp.map { $0.url.description } ?? "input"] : [])
    }

    // MARK: The end

    /// Ends the run: RTCP's BYE, the session torn down, the outputs finished, and the report.
    private func finish(_ stopReason: String) throws -> Int32 {
        progress.clear()
        // Before the report: a try in flight stops, and a session it set up is torn down.
        reconnection.cancel()
        run.endFeedback(now: Terminal.monotonicNanoseconds())
        try? rtsp?.teardown()
        try run.finish()
        if !options.quiet { Terminal.printError("\(stopReason)\n") }
        let drops = sockets.reduce(0) { $0 + Int($1.kernelDrops) }
        // A port range as its ends, not a thousand addresses.
        let bound = options.portRange != nil && sockets.count > 1
            ? "\(sockets[0].boundDescription) to \(sockets.last!.localEndpoint.port) (\(sockets.count) ports)"
            : sockets.map(\.boundDescription).joined(separator: ", ")
        let buffer = sockets.first?.grantedReceiveBufferBytes ?? 0
        var summary: String
        var json: [(String, JSON)]
        if let rtsp, sockets.isEmpty {
            summary = "rtsp \(rtsp.url) over TCP: \(run.datagrams) interleaved frames"
            json = [("input", .string(rtsp.url.description))]
        } else {
            summary = "udp \(bound): \(run.datagrams) datagrams"
            if filtered > 0 { summary += ", \(filtered) from other senders dropped (\(sourceFlag))" }
            summary += "; kernel dropped \(drops) (receive buffer \(buffer) bytes)"
            json = [("input", .string(rtsp.map { $0.url.description } ?? "udp \(bound)")), ("kernel_drops", .int(drops)),
                    ("receive_buffer_bytes", .int(buffer)), ("other_sender", .int(filtered))]
        }
        if batchMilliseconds > 0 {
            // A turn's interleaved frames arrive as it reads them; a datagram keeps the kernel's time.
            summary += "; input gathered \(batchMilliseconds) ms a turn (--batch-ms), which "
                + (rtsp?.transport == .tcp ? "the jitter and write latency include" : "the write latency includes")
        }
        if let rtsp {
            if let receiver = single?.receiver {
                rtsp.noteStreams(videoSSRC: receiver.selected?.ssrc ?? receiver.previousStreams.last?.ssrc)
            }
            summary += "\n" + rtsp.summary + reconnection.summary
            json.append(("rtsp", .object(rtsp.json + reconnection.json)))
        }
        json.append(("seconds", .double(Double(Terminal.monotonicNanoseconds() - start) / 1e9)))
        json += [("batch_ms", .int(batchMilliseconds)), ("turns", .int(turns))]
        try run.report(Report.Input(summary: summary, warning: nil, json: json))
        if let failure = run.failure { throw RunError(description: failure) }
        // With --reconnect, a session that ended while the run's time ran out was waiting to be set up again.
        if let rtspEnded, !options.reconnect { throw RunError(description: rtspEnded) }
        return run.exitStatus(where: "came \(listening())", quiet: options.quiet)
    }
}
