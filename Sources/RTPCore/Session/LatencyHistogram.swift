/// Time from the arrival of the packet that completes an access unit to the end of its write, live
/// only: 1 µs buckets up to 1 ms, then 1 ms buckets up to 10 s. Fixed size, whatever the run's length.
public struct LatencyHistogram: Sendable {
    private var fine = [Int](repeating: 0, count: 1000)      // microseconds
    private var coarse = [Int](repeating: 0, count: 10_000)  // milliseconds
    public private(set) var count = 0
    public private(set) var maxMicroseconds = 0

    public init() {}

    public mutating func record(nanoseconds: Int64) {
        let us = Int(max(0, nanoseconds) / 1000)  // bounded: Int64 into the 64-bit Int
        if us < 1000 { fine[us] += 1 } else { coarse[min(us / 1000, coarse.count - 1)] += 1 }
        count += 1
        maxMicroseconds = max(maxMicroseconds, us)
    }

    /// The smallest latency, in µs, that `fraction` of the samples do not exceed.
    public func percentile(_ fraction: Double) -> Int {
        guard count > 0 else { return 0 }
        // bounded: a count times a fraction of at most 1
        let target = Int((Double(count) * fraction).rounded(.up))
        var seen = 0
        for (us, n) in fine.enumerated() {
            seen += n
            if seen >= target { return us }
        }
        for (ms, n) in coarse.enumerated() {
            seen += n
            if seen >= target { return ms * 1000 }
        }
        return maxMicroseconds
    }
}
