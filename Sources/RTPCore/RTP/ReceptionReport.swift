/// A reception report block (RFC 3550 §6.4.1), what a receiver tells a sender of one source:
///
///    |                 SSRC_n (SSRC of first source)                 |
///    | fraction lost |       cumulative number of packets lost       |
///    |           extended highest sequence number received           |
///    |                      interarrival jitter                      |
///    |                         last SR (LSR)                         |
///    |                   delay since last SR (DLSR)                  |
public struct ReceptionReport: Equatable, Sendable {
    public var ssrc: UInt32
    /// Of the packets expected since the last report, the fraction lost, in 1/256 (A.3).
    public var fractionLost: UInt8
    /// Expected minus received since the first packet; 24 bits, signed (duplicates can make it negative).
    public var cumulativeLost: Int32
    public var extendedHighestSequenceNumber: UInt32
    /// In RTP timestamp units (A.8).
    public var jitter: UInt32
    /// The middle 32 bits of the last SR's NTP timestamp, 0 before any.
    public var lastSenderReport: UInt32
    /// Since that SR arrived, in 1/65536 s; 0 before any.
    public var delaySinceLastSenderReport: UInt32

    public static let size = 24

    public init(ssrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32, extendedHighestSequenceNumber: UInt32, jitter: UInt32,
                lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }
}

/// What RFC 3550 A.3 keeps per source between reports: the packets expected and received at the
/// last one, for the fraction lost over the interval.
public struct ReceptionInterval: Sendable {
    private var expectedPrior: Int64 = 0
    private var receivedPrior: Int64 = 0

    public init() {}

    /// The block for a source, from its sequence state now; moves the interval on.
    /// `baseExtended`: the first sequence number received, extended; `received`: every packet,
    /// duplicates and late ones included, as A.3 counts them. `lastSR`: the last SR's NTP time
    /// and when it arrived; `now` and that arrival in nanoseconds on one clock.
    public mutating func report(ssrc: UInt32, baseExtended: Int64, highestExtended: Int64, received: Int64,
                                jitter: Double, lastSR: (ntp: UInt64, arrival: Int64)?, now: Int64) -> ReceptionReport {
        let expected = highestExtended - baseExtended + 1
        let lost = expected - received
        let expectedInterval = expected - expectedPrior
        let receivedInterval = received - receivedPrior
        expectedPrior = expected
        receivedPrior = received
        let lostInterval = expectedInterval - receivedInterval
        let fraction = expectedInterval == 0 || lostInterval <= 0 ? 0 : UInt8(min(255, (lostInterval << 8) / expectedInterval))
        var lsr: UInt32 = 0, dlsr: UInt32 = 0
        if let lastSR {
            lsr = UInt32(truncatingIfNeeded: lastSR.ntp >> 16)
            // Arrival times come from a capture's records too: any two may be far apart.
            let since = max(0, now.subtractingSaturated(lastSR.arrival))
            dlsr = UInt32(clamping: since.multipliedSaturated(by: 65536) / 1_000_000_000)
        }
        let jitterUnits = jitter.isFinite ? UInt32(min(max(jitter, 0), Double(UInt32.max))) : UInt32.max
        return ReceptionReport(ssrc: ssrc, fractionLost: fraction, cumulativeLost: Int32(clamping: min(max(lost, -0x80_0000), 0x7F_FFFF)),
                               extendedHighestSequenceNumber: UInt32(truncatingIfNeeded: highestExtended),
                               jitter: jitterUnits, lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }
}
