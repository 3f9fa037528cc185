/// Per-source sequence bookkeeping of RFC 3550 Appendix A.1, and the jitter estimate of A.8.
///
/// Unlike A.1's sample code, a packet that opens a possible new sequence is not thrown away: the
/// caller holds it, and releases it ahead of the next one when that one confirms the restart.
public struct RTPSourceState: Sendable {
    public static let maxDropout: UInt16 = 3000
    public static let maxMisorder: UInt16 = 100

    public enum Update: Equatable, Sendable {
        /// The packet continues the sequence; `extended` is its 64-bit sequence number.
        case accepted(extended: Int64)
        /// The packet is far from the sequence: hold it, it may start a new one.
        case jumped
        /// The packet follows the held one: the source restarted. The held packet's extended number is
        /// `extended - 1`.
        case restarted(extended: Int64)
    }

    private var maxSeq: UInt16
    /// Sequence-number cycles, already shifted: cycles × 2^16.
    private var cycles: Int64
    private var badSeq: UInt32 = 1 << 16 + 1
    public private(set) var restarts = 0

    // A.8 jitter, in timestamp units.
    private var transit: Int64?
    public private(set) var jitter: Double = 0

    public init(firstSequenceNumber seq: UInt16) {
        maxSeq = seq
        // One cycle in, so that a packet older than the first one still numbers above zero.
        cycles = 1 << 16
    }

    public var extendedHighestSequenceNumber: Int64 { cycles + Int64(maxSeq) }

    @inline(__always)
    public mutating func update(_ seq: UInt16) -> Update {
        let udelta = seq &- maxSeq
        if udelta < Self.maxDropout {
            if seq < maxSeq { cycles += 1 << 16 }
            maxSeq = seq
            return .accepted(extended: cycles + Int64(seq))
        }
        if udelta <= UInt16.max - Self.maxMisorder {
            if UInt32(seq) == badSeq {
                // Two sequential packets after a jump: resync, numbering on from the old sequence so that
                // extended numbers never go backwards.
                cycles = ((extendedHighestSequenceNumber >> 16) + 2) << 16
                maxSeq = seq
                badSeq = 1 << 16 + 1
                restarts += 1
                return .restarted(extended: cycles + Int64(seq))
            }
            badSeq = UInt32(seq &+ 1)
            return .jumped
        }
        // Duplicate or reordered: number it relative to the highest so far.
        return .accepted(extended: extendedHighestSequenceNumber + Int64(sequenceDistance(seq, maxSeq)))
    }

    /// A.8: `arrival` and `timestamp` in the same clock units.
    @inline(__always)
    public mutating func updateJitter(arrival: Int64, timestamp: UInt32) {
        let t = arrival &- Int64(timestamp)
        if let previous = transit {
            // Wrap-safe difference of transits: timestamps wrap at 2^32.
            let d = Int64(Int32(truncatingIfNeeded: t &- previous))
            jitter += (Double(abs(d)) - jitter) / 16
        }
        transit = t
    }
}
