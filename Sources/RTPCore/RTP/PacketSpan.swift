/// The packets a unit of media came in: the first and last extended sequence number, and how many.
public struct PacketSpan: Sendable, Equatable {
    public private(set) var first: Int64 = 0
    public private(set) var last: Int64 = 0
    public private(set) var count = 0
    /// The packet added last, so that the units of one packet count it once.
    private var previous: Int64 = -1

    public init() {}

    @inline(__always)
    public mutating func add(_ packet: Int64) {
        guard packet != previous else { return }
        if count == 0 {
            first = packet
            last = packet
        } else {
            first = min(first, packet)
            last = max(last, packet)
        }
        previous = packet
        count += 1
    }
}
