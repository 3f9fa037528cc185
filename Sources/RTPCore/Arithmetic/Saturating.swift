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
