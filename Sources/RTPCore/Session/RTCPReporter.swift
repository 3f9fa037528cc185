/// The receiver's side of RTCP: when to report (RFC 3550 §6.3, A.7), what (an RR with a block per
/// stream, and SDES with the CNAME, as every compound must carry), and keyframe requests while the
/// video waits for one (RFC 4585 PLI, RFC 5104 FIR). It builds bytes; the caller sends them.
///
/// With one sender and one receiver the session is small enough for RFC 4585's Immediate Feedback
/// mode (§3.5.3): a request goes out when it is due, in a compound of its own, rate-limited to one
/// per `keyframeRequestInterval` (or the round trip, when longer).
public final class RTCPReporter {
    public struct Configuration: Sendable {
        /// PLI is allowed: the SDP offers `a=rtcp-fb:PT nack pli`, or `--request-keyframe`.
        public var requestKeyframes = false
        /// FIR is allowed (`a=rtcp-fb:PT ccm fir`): after three PLIs the requests become FIRs.
        public var fullIntraRequests = false
        /// Generic NACK is allowed (`a=rtcp-fb:PT nack`, or `--nack`).
        public var negativeAcknowledgements = false
        public var keyframeRequestInterval: Int64 = 200_000_000
        /// Before a round trip is measured, how often a missing packet is asked for again.
        public var retransmissionInterval: Int64 = 20_000_000
        /// Unix time in nanoseconds minus the clock `now` is on: NTP time for the XR reference
        /// time block (RFC 3611 §4.4), from which the sender's echo gives the round trip.
        public var wallclockOffset: Int64 = 0
        public init() {}
    }

    public struct Statistics: Sendable {
        public var receiverReports = 0
        public var pictureLossIndications = 0
        public var fullIntraRequests = 0
        public var nacks = 0
        public var packetsRequested = 0
        public var goodbyes = 0
        public var keyframeRequestsAnswered = 0
        /// From the first request to the keyframe, for the last answered one, and the longest.
        public var lastAnswerMilliseconds = 0
        public var longestAnswerMilliseconds = 0
        /// Round trips measured from the sender's DLRR echoes (RFC 3611 §4.5), the last in µs.
        public var roundTripSamples = 0
        public var roundTripMicroseconds = 0

        /// Every count of what was sent, declared once: the report, the JSON and the metrics read this.
        public var counts: [Count] {
            [Count(name: "receiver_reports", help: "RTCP receiver reports sent", value: receiverReports),
             Count(name: "pli_sent", help: "picture loss indications sent (RFC 4585)", value: pictureLossIndications),
             Count(name: "fir_sent", help: "full intra requests sent (RFC 5104)", value: fullIntraRequests),
             Count(name: "nack_sent", help: "generic NACKs sent (RFC 4585)", value: nacks),
             Count(name: "packets_requested", help: "packets the NACKs asked for again", value: packetsRequested),
             Count(name: "bye_sent", help: "RTCP BYE sent", value: goodbyes),
             Count(name: "keyframe_requests_answered", help: "keyframe requests a keyframe followed", value: keyframeRequestsAnswered),
             Count(name: "last_keyframe_answer_ms", help: "from the last answered keyframe request to its keyframe",
                   value: lastAnswerMilliseconds, gauge: true),
             Count(name: "longest_keyframe_answer_ms", help: "the longest wait for a requested keyframe",
                   value: longestAnswerMilliseconds, gauge: true),
             Count(name: "rtt_samples", help: "round trips measured from the sender's DLRR echoes (RFC 3611)",
                   value: roundTripSamples),
             Count(name: "rtt_us", help: "the last round trip measured", value: roundTripMicroseconds, gauge: true)]
        }
    }

    public let configuration: Configuration
    /// This receiver's SSRC and CNAME (RFC 7022: random, so that nothing about the host is told).
    public let ssrc: UInt32
    public let cname: String
    public private(set) var statistics = Statistics()
    /// The last round trip measured, in nanoseconds.
    public private(set) var roundTrip: Int64?

    private var writer = RTCPWriter()
    private var nextReport: Int64?
    /// RFC 3550 A.7's avg_rtcp_size: what this receiver sends, with UDP and IP headers.
    private var averagePacketSize = 100.0
    private var request: (since: Int64, last: Int64, sent: Int)?
    private var firSequence: UInt8 = 0
    private var generator = SystemRandomNumberGenerator()

    public init(configuration: Configuration) {
        self.configuration = configuration
        var generator = SystemRandomNumberGenerator()
        ssrc = generator.next()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        cname = String((0..<16).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }

    /// The compound packet to send now, if one is due: RR and SDES at the report interval, with a
    /// keyframe request at its own pace while `keyframeFor` (a media SSRC) waits for one. `reports`
    /// gives the report blocks (asked only when a packet goes out: each starts a new interval).
    /// `sessionBitsPerSecond`: what the session receives, for the report interval.
    /// `lost`: the NACK requests due now, by media SSRC.
    public func poll(now: Int64, reports: () -> [ReceptionReport], keyframeFor: UInt32?,
                     lost: [(ssrc: UInt32, lost: [UInt16])] = [], sessionBitsPerSecond: Double) -> [UInt8]? {
        var feedback: UInt32?
        if let media = keyframeFor, configuration.requestKeyframes {
            var r = request ?? (since: now, last: Int64.min, sent: 0)
            if r.last == Int64.min || now - r.last >= max(configuration.keyframeRequestInterval, roundTrip ?? 0) {
                feedback = media
                r.last = now
                r.sent += 1
            }
            request = r
        } else if let r = request {
            // The keyframe came: how long the asking took.
            let milliseconds = Int((now - r.since) / 1_000_000)
            statistics.keyframeRequestsAnswered += 1
            statistics.lastAnswerMilliseconds = milliseconds
            statistics.longestAnswerMilliseconds = max(statistics.longestAnswerMilliseconds, milliseconds)
            request = nil
        }
        let reportDue = nextReport.map { now >= $0 } ?? true
        let nacks = configuration.negativeAcknowledgements ? lost.filter { !$0.lost.isEmpty } : []
        guard reportDue || feedback != nil || !nacks.isEmpty else { return nil }
        writer.reset()
        writer.receiverReport(ssrc: ssrc, reports: reports())
        writer.sourceDescription(ssrc: ssrc, cname: cname)
        writer.receiverReferenceTime(ssrc: ssrc, ntp: ntp(now))
        statistics.receiverReports += 1
        if let media = feedback {
            if configuration.fullIntraRequests && (request?.sent ?? 0) > 3 {
                firSequence &+= 1
                writer.fullIntraRequest(sender: ssrc, mediaSource: media, sequenceNumber: firSequence)
                statistics.fullIntraRequests += 1
            } else {
                writer.pictureLossIndication(sender: ssrc, mediaSource: media)
                statistics.pictureLossIndications += 1
            }
        }
        for request in nacks {
            writer.genericNACK(sender: ssrc, mediaSource: request.ssrc, lost: request.lost)
            statistics.nacks += 1
            statistics.packetsRequested += request.lost.count
        }
        averagePacketSize += (Double(writer.bytes.count + 28) - averagePacketSize) / 16
        if reportDue {
            nextReport = now + interval(sessionBitsPerSecond: sessionBitsPerSecond, initial: nextReport == nil)
        }
        return writer.bytes
    }

    /// When a packet is next due by time alone (`poll`): the next report, or the next keyframe
    /// request while one is awaited; nil before the first report.
    public var nextDue: Int64? {
        guard let r = request, r.last != Int64.min else { return nextReport }
        let ask = r.last &+ max(configuration.keyframeRequestInterval, roundTrip ?? 0)
        return min(nextReport ?? ask, ask)
    }

    /// How often a missing packet may be asked for again (RFC 4585 §3.5.3's round trip).
    public var retransmissionInterval: Int64 { roundTrip ?? configuration.retransmissionInterval }

    /// A DLRR block from the sender, arrived at `arrival` (on the clock of `now`): the round trip,
    /// when it answers this receiver's reference time.
    public func noteDelay(_ block: ExtendedReport.DelaySinceLastReceiverReport, arrival: Int64) {
        guard block.ssrc == ssrc,
              let rtt = block.roundTrip(arrival: UInt32(truncatingIfNeeded: ntp(arrival) >> 16)) else { return }
        roundTrip = rtt
        statistics.roundTripSamples += 1
        statistics.roundTripMicroseconds = Int(rtt / 1000)
    }

    /// NTP time (seconds since 1900, 32.32 fixed point) of `now`.
    func ntp(_ now: Int64) -> UInt64 {
        let unix = max(0, now &+ configuration.wallclockOffset)
        let seconds = UInt64(unix / 1_000_000_000) &+ 2_208_988_800
        let fraction = UInt64(unix % 1_000_000_000) << 32 / 1_000_000_000
        return seconds << 32 | fraction
    }

    /// RR, SDES and BYE: what a receiver sends as it leaves (RFC 3550 §6.6).
    public func goodbye(reports: [ReceptionReport]) -> [UInt8] {
        writer.reset()
        writer.receiverReport(ssrc: ssrc, reports: reports)
        writer.sourceDescription(ssrc: ssrc, cname: cname)
        writer.goodbye(ssrc: ssrc)
        statistics.goodbyes += 1
        return writer.bytes
    }

    /// RFC 3550 A.7 for one receiver of one sender: 5% of the session bandwidth for RTCP, the
    /// receivers' 75% of it, the reduced minimum of §6.2 (360 s over the bandwidth in kbit/s, at
    /// most 5 s), half of it before the first report, randomized to [0.5, 1.5] and compensated.
    func interval(sessionBitsPerSecond: Double, initial: Bool) -> Int64 {
        let bandwidth = max(sessionBitsPerSecond, 16_000)
        let rtcpBytesPerSecond = bandwidth * 0.05 / 8 * 0.75
        var minimum = min(5, 360 / (bandwidth / 1000))
        if initial { minimum /= 2 }
        let deterministic = max(minimum, averagePacketSize / rtcpBytesPerSecond)
        let random = Double(generator.next() % 1_000_000) / 1_000_000 + 0.5
        return Int64(deterministic * random / 1.21828 * 1e9)
    }
}
