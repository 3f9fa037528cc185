/// Arithmetic on values from the wire or a file that must not trap: a sum or product past the
/// type's range stops at its end. Times that far off are nonsense anyway; a trap would be a crash
/// any sender could cause.
extension FixedWidthInteger {
    @inlinable
    public func addingSaturated(_ other: Self) -> Self {
        let (result, overflow) = addingReportingOverflow(other)
        guard overflow else { return result }
        return other > 0 ? .max : .min
    }

    @inlinable
    public func subtractingSaturated(_ other: Self) -> Self {
        let (result, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return result }
        return other > 0 ? .min : .max
    }

    @inlinable
    public func multipliedSaturated(by other: Self) -> Self {
        let (result, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return result }
        return (self < 0) == (other < 0) ? .max : .min
    }
}

/// `ticks` of a `rate` Hz clock in units of which `unitsPerSecond` make a second (1000:
/// milliseconds), saturating: timestamps a hostile sender steps by 2^31 each packet grow past
/// what a product in nanoseconds, or milliseconds, holds.
@inlinable
public func duration(_ ticks: Int64, rate: Int, unitsPerSecond: Int64) -> Int64 {
    ticks.multipliedSaturated(by: unitsPerSecond) / Int64(max(1, rate))
}
