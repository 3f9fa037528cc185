import SystemIO

/// What the supervisor's thread asks of a source's live run, answered on the source's own thread in
/// its loop's next turn, where the run's state lives: the process's one metrics endpoint reads
/// every source this way. A run still setting its session up is not asked: it says what it does in
/// `settingUp`.
final class SourceInbox: @unchecked Sendable {
    typealias Request = (LiveReception, Int64) -> Void
    private let lock = ConditionLock()
    private var requests: [Request] = []
    private static let maxWaiting = 8
    private var setup: SetupState?

    /// While the run sets its RTSP session up (and answers no request), what it says of that.
    var settingUp: SetupState? {
        get { lock.locked { setup } }
        set { lock.locked { setup = newValue } }
    }

    func post(_ request: @escaping Request) {
        lock.locked {
            if requests.count >= Self.maxWaiting { requests.removeFirst() }
            requests.append(request)
        }
    }

    /// On the source's thread: the requests waiting, answered.
    func serve(_ reception: LiveReception, now: Int64) {
        let taken: [Request] = lock.locked {
            defer { if !requests.isEmpty { requests.removeAll() } }
            return requests
        }
        for request in taken { request(reception, now) }
    }
}

/// The answers of many sources' threads to one request, by source name.
final class SourceAnswers<Answer>: @unchecked Sendable {
    private let lock = ConditionLock()
    private var answers: [String: Answer] = [:]

    func put(_ source: String, _ answer: Answer) { lock.locked { answers[source] = answer } }

    /// Those given once `count` are in, or at `deadline` (monotonic), whichever comes first.
    func wait(for count: Int, until deadline: Int64) -> [String: Answer] {
        while lock.locked({ answers.count }) < count && Terminal.monotonicNanoseconds() < deadline {
            Terminal.sleep(nanoseconds: 1_000_000)
        }
        return lock.locked { answers }
    }
}
