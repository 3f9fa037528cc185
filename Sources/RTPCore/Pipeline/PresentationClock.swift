/// Presentation times for one stream's access units, taken in decoding order, on the RTP clock.
///
/// A picture's time is its RTP timestamp extended to 64 bits. Some senders never advance the
/// timestamp (FFmpeg with `-c copy` from a raw .h264 file, some cheap cameras): a new picture then
/// comes with the timestamp of the one before. Such a picture is given the time of the one before
/// plus a frame duration, from the SPS VUI's timing_info when present, else from the arrival times,
/// and every later time moves with it, so that times never stand still or go backwards for it.
public struct PresentationClock: Sendable {
    /// Where the times of pictures that did not advance the timestamp came from.
    public enum Source: Sendable, Equatable {
        /// The SPS VUI: frames per second as a fraction.
        case vui(numerator: Int, denominator: Int)
        case arrival

        public var description: String {
            switch self {
            case .vui(let n, let d): "timing from the SPS VUI (\(d == 1 ? "\(n)" : "\(n)/\(d)") frames/s)"
            case .arrival: "timing from arrival times (the SPS has no VUI timing)"
            }
        }
    }

    public let clockRate: Int
    private var offset: Int64 = 0
    private var lastExtended: Int64?
    private var lastTime: Int64 = 0
    private var lastArrival: Int64 = 0
    /// Access units that were given a time of their own.
    public private(set) var retimed = 0
    /// Set by the first of them.
    public private(set) var source: Source?

    public init(clockRate: Int) {
        self.clockRate = clockRate
    }

    /// The time of the next access unit in decoding order. `extended` is its RTP timestamp extended,
    /// `arrival` on the packet clock (nanoseconds), `newPicture` whether its slices say it is a
    /// picture of its own (and not the second field of a frame), `sps` the SPS its slices use.
    public mutating func presentationTime(extended: Int64, arrival: Int64, newPicture: Bool,
                                          sps: SequenceParameterSet?) -> Int64 {
        defer {
            lastExtended = extended
            lastArrival = arrival
        }
        if let previous = lastExtended, extended == previous, newPicture {
            let step: Int64
            if let timing = sps?.timing {
                step = max(1, Int64(clockRate) * 2 * Int64(timing.numUnitsInTick) / Int64(timing.timeScale))
                if source == nil, let rate = sps?.frameRateFraction { source = .vui(numerator: rate.numerator, denominator: rate.denominator) }
            } else {
                step = max(1, (arrival &- lastArrival) / 1000 * Int64(clockRate) / 1_000_000)
                if source == nil { source = .arrival }
            }
            offset = lastTime + step - extended
            retimed += 1
        }
        lastTime = extended + offset
        return lastTime
    }

    public mutating func reset() {
        offset = 0
        lastExtended = nil
    }
}
