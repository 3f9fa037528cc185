import RTPCore
import RTSPInput
import SystemIO

/// `--reconnect` for an RTSP pull: when the connection is lost or the stream falls silent, a fresh
/// session, tried again after 1 s, 2 s, 4 s … up to 30 s, each delay ±25% so that many clients of
/// one server do not come back in step. The live loop goes on meanwhile (its metrics endpoint,
/// signals, --duration): the delay is a deadline it checks, and each try runs on a thread of its
/// own. It counts the reconnects and the time without media.
struct RTSPReconnection {
    /// How long without a packet counts as a lost stream.
    let silence: Int64
    private(set) var reconnects = 0
    private(set) var failedAttempts = 0
    private(set) var lostNanoseconds: Int64 = 0
    private var lostSince: Int64?
    /// While under way: why the session was lost, the waits between tries, when the next starts, the try.
    private var why: String?
    private var backoff = RTSPBackoff()
    private var nextTry: Int64 = 0
    private var attempt: RTSPSetupAttempt?

    init(silence: Int64) { self.silence = silence }

    /// Whether a session is being set up again.
    var isUnderway: Bool { why != nil }

    /// Why to reconnect now, when the stream has been silent too long.
    func silent(now: Int64, lastPacket: Int64) -> String? {
        now - lastPacket >= silence ? "no media for \(silence / 1_000_000_000) s" : nil
    }

    /// A packet came: the time without media ends.
    mutating func received(now: Int64) {
        if let since = lostSince {
            lostNanoseconds += now - since
            lostSince = nil
        }
    }

    /// The session is lost: a fresh one is tried after the first delay.
    mutating func begin(after why: String, options: Options, now: Int64) {
        lostSince = lostSince ?? now
        self.why = why
        backoff = RTSPBackoff()
        options.supervised?.announce?("reconnecting", [("reason", .string(why))])
        scheduleTry(options: options, now: now)
    }

    /// Each turn while under way: a try started when it is due; the session it set up, once it has.
    mutating func step(options: Options, now: Int64) -> RTSPPull? {
        guard isUnderway else { return nil }
        if attempt == nil && now >= nextTry { attempt = RTSPSetupAttempt(options: options) }
        guard let outcome = attempt?.outcome else { return nil }
        attempt = nil
        switch outcome {
        case .success(let pull):
            reconnects += 1
            why = nil
            if !options.quiet { Terminal.printError("rtsp: reconnected over \(pull.transport.words)\n") }
            options.supervised?.announce?("reconnected", [("failed_tries", .int(failedAttempts))])
            return pull
        case .failure(let error):
            failedAttempts += 1
            if !options.quiet { Terminal.printError("rtsp: reconnect failed: \(error)\n") }
            options.supervised?.announce?("error", [("message", .string(Terminal.masked("reconnect failed: \(error)")))])
            scheduleTry(options: options, now: now)
            return nil
        }
    }

    /// The run ends while under way: a try in flight is stopped, and a session it set up torn down.
    mutating func cancel() {
        attempt?.cancel()
        attempt = nil
        why = nil
    }

    private mutating func scheduleTry(options: Options, now: Int64) {
        let wait = backoff.next()
        if !options.quiet { Terminal.printError("rtsp: \(why ?? "lost"); reconnecting in \(wait.said)\n") }
        nextTry = now + wait.nanoseconds
    }

    var summary: String {
        reconnects == 0 && failedAttempts == 0 ? ""
            : "; \(reconnects) reconnects (\(failedAttempts) failed tries), \(lostNanoseconds / 1_000_000) ms without media"
    }

    var json: [(String, JSON)] {
        [("reconnects", .int(reconnects)), ("reconnect_failures", .int(failedAttempts)), ("lost_ms", .int(Int(lostNanoseconds / 1_000_000)))]
    }
}

/// The waits between tries at setting a session up: 1 s, 2 s, 4 s … up to 30 s, each ±25% so that
/// many clients of one server do not come back in step.
struct RTSPBackoff {
    private var delay = 1.0
    private var generator = SystemRandomNumberGenerator()

    /// The next wait, and as said.
    mutating func next() -> (nanoseconds: Int64, said: String) {
        let jittered = delay * (0.75 + Double(generator.next() % 1000) / 2000)
        delay = min(30, delay * 2)
        return (Int64(jittered * 1e9), "\(Double(Int(jittered * 10)) / 10) s")
    }
}

/// One try at setting a session up, on a thread of its own: a server slow to answer (up to 10 s a
/// request) holds only this thread. Where no thread can be made, the try runs in place.
final class RTSPSetupAttempt: @unchecked Sendable {
    private let lock = ConditionLock()
    private var result: Result<RTSPPull, any Error>?
    private let stop = StopRequest()
    private var thread: WorkerThread?

    init(options: Options) {
        let stop = stop
        thread = WorkerThread { [self] in
            let tried = Result { try RTSPPull.open(options: options, cancel: stop) }
            lock.locked { result = tried }
        }
        if thread == nil { result = Result { try RTSPPull.open(options: options) } }
    }

    /// How the try went, once it has.
    var outcome: Result<RTSPPull, any Error>? {
        guard let done = lock.locked({ result }) else { return nil }
        thread?.join()
        return done
    }

    /// Stops the try (within the 200 ms a reply is waited in steps of) and tears down what it set up.
    func cancel() {
        stop.request("the run ended")
        thread?.join()
        if case .success(let pull) = lock.locked({ result }) { try? pull.teardown() }
    }
}
