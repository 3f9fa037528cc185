import RTPCore
import SystemIO

/// What the fan-outs share (`StreamFanOut`, a run a stream; `SessionFanOut`, a run an SDP): a `Run`
/// per key, each with its own outputs, and each isolated: one whose outputs fail (cannot be opened,
/// a full disk, a directory gone) is stopped and said at once, the others go on, and the whole
/// run ends with exit status 1. Subclasses route the datagrams (`receive`) and say what they
/// followed (`report`).
class FanOut<Key: Hashable & CustomStringConvertible>: Recording {
    let options: Options
    /// What a key is called in messages: "stream", "session".
    private let noun: String
    private(set) var runs: [Key: Run] = [:]
    private(set) var order: [Key] = []
    /// Keys stopped because their outputs failed, with why; their datagrams are dropped.
    private(set) var failed: [Key: String] = [:]
    private var failedOrder: [Key] = []
    var datagramCount = 0
    /// Datagrams no run took.
    var datagramsNotTaken = 0

    /// --report without a key's field in its path: one page, every run's streams on one timeline.
    let timeline: ReportTimeline?

    init(options: Options, noun: String, sharesReport: Bool) {
        self.options = options
        self.noun = noun
        timeline = sharesReport ? ReportTimeline() : nil
    }

    func receive(datagram: UnsafeRawBufferPointer, source: Endpoint?, destination: Endpoint?, arrival: Int64, rtcpOnly: Bool) throws {
        preconditionFailure("a fan-out routes datagrams by its own key")
    }

    /// Adds the run `make` makes for `key`, and hands it `body`; a failure to open its outputs
    /// stops that key alone.
    func add(_ key: Key, _ make: () throws -> Run, then body: (Run) throws -> Void = { _ in }) throws {
        try isolating(key) {
            let run = try make()
            if let gathered { run.gatherWrites(within: gathered) }
            run.feedback = try makeFeedback?(key, run)
            runs[key] = run
            order.append(key)
            try body(run)
        }
    }

    /// Live: the RTCP of each run, those there now and those to come.
    private var makeFeedback: ((Key, Run) throws -> RTCPFeedback?)?

    func giveFeedback(_ make: @escaping (Key, Run) throws -> RTCPFeedback?) throws {
        makeFeedback = make
        for key in order { runs[key]!.feedback = try make(key, runs[key]!) }
    }

    /// Runs `body` for `key`; an output of it that fails stops that key alone.
    func isolating(_ key: Key, _ body: () throws -> Void) throws {
        do {
            try Run.writing(body)
        } catch let error as RunError {
            stop(key, because: error.description)
        }
    }

    private func stop(_ key: Key, because why: String) {
        if let run = runs.removeValue(forKey: key) {
            order.removeAll { $0 == key }
            stoppedRTPPackets += run.rtpPackets
            try? run.finish()
        }
        failed[key] = why
        failedOrder.append(key)
        if !options.quiet { Terminal.printError("error: \(noun) \(key) stopped, the others go on: \(why)\n") }
    }

    /// Memory whose bytes each run's writes may gather, those there now and those to come.
    private var gathered: UnsafeRawBufferPointer?

    func gatherWrites(within memory: UnsafeRawBufferPointer) {
        gathered = memory
        for run in runs.values { run.gatherWrites(within: memory) }
    }

    func refers(to memory: UnsafeRawBufferPointer) -> Bool { runs.values.contains { $0.refers(to: memory) } }
    func stopReferring(to memory: UnsafeRawBufferPointer) { for run in runs.values { run.stopReferring(to: memory) } }
    /// Each run stops at its own `--frames`; the input goes on while any takes more.
    var takesMore: Bool { runs.isEmpty || runs.values.contains { $0.takesMore } }
    func endBeforeNextKeyframe() { for run in runs.values { run.endBeforeNextKeyframe() } }
    var framesWritten: Int { runs.values.reduce(0) { (total: Int, run: Run) in total + run.framesWritten } }
    /// Keys stop on their own; the run fails only at its end (its report), once every other key is
    /// written.
    var failure: String? {
        guard reported, let first = failedOrder.first else { return nil }
        let others = failedOrder.count > 1 ? " (and \(failedOrder.count - 1) more)" : ""
        return "\(noun) \(first): \(failed[first]!)\(others)"
    }

    var datagrams: Int { datagramCount }
    /// What every run, stopped ones too, took as RTP.
    var rtpPackets: Int { runs.values.reduce(stoppedRTPPackets) { $0 + $1.rtpPackets } }
    private var stoppedRTPPackets = 0
    func tick(now: Int64) throws { for key in order { try isolating(key) { try runs[key]!.tick(now: now) } } }
    func waitMilliseconds(now: Int64) -> Int { runs.values.map { $0.waitMilliseconds(now: now) }.min() ?? TurnWait.idle }
    func endFeedback(now: Int64) { for key in order { runs[key]!.endFeedback(now: now) } }
    func reopen() throws { for key in order { try isolating(key) { try runs[key]!.reopen() } } }
    var bytesWritten: Int { runs.values.reduce(0) { (total: Int, run: Run) in total + run.bytesWritten } }

    func forEachStream(_ body: (FollowedStream) -> Void) {
        for key in order { runs[key]!.forEachStream(body) }
    }

    func forEachRun(_ body: (Run) -> Void) {
        for key in order { body(runs[key]!) }
    }

    func writing(_ body: () throws -> Void) throws { try Run.writing(body) }

    func finish() throws {
        for key in order { try isolating(key) { try runs[key]!.finish() } }
    }

    func report(_ input: Report.Input) throws {
        preconditionFailure("a fan-out says what it followed")
    }

    private var reported = false

    /// The reports of `keys`' runs, each under a line "[i/n] noun key".
    func reportRuns(_ keys: [Key], _ input: Report.Input) throws {
        defer { reported = true }
        var quiet = input
        quiet.warning = nil
        for (n, key) in keys.enumerated() {
            quiet.summary = "[\(n + 1)/\(keys.count)] \(noun) \(key)"
            try runs[key]!.report(quiet)
        }
    }

    /// One statistics file for every run: the input's counts, `extra`, and each run's report in
    /// `field`.
    func writeStatistics(_ path: String, _ input: Report.Input, field: String, keys: [Key], extra: [(String, Int)]) throws {
        let body = Report.fanOutJSON(input, extra: extra, field: field, runs: keys.map { runs[$0]!.statisticsJSON(input) })
        try Run.write(body, to: path, what: "statistics")
    }

    /// The one --report page of every run (`timeline`), each run's streams in turn.
    func writeReport(_ input: Report.Input, keys: [Key]) throws {
        guard let timeline, let path = options.report else { return }
        let reports = keys.map { runs[$0]!.statistics(input) }
        let page = Report.htmlPage(title: Run.inputName(options), input: input,
                                   sections: reports.map { $0.htmlSections(timeline) }.joined(),
                                   text: reports.map { $0.text(verbose: true) }.joined(separator: "\n"))
        try Run.write(page, to: path, what: "the report")
    }
}
