/// The session timeline: each stream's RTP time mapped to one clock, in nanoseconds on the packet
/// clock (arrival time live, capture time in replay), so that audio and video can be put side by side.
///
/// A stream is anchored on the arrival of its first packet. Sender reports (RFC 3550 §6.4.1) tie RTP
/// time to the sender's NTP clock, which all of one sender's streams share: from a stream's first
/// report on, its mapping follows NTP, through one NTP-to-session offset fixed by the first report of
/// the session (so that stream keeps the mapping it had). A report that would move a stream earlier
/// moves every stream later instead, by the shift that keeps it in place: relative times are then
/// right at once, and no time given out is ever taken back. Receivers that re-anchor a stream on
/// the report instead move its times backwards. A stream whose report comes before its first
/// packet starts on the report's mapping and moves nothing.
///
/// Reports come from anyone who can reach the RTCP port, so each is checked before it moves
/// anything (`ReportOutcome`): its RTP time must be near the stream's, its NTP time must advance as
/// its RTP time does since the stream's last report (`maxReportCorrection`) and as the arrival times
/// do (`maxArrivalDisagreement`); more than one report a second moves nothing. A sender whose clock
/// was really stepped sends rejected reports that agree with one another: on the second, the stream
/// follows its new clock from where it is (`ReportOutcome.stepped`). Every sum saturates, so no time
/// given out overflows, whatever the reports say.
public final class MediaClock {
    public struct Stream: Sendable {
        public let clockRate: Int
        /// RTP ticks (extended) and session time of the point the mapping starts from.
        var anchorTicks: Int64
        var anchorTime: Int64
        var lastTicks: Int64
        /// When the frame before came (on the packet clock), which says whether a long step is a pause.
        var lastArrival: Int64
        /// The ticks last given, and the steps to them from the ticks before (newest first, the last
        /// `stepCount`): in decoding order, what a jump's own step is predicted from.
        var previousTicks: Int64
        var steps = InlineArray<8, Int64>(repeating: 0)
        var stepCount = 0
        /// Times were given out, which a report may then not take back.
        var timesGiven = false
        /// Session time minus NTP time for this stream: the session's, until its sender's clock stepped.
        var ntpOffset: Int64?
        /// The last report that moved the mapping: its extended RTP ticks, NTP time and arrival.
        var lastReport: (ticks: Int64, ntp: Int64, arrival: Int64)?
        /// The last rejected report, while rejected ones follow one another: a second that agrees
        /// with it is a stepped clock.
        var rejected: (ticks: Int64, ntp: Int64, arrival: Int64)?
        /// When (on the packet clock) a sender report first set the mapping, and how far it moved the stream against the
        /// others from where arrival had put it, in nanoseconds.
        public internal(set) var synchronizedAt: Int64?
        public internal(set) var correction: Int64 = 0
        public internal(set) var timestampJumps = 0
        /// Reports that moved nothing, as implausible; and the sender's clock steps followed.
        public internal(set) var rejectedReports = 0
        public internal(set) var clockSteps = 0

        func time(_ ticks: Int64) -> Int64 {
            anchorTime.addingSaturated(nanoseconds(ticks.subtractingSaturated(anchorTicks)))
        }

        /// `ticks` of this stream's clock in nanoseconds, saturating.
        func nanoseconds(_ ticks: Int64) -> Int64 { ClockTicks.nanoseconds(ticks, clockRate: clockRate) }

        /// The time of `ticks`, arrived at `arrival`, given out, and the books kept for it. A jump
        /// (`MediaClock.isJump`) continues where the steps before say, or else a frame's worth
        /// (20 ms) after the latest time given out.
        mutating func advance(to ticks: Int64, arrival: Int64, jumpLimit: Int64, arrivalTolerance: Int64, backIsJump: Bool) -> Int64 {
            let step = nanoseconds(ticks.subtractingSaturated(lastTicks))
            defer { lastArrival = arrival }
            if MediaClock.isJump(step: step, arrived: arrival.subtractingSaturated(lastArrival), limit: jumpLimit,
                                 tolerance: arrivalTolerance, backIsJump: backIsJump) {
                if let predicted = predictedStep() {
                    anchorTime = time(previousTicks).addingSaturated(nanoseconds(predicted))
                } else {
                    anchorTime = time(lastTicks).addingSaturated(20_000_000)
                }
                anchorTicks = ticks
                (lastTicks, previousTicks, stepCount) = (ticks, ticks, 0)
                timestampJumps += 1
            } else {
                lastTicks = max(lastTicks, ticks)
                stepped(to: ticks)
            }
            return time(ticks)
        }

        /// `ticks` given out, within the limit: its step from the ticks before is kept.
        mutating func stepped(to ticks: Int64) {
            for i in stride(from: steps.count - 1, to: 0, by: -1) { steps[i] = steps[i - 1] }
            steps[0] = ticks.subtractingSaturated(previousTicks)
            stepCount = min(stepCount + 1, steps.count)
            previousTicks = ticks
        }

        /// The step the next ticks would take had the clock not jumped: the step one period back,
        /// where the last steps repeat with a period of 1 to 4 (2 ms apart at most). A stream with
        /// B-frames steps back and forth in decoding order (I P B B: +3, -2, +1, then again), so
        /// a frame after a jump lands where it would have, not after the latest one.
        func predictedStep() -> Int64? {
            let tolerance = Int64(max(1, clockRate / 500))  // bounded: a clock rate, at most MediaDescription.Format.clockRates
            for period in 1...steps.count / 2 where stepCount >= 2 * period {
                if (0..<period).allSatisfy({ (steps[$0].subtractingSaturated(steps[$0 + period])).magnitude <= tolerance }) {
                    return steps[period - 1]
                }
            }
            return nil
        }
    }

    /// What a sender report did.
    public enum ReportOutcome: Equatable, Sendable {
        /// It set the stream's mapping (or waits for the stream's first packet to).
        case accepted
        /// It came within a second of the last that moved the mapping: it moved nothing.
        case tooSoon
        case rejected(RejectedReport)
        /// The sender's clock was stepped by this many nanoseconds: the stream follows the new one.
        case stepped(Int64)
    }

    /// Why a report moved nothing.
    public enum RejectedReport: String, Equatable, Sendable {
        case farFromMedia = "its RTP time is more than 5 s from the stream's"
        case inconsistentWithRTP = "its NTP time does not advance as its RTP time does"
        case inconsistentWithArrival = "its NTP time does not advance as the packets' arrival does"
    }

    /// A step in a stream's timestamps beyond this is a new timeline (a sender restart), bridged,
    /// unless the packets' arrival stepped as far.
    public var maxTimestampJump: Int64 = MediaClock.jumpLimit
    public static let jumpLimit: Int64 = 5_000_000_000
    /// How far a report may move a stream: its first (which puts it beside the others, by up to
    /// the sender's capture and network delays), and later ones (drift between RTP and NTP clocks).
    public var maxFirstCorrection: Int64 = 5_000_000_000
    public var maxReportCorrection: Int64 = 500_000_000
    /// How far NTP time may advance from arrival time between two reports, and a stream's clock
    /// over a pause: 1 s, and 10% more of the time between them (network and capture delays).
    public var maxArrivalDisagreement: Int64 = MediaClock.arrivalTolerance
    public static let arrivalTolerance: Int64 = 1_000_000_000
    /// Reports closer together than this (on the packet clock) move nothing.
    public var minReportInterval: Int64 = 1_000_000_000
    public private(set) var streams: [UInt32: Stream] = [:]
    /// Added to every stream's time; only ever grows.
    public private(set) var shift: Int64 = 0
    /// Session time minus NTP time, from the session's first sender report.
    private var ntpOffset: Int64?
    /// Reports of streams with no packet yet, applied at their first packet.
    private var pending: [UInt32: (ntp: UInt64, rtp: UInt32, arrival: Int64)] = [:]
    public static let maxStreams = 64

    public init() {}

    /// The session time of `ticks` (extended RTP time) of the stream `ssrc`. `backIsJump`: its
    /// frames follow one another in time (audio), so a step back is the sender's clock reset while
    /// its packets kept coming, bridged as a jump; video's decoding order steps back (B-frames).
    public func time(ssrc: UInt32, ticks: Int64, clockRate: Int, arrival: Int64, backIsJump: Bool = false) -> Int64 {
        place(ssrc: ssrc, ticks: ticks, clockRate: clockRate, arrival: arrival, backIsJump: backIsJump).time
    }

    /// `time`, and the timestamp jumps of the stream so far: a frame needs both, in one lookup.
    public func place(ssrc: UInt32, ticks: Int64, clockRate: Int, arrival: Int64,
                      backIsJump: Bool = false) -> (time: Int64, timestampJumps: Int) {
        guard let index = streams.index(forKey: ssrc) else {
            return (firstTime(ssrc: ssrc, ticks: ticks, clockRate: clockRate, arrival: arrival), 0)
        }
        let time = streams.values[index].advance(to: ticks, arrival: arrival, jumpLimit: maxTimestampJump,
                                                 arrivalTolerance: maxArrivalDisagreement, backIsJump: backIsJump).addingSaturated(shift)
        return (time, streams.values[index].timestampJumps)
    }

    private func firstTime(ssrc: UInt32, ticks: Int64, clockRate: Int, arrival: Int64) -> Int64 {
        guard streams.count < MediaClock.maxStreams else { return arrival }
        let rate = min(max(1, clockRate), MediaDescription.Format.clockRates.upperBound)
        streams[ssrc] = Stream(clockRate: rate, anchorTicks: ticks, anchorTime: arrival.subtractingSaturated(shift),
                               lastTicks: ticks, lastArrival: arrival, previousTicks: ticks)
        if let report = pending.removeValue(forKey: ssrc) {
            senderReport(ssrc: ssrc, ntp: report.ntp, rtp: report.rtp, arrival: report.arrival)
        }
        streams[ssrc]!.timesGiven = true
        return streams[ssrc]!.time(ticks).addingSaturated(shift)
    }

    /// A sender report of `ssrc`: NTP time `ntp` is RTP time `rtp`.
    @discardableResult
    public func senderReport(ssrc: UInt32, ntp: UInt64, rtp: UInt32, arrival: Int64) -> ReportOutcome {
        guard var stream = streams[ssrc] else {
            if pending.count < MediaClock.maxStreams || pending[ssrc] != nil { pending[ssrc] = (ntp, rtp, arrival) }
            return .accepted
        }
        let report = (ticks: stream.lastTicks + timestampDistance(rtp, UInt32(truncatingIfNeeded: stream.lastTicks)),
                      ntp: MediaClock.nanoseconds(ntp: ntp), arrival: arrival)
        if let last = stream.lastReport, arrival.subtractingSaturated(last.arrival) < minReportInterval { return .tooSoon }
        let outcome = check(report, of: stream)
        switch outcome {
        case .accepted:
            stream.rejected = nil
            follow(report, &stream)
        case .rejected:
            stream.rejectedReports += 1
            if let previous = stream.rejected, agree(previous, report, stream) {
                // Two in a row that agree with each other: the sender's clock was stepped. The
                // stream goes on from where it is, on its new clock.
                let step = movement(by: report, of: stream)
                stream.ntpOffset = stream.time(report.ticks).subtractingSaturated(report.ntp)
                stream.rejected = nil
                stream.clockSteps += 1
                follow(report, &stream)
                streams[ssrc] = stream
                return .stepped(step)
            }
            stream.rejected = report
        case .tooSoon, .stepped:
            break
        }
        streams[ssrc] = stream
        return outcome
    }

    /// Whether `report` may move `stream`.
    private func check(_ report: (ticks: Int64, ntp: Int64, arrival: Int64), of stream: Stream) -> ReportOutcome {
        guard stream.nanoseconds(report.ticks.subtractingSaturated(stream.lastTicks)).magnitude <= maxTimestampJump.magnitude else {
            return .rejected(.farFromMedia)
        }
        guard movement(by: report, of: stream).magnitude <= (stream.lastReport == nil ? maxFirstCorrection : maxReportCorrection).magnitude else {
            return .rejected(.inconsistentWithRTP)
        }
        if let last = stream.lastReport, !advancesWithArrival(from: last, to: report) { return .rejected(.inconsistentWithArrival) }
        return .accepted
    }

    /// How far `report` would move `stream` (0 for the session's first report, which sets the offset).
    private func movement(by report: (ticks: Int64, ntp: Int64, arrival: Int64), of stream: Stream) -> Int64 {
        guard let offset = stream.ntpOffset ?? ntpOffset else { return 0 }
        return report.ntp.addingSaturated(offset).subtractingSaturated(stream.time(report.ticks))
    }

    /// Whether NTP time advanced from `a` to `b` as the arrival times did.
    private func advancesWithArrival(from a: (ticks: Int64, ntp: Int64, arrival: Int64), to b: (ticks: Int64, ntp: Int64, arrival: Int64)) -> Bool {
        Self.agree(b.ntp.subtractingSaturated(a.ntp), arrived: b.arrival.subtractingSaturated(a.arrival), tolerance: maxArrivalDisagreement)
    }

    /// Whether a sender's clock advanced `step` (nanoseconds) as the arrival did (`arrived`): within
    /// `tolerance`, and 10% more of the time between.
    static func agree(_ step: Int64, arrived: Int64, tolerance: Int64) -> Bool {
        step.subtractingSaturated(arrived).magnitude <= tolerance.addingSaturated(arrived / 10).magnitude
    }

    /// Whether a step of a stream's clock from its frame before (`step`, in nanoseconds) begins a
    /// new timeline (a sender restarted, its clock reset): beyond `limit` either way, or back where
    /// `backIsJump`. A step forward that the packets' arrival took too (`arrived`) is none: the
    /// sender was silent with its clock running (a hold, silence suppression, an outage), RFC 3550's
    /// timestamps advancing as they should, and the silence is kept.
    public static func isJump(step: Int64, arrived: Int64, limit: Int64 = jumpLimit, tolerance: Int64 = arrivalTolerance,
                              backIsJump: Bool) -> Bool {
        if backIsJump && step < 0 { return true }
        guard step.magnitude > limit.magnitude else { return false }
        return step < 0 || !agree(step, arrived: arrived, tolerance: tolerance)
    }

    /// Whether two rejected reports agree with each other: the same clock, stepped.
    private func agree(_ a: (ticks: Int64, ntp: Int64, arrival: Int64), _ b: (ticks: Int64, ntp: Int64, arrival: Int64),
                       _ stream: Stream) -> Bool {
        let byRTP = b.ntp.subtractingSaturated(a.ntp).subtractingSaturated(stream.nanoseconds(b.ticks.subtractingSaturated(a.ticks)))
        return byRTP.magnitude <= maxReportCorrection.magnitude && advancesWithArrival(from: a, to: b)
    }

    /// Sets `stream`'s mapping from `report`, moving the other streams later if it would move earlier.
    private func follow(_ report: (ticks: Int64, ntp: Int64, arrival: Int64), _ stream: inout Stream) {
        if ntpOffset == nil { ntpOffset = stream.time(report.ticks).subtractingSaturated(report.ntp) }
        let before = stream.time(stream.lastTicks)
        stream.anchorTicks = report.ticks
        stream.anchorTime = report.ntp.addingSaturated(stream.ntpOffset ?? ntpOffset!)
        let moved = stream.time(stream.lastTicks).subtractingSaturated(before)
        // Earlier than times it already gave out: the others move later instead.
        if moved < 0 && stream.timesGiven { shift = shift.subtractingSaturated(moved) }
        if stream.synchronizedAt == nil {
            stream.synchronizedAt = report.arrival
            stream.correction = moved
        }
        stream.lastReport = report
    }

    /// NTP (seconds since 1900 and a 32-bit fraction) in nanoseconds.
    static func nanoseconds(ntp: UInt64) -> Int64 {
        Int64(ntp >> 32) * 1_000_000_000 + Int64(((ntp & 0xFFFF_FFFF) * 1_000_000_000) >> 32)
    }
}
