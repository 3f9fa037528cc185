/// RTP and RTCP over a connection-oriented transport (RFC 4571 §2): each packet after a 16-bit
/// length. Split from a byte stream that may arrive in any pieces.
public struct LengthFraming: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    public private(set) var skippedBytes = 0

    public init() {}

    public func withBuffer<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T { try buffer.withUnsafeBytes(body) }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Bytes were lost: the length in progress cannot be trusted, and nothing marks where the next
    /// packet starts; what waits is dropped and the stream read on from the next piece.
    public mutating func gap() {
        skippedBytes += buffer.count - start
        buffer.removeAll(keepingCapacity: true)
        start = 0
    }

    /// Every whole packet, in order, as a view valid until the next call.
    public mutating func drain(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        while buffer.count - start >= 2 {
            let length = Int(buffer[start]) << 8 | Int(buffer[start + 1])
            guard buffer.count - start >= 2 + length else { return }
            let from = start + 2
            start += 2 + length
            try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[from..<from + length])) }
        }
    }
}
