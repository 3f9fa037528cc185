/// A presentation timeline that steps over jumps, for the files the outputs write: a step between
/// frames larger than `limit` either way (a sender restarted, a camera's clock stepped) continues
/// one frame after the latest picture, whatever the sender's clock did. Times in nanoseconds.
public struct ContinuousTimeline: Sendable {
    public let limit: Int64
    /// The jumps stepped over.
    public private(set) var jumps = 0
    /// The last forward step within the limit: a frame's duration.
    public private(set) var frameDuration: Int64 = 33_333_333
    private var lastInput: Int64?
    private var latest: Int64 = 0
    private var shift: Int64 = 0

    public init(limitMilliseconds: Int64) {
        limit = limitMilliseconds.multipliedSaturated(by: 1_000_000)
    }

    /// Where a frame whose time is `input` goes on the timeline. Not `bridging`: a time the session
    /// timeline gave, which bridged its own jumps (`MediaClock`), is taken as it is, and its steps
    /// still say a frame's duration.
    public mutating func place(_ input: Int64, bridging: Bool = true) -> Int64 {
        defer { lastInput = input }
        guard let previous = lastInput else { return input }
        let step = input &- previous
        let beyond = step > limit || step < -limit
        if beyond && bridging {
            shift = latest &+ frameDuration &- input
            jumps += 1
        } else if step > 0 && !beyond {
            frameDuration = step
        }
        latest = max(latest, input &+ shift)
        return input &+ shift
    }
}
