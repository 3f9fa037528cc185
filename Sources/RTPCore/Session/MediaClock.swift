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
public final class MediaClock {
    public struct Stream: Sendable {
        public let clockRate: Int
        /// RTP ticks (extended) and session time of the point the mapping starts from.
        var anchorTicks: Int64
        var anchorTime: Int64
        var lastTicks: Int64
        /// Times were given out, which a report may then not take back.
        var timesGiven = false
        /// When (on the packet clock) a sender report first set the mapping, and how far it moved the stream against the
        /// others from where arrival had put it, in nanoseconds.
        public internal(set) var synchronizedAt: Int64?
        public internal(set) var correction: Int64 = 0
        public internal(set) var timestampJumps = 0

        func time(_ ticks: Int64) -> Int64 {
            let delta = ticks - anchorTicks
            let rate = Int64(clockRate)
            return anchorTime + delta / rate * 1_000_000_000 + delta % rate * 1_000_000_000 / rate
        }
    }

    /// A step in a stream's timestamps beyond this is a new timeline (a sender restart), bridged.
    public var maxTimestampJump: Int64 = 5_000_000_000
    public private(set) var streams: [UInt32: Stream] = [:]
    /// Added to every stream's time; only ever grows.
    public private(set) var shift: Int64 = 0
    /// Session time minus NTP time, from the session's first sender report.
    private var ntpOffset: Int64?
    /// Reports of streams with no packet yet, applied at their first packet.
    private var pending: [UInt32: (ntp: UInt64, rtp: UInt32, arrival: Int64)] = [:]
    public static let maxStreams = 64

    public init() {}

    /// The session time of `ticks` (extended RTP time) of the stream `ssrc`.
    public func time(ssrc: UInt32, ticks: Int64, clockRate: Int, arrival: Int64) -> Int64 {
        guard var stream = streams[ssrc] else {
            guard streams.count < MediaClock.maxStreams else { return arrival }
            streams[ssrc] = Stream(clockRate: max(1, clockRate), anchorTicks: ticks, anchorTime: arrival - shift,
                                   lastTicks: ticks)
            if let report = pending.removeValue(forKey: ssrc) {
                senderReport(ssrc: ssrc, ntp: report.ntp, rtp: report.rtp, arrival: report.arrival)
            }
            streams[ssrc]!.timesGiven = true
            return streams[ssrc]!.time(ticks) + shift
        }
        let step = (ticks - stream.lastTicks) * 1_000_000_000 / Int64(stream.clockRate)
        if abs(step) > maxTimestampJump {
            // Continue a frame's worth (20 ms) after the last time given out.
            stream.anchorTime = stream.time(stream.lastTicks) + 20_000_000
            stream.anchorTicks = ticks
            stream.lastTicks = ticks
            stream.timestampJumps += 1
        } else {
            stream.lastTicks = max(stream.lastTicks, ticks)
        }
        streams[ssrc] = stream
        return stream.time(ticks) + shift
    }

    /// A sender report of `ssrc`: NTP time `ntp` is RTP time `rtp`.
    public func senderReport(ssrc: UInt32, ntp: UInt64, rtp: UInt32, arrival: Int64) {
        guard var stream = streams[ssrc] else {
            if pending.count < MediaClock.maxStreams || pending[ssrc] != nil { pending[ssrc] = (ntp, rtp, arrival) }
            return
        }
        let reportTicks = stream.lastTicks + timestampDistance(rtp, UInt32(truncatingIfNeeded: stream.lastTicks))
        let ntpTime = MediaClock.nanoseconds(ntp: ntp)
        if ntpOffset == nil { ntpOffset = stream.time(reportTicks) - ntpTime }
        let before = stream.time(stream.lastTicks)
        stream.anchorTicks = reportTicks
        stream.anchorTime = ntpTime + ntpOffset!
        let moved = stream.time(stream.lastTicks) - before
        // Earlier than times it already gave out: the others move later instead.
        if moved < 0 && stream.timesGiven { shift -= moved }
        if stream.synchronizedAt == nil {
            stream.synchronizedAt = arrival
            stream.correction = moved
        }
        streams[ssrc] = stream
    }

    /// NTP (seconds since 1900 and a 32-bit fraction) in nanoseconds.
    static func nanoseconds(ntp: UInt64) -> Int64 {
        Int64(ntp >> 32) * 1_000_000_000 + Int64(((ntp & 0xFFFF_FFFF) * 1_000_000_000) >> 32)
    }
}

