/// Serial-number arithmetic on RTP's 16-bit sequence numbers and 32-bit timestamps (RFC 3550 §5.1, RFC 1982).

/// Signed distance from `b` to `a` modulo 2^16: positive when `a` follows `b`.
@inline(__always)
public func sequenceDistance(_ a: UInt16, _ b: UInt16) -> Int {
    Int(Int16(bitPattern: a &- b))
}

/// Signed distance from `b` to `a` modulo 2^32.
@inline(__always)
public func timestampDistance(_ a: UInt32, _ b: UInt32) -> Int64 {
    Int64(Int32(bitPattern: a &- b))
}

/// Extends 32-bit RTP timestamps to 64 bits, once per packet, relative to the last one seen; within
/// ±2^62 (a million years at 90 kHz), so that a hostile sender stepping 2^31 a packet cannot bring
/// a sum or difference of them, or one plus a frame's duration, past Int64's range.
public struct TimestampExtender {
    public static let limit: Int64 = 1 << 62
    private var last: Int64?

    public init() {}

    public mutating func extend(_ timestamp: UInt32) -> Int64 {
        guard let last else {
            self.last = Int64(timestamp)
            return Int64(timestamp)
        }
        let extended = min(max(last + timestampDistance(timestamp, UInt32(truncatingIfNeeded: last)), -Self.limit), Self.limit)
        self.last = extended
        return extended
    }

    public mutating func reset() { last = nil }
}
