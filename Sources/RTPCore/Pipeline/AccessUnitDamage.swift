/// What an access unit lost: why, how many packets the gaps that touched it held, and whether every
/// loss lay before its first slice, where only SPS, PPS, SEI or an AUD can have been.
public struct AccessUnitDamage: Sendable, Equatable {
    public var reasons = FrameRecord.Reasons()
    public var missingPackets = 0
    public var onlyBeforeFirstSlice = true

    public init() {}

    public mutating func add(_ reason: FrameRecord.Reason, missing: Int = 0, beforeFirstSlice: Bool) {
        reasons.insert(FrameRecord.Reasons(reason))
        missingPackets += missing
        if !beforeFirstSlice { onlyBeforeFirstSlice = false }
    }

    public func merged(with other: AccessUnitDamage) -> AccessUnitDamage {
        var d = self
        d.reasons.formUnion(other.reasons)
        d.missingPackets += other.missingPackets
        d.onlyBeforeFirstSlice = onlyBeforeFirstSlice && other.onlyBeforeFirstSlice
        return d
    }

    /// The reason to report: the most telling one.
    public var reason: FrameRecord.Reason { reasons.first ?? .missingPackets }
}
