import HTTPEndpoint
import RTPCore
import RTSPInput
import SystemIO

/// A live run's first RTSP session, set up on a thread of its own (`RTSPSetupAttempt`) while the
/// run already answers: its metrics endpoint (/healthz says what is being set up and why the last
/// try failed), a signal, --duration, and a config's supervisor, which reads `SetupState` from
/// the source's inbox. Without --reconnect the first failure ends the run; with it a server that
/// cannot set the session up yet (a camera still booting, or down) is tried again after the
/// reconnection's waits (`RTSPBackoff`) until it can, or until the run ends, which is then an
/// error naming the last failure.
struct RTSPStartup {
    let options: Options
    /// The run's own endpoint (`--metrics`; a config's is its supervisor's).
    let metrics: HTTPEndpoint?
    private(set) var state: SetupState
    private let started = Terminal.monotonicNanoseconds()

    init(options: Options, metrics: HTTPEndpoint?) {
        self.options = options
        self.metrics = metrics
        state = SetupState(url: (try? RTSPURL(parsing: options.rtsp ?? "").description) ?? "the RTSP server")
    }

    /// The session, once set up.
    mutating func session() throws -> RTSPPull {
        try StopSignal.install()
        // Log rotation's SIGHUP during a long wait for a camera must not end the run (its default
        // action): counted, with no output open yet to reopen.
        try HangupSignal.install()
        if options.rtsp?.lowercased().hasPrefix("rtsps://") == true, [.udp, .multicast].contains(options.rtspTransport), !options.quiet {
            Terminal.printError("rtsp: warning: over \(options.rtspTransport.rawValue), the media of an rtsps:// session goes outside TLS, "
                                + "in the clear\n")
        }
        options.supervised?.inbox?.settingUp = state
        defer { options.supervised?.inbox?.settingUp = nil }
        var backoff = RTSPBackoff()
        while true {
            let attempt = RTSPSetupAttempt(options: options)
            let outcome: Result<RTSPPull, any Error>
            do {
                outcome = try turn { attempt.outcome }
            } catch {
                attempt.cancel()
                throw error
            }
            let failure: any Error
            switch outcome {
            case .success(let pull): return pull
            case .failure(let error): failure = error
            }
            guard options.reconnect else { throw failure }
            state.failures += 1
            state.lastFailure = Terminal.masked("\(failure)")
            let wait = backoff.next()
            if !options.quiet { Terminal.printError("rtsp: \(failure); trying again in \(wait.said)\n") }
            options.supervised?.announce?("error", [("message", .string(Terminal.masked("setup failed: \(failure)")))])
            options.supervised?.inbox?.settingUp = state
            let wakeUp = Terminal.monotonicNanoseconds() + wait.nanoseconds
            _ = try turn { Terminal.monotonicNanoseconds() >= wakeUp ? true : nil }
        }
    }

    /// Turns of 50 ms (the endpoint served meanwhile) until `done` answers, or the run ends first.
    private func turn<Answer>(until done: () -> Answer?) throws -> Answer {
        while true {
            if let answer = done() { return answer }
            if let ended = endReason() {
                throw RunError(description: "\(ended) before the session could be set up" + (state.lastFailure.map { ": \($0)" } ?? ""))
            }
            if let metrics {
                metrics.serve(milliseconds: 50) { page($0) }
            } else {
                Terminal.sleep(nanoseconds: 50_000_000)
            }
        }
    }

    /// A signal, a config's stop, or --duration, counted from the start.
    private func endReason() -> String? {
        options.stopReason ?? options.supervised?.stop.reasonAtKeyframe.map { "stopped: \($0)" }
            ?? options.durationPassed(since: started, now: Terminal.monotonicNanoseconds())
    }

    /// What the endpoint answers while the session is set up.
    private func page(_ path: String) -> HTTPAnswer {
        switch path {
        case "/metrics":
            var e = PrometheusExposition()
            e.rtspSetup(failures: state.failures, underway: true)
            return HTTPAnswer(200, "OK", PrometheusExposition.contentType, e.text)
        case "/healthz":
            return HTTPAnswer(503, "Service Unavailable", "text/plain", state.said + "\n")
        case "/":
            let section = LivePage.Section(name: nil, streams: 0, cards: "", state: state.said)
            return HTTPAnswer(200, "OK", "text/html; charset=utf-8",
                              LivePage.html([section], now: Terminal.monotonicNanoseconds(), started: started))
        default:
            return HTTPAnswer(404, "Not Found", "text/plain", "nothing yet: \(state.said)\n")
        }
    }
}

/// What a run setting its first RTSP session up says of it (no credentials).
struct SetupState: Sendable {
    /// The server's URL.
    var url: String
    /// The tries that failed, and the last one's error.
    var failures = 0
    var lastFailure: String?

    var said: String {
        // The error names the URL too, mostly.
        let why = lastFailure.map { $0.hasPrefix(url + ": ") ? String($0.dropFirst(url.count + 2)) : $0 }
        return "setting up \(url)" + (why.map { ": \(failures) \(failures == 1 ? "try" : "tries") failed, the last: \($0)" } ?? "")
    }
}

extension PrometheusExposition {
    /// Whether the run's first RTSP session is still being set up, and the tries that failed.
    mutating func rtspSetup(failures: Int, underway: Bool) {
        sample("rtprecv_rtsp_setting_up", type: "gauge", help: "1 while the run's first RTSP session is being set up",
               value: underway ? 1 : 0)
        sample("rtprecv_rtsp_setup_failures_total", type: "counter",
               help: "tries to set the run's first RTSP session up that failed (--reconnect)", value: Double(failures))
    }
}
