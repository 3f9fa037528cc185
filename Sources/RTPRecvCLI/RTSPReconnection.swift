import RTPCore
import RTSPInput
import SystemIO

/// `--reconnect` for an RTSP pull: when the connection is lost or the stream falls silent, a fresh
/// session, tried again after 1 s, 2 s, 4 s … up to 30 s, each delay ±25% so that many clients of
/// one server do not come back in step. It counts the reconnects and the time without media.
struct RTSPReconnection {
    /// How long without a packet counts as a lost stream.
    let silence: Int64
    private(set) var reconnects = 0
    private(set) var failedAttempts = 0
    private(set) var lostNanoseconds: Int64 = 0
    private var lostSince: Int64?
    private var generator = SystemRandomNumberGenerator()

    init(silence: Int64) { self.silence = silence }

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

    /// Sets the session up again, backing off between tries; nil when a signal or `until` ends the run first.
    mutating func reconnect(after why: String, options: Options, until: Int64?) -> RTSPPull? {
        let now = Terminal.monotonicNanoseconds()
        lostSince = lostSince ?? now
        options.supervised?.announce?("reconnecting", [("reason", .string(why))])
        var delay = 1.0
        while true {
            let jittered = delay * (0.75 + Double(generator.next() % 1000) / 2000)
            if !options.quiet {
                Terminal.printError("rtsp: \(why); reconnecting in \(Double(Int(jittered * 10)) / 10) s\n")
            }
            let wakeUp = Terminal.monotonicNanoseconds() + Int64(jittered * 1e9)
            while Terminal.monotonicNanoseconds() < wakeUp {
                if options.stopReason != nil { return nil }
                if let until, Terminal.monotonicNanoseconds() >= until { return nil }
                Terminal.sleep(nanoseconds: 50_000_000)
            }
            do {
                let pull = try RTSPPull.open(options: options)
                reconnects += 1
                if !options.quiet { Terminal.printError("rtsp: reconnected over \(pull.transport.words)\n") }
                options.supervised?.announce?("reconnected", [("failed_tries", .int(failedAttempts))])
                return pull
            } catch {
                failedAttempts += 1
                if !options.quiet { Terminal.printError("rtsp: reconnect failed: \(error)\n") }
                options.supervised?.announce?("error", [("message", .string(Terminal.masked("reconnect failed: \(error)")))])
            }
            delay = min(30, delay * 2)
        }
    }

    var summary: String {
        reconnects == 0 && failedAttempts == 0 ? ""
            : "; \(reconnects) reconnects (\(failedAttempts) failed tries), \(lostNanoseconds / 1_000_000) ms without media"
    }

    var json: [(String, JSON)] {
        [("reconnects", .int(reconnects)), ("reconnect_failures", .int(failedAttempts)), ("lost_ms", .int(Int(lostNanoseconds / 1_000_000)))]
    }
}
