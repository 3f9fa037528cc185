/// Presentation times for one stream's access units, taken in decoding order, on the RTP clock.
///
/// A picture's time is its RTP timestamp extended to 64 bits. Some senders never advance the
/// timestamp (FFmpeg with `-c copy` from a raw .h264 file, some cheap cameras): a new picture then
/// comes with the timestamp of the one before. From the first such picture on, the stream's times
/// are made anew, a frame duration apart: the duration comes from the SPS VUI's timing_info when
/// present, else from arrival times. Pictures go in display order, not decoding order, where
/// pic_order_cnt_type 0 tells it (H.264 §8.2.1.1: two counts per frame from the last IDR), so that
/// B-frames keep their place; otherwise, and until an IDR when the stream started before one, in
/// decoding order.
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

    /// What the clock needs of a picture's first slice and its SPS.
    public struct Picture: Sendable {
        public var isIDR: Bool
        public var isReference: Bool
        /// pic_order_cnt_lsb, when pic_order_cnt_type is 0.
        public var picOrderCntLsb: UInt32?
        public var maxPicOrderCntLsb: UInt32

        public init(isIDR: Bool, isReference: Bool, picOrderCntLsb: UInt32?, maxPicOrderCntLsb: UInt32) {
            self.isIDR = isIDR
            self.isReference = isReference
            self.picOrderCntLsb = picOrderCntLsb
            self.maxPicOrderCntLsb = maxPicOrderCntLsb
        }
    }

    public let clockRate: Int
    private var lastExtended: Int64?
    private var lastTime: Int64 = 0
    private var latestTime: Int64 = 0
    private var lastArrival: Int64 = 0
    /// The time of the last IDR: pictures after it take their place from it.
    private var idrTime: Int64?
    // §8.2.1.1: the previous reference picture's PicOrderCntMsb and pic_order_cnt_lsb.
    private var previousMsb: Int64 = 0
    private var previousLsb: Int64 = 0
    /// Access units that were given a time of their own.
    public private(set) var retimed = 0
    /// Set by the first of them.
    public private(set) var source: Source?

    public init(clockRate: Int) {
        self.clockRate = clockRate
    }

    /// The time of the next access unit in decoding order. `extended` is its RTP timestamp extended,
    /// `arrival` on the packet clock (nanoseconds), `newPicture` whether its slices say it is a
    /// picture of its own (and not the second field of a frame). `details` gives what its first
    /// slice says (for H.264's picture order) and its SPS's VUI frame rate; it is asked only for
    /// times made anew.
    public mutating func presentationTime(extended: Int64, arrival: Int64, isIDR: Bool, newPicture: Bool,
                                          details: () -> (picture: Picture?, frameRate: (numerator: Int, denominator: Int)?)?) -> Int64 {
        defer {
            lastExtended = extended
            lastArrival = arrival
        }
        let repeated = lastExtended == extended && newPicture
        guard source != nil || repeated else {
            lastTime = extended
            latestTime = max(latestTime, lastTime)
            // Times made anew will follow the last IDR's place, if they start right after it.
            idrTime = isIDR ? lastTime : nil
            return lastTime
        }
        let (picture, rate) = details() ?? (nil, nil)
        if source == nil {
            source = rate.map { .vui(numerator: $0.numerator, denominator: $0.denominator) } ?? .arrival
        }
        retimed += 1
        let step = frameDuration(rate: rate, arrival: arrival)
        let poc = picture.flatMap { pictureOrderCount($0) }
        // Saturating: a crafted SPS's frame rate (1/2^32 Hz) times a picture order count overflowed.
        if isIDR {
            idrTime = latestTime.addingSaturated(step)
            lastTime = idrTime!
        } else if let poc, let idrTime {
            lastTime = idrTime.addingSaturated(poc.multipliedSaturated(by: step) / 2)
        } else {
            lastTime = lastTime.addingSaturated(step)
        }
        latestTime = max(latestTime, lastTime)
        return lastTime
    }

    private func frameDuration(rate: (numerator: Int, denominator: Int)?, arrival: Int64) -> Int64 {
        if let rate, rate.numerator > 0 {
            return max(1, Int64(clockRate).multipliedSaturated(by: Int64(rate.denominator)) / Int64(rate.numerator))
        }
        return max(1, ((arrival &- lastArrival) / 1000).multipliedSaturated(by: Int64(clockRate)) / 1_000_000)
    }

    /// TopFieldOrderCnt for pic_order_cnt_type 0 (§8.2.1.1), from the last IDR; counted only while
    /// times are made anew, right after an IDR (or from the next one).
    private mutating func pictureOrderCount(_ picture: Picture) -> Int64? {
        guard let lsb = picture.picOrderCntLsb.map(Int64.init) else { return nil }
        if picture.isIDR {
            previousMsb = 0
            previousLsb = 0
        }
        let maxLsb = Int64(picture.maxPicOrderCntLsb)
        var msb = previousMsb
        if lsb < previousLsb && previousLsb - lsb >= maxLsb / 2 {
            msb += maxLsb
        } else if lsb > previousLsb && lsb - previousLsb > maxLsb / 2 {
            msb -= maxLsb
        }
        if picture.isReference {
            previousMsb = msb
            previousLsb = lsb
        }
        return msb + lsb
    }

    /// The source restarted: its timestamps start anew (times made anew go on from the last).
    public mutating func reset() {
        lastExtended = nil
        idrTime = nil
    }
}
