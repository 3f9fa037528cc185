/// Times on an RTP clock.
public enum ClockTicks {
    /// `ticks` of a `clockRate` Hz clock in nanoseconds, saturating rather than trapping on a
    /// sender's extreme times.
    public static func nanoseconds(_ ticks: Int64, clockRate: Int) -> Int64 {
        let rate = Int64(min(max(1, clockRate), 1 << 32))  // bounded: clamped to 1...2^32
        return (ticks / rate).multipliedSaturated(by: 1_000_000_000).addingSaturated(ticks % rate * 1_000_000_000 / rate)
    }
}
