/// One direction of a captured TCP connection, put back into the byte stream its sender wrote
/// (RFC 9293 §3.4): segments in sequence order, retransmissions and overlaps trimmed to what is
/// new, and those that came early held until the gap before them fills. A gap that never fills
/// (the capture missed a segment) is given up on once `maxHeldBytes` wait behind it, or the first
/// of them has waited `maxHoldNanoseconds` of capture time (a retransmission comes sooner), or at
/// the end, and said to the reader, which must resynchronize.
public struct TCPReassembly: Sendable {
    public struct Statistics: Sendable, Equatable {
        public var segments = 0
        /// Bytes that came again: retransmissions, and the overlapping part of segments.
        public var retransmittedBytes = 0
        /// Segments that came before one that precedes them.
        public var outOfOrder = 0
        /// Gaps given up on, and the bytes they held.
        public var gaps = 0
        public var gapBytes = 0

        /// Every count of the reassembly, declared once: the report and the JSON read this.
        public var counts: [Count] {
            [Count(name: "segments", help: "TCP segments with data", value: segments),
             Count(name: "retransmitted_bytes", help: "bytes that came again (retransmissions, overlaps)", value: retransmittedBytes),
             Count(name: "out_of_order", help: "segments that came before one that precedes them", value: outOfOrder),
             Count(name: "gaps", help: "gaps given up on", value: gaps),
             Count(name: "gap_bytes", help: "bytes the gaps given up on held", value: gapBytes)]
        }
    }

    public let maxHeldBytes: Int
    public let maxHoldNanoseconds: Int64
    public private(set) var statistics = Statistics()
    /// The next byte's sequence number; nil until the first segment (a capture may begin mid-connection).
    private var next: UInt32?
    private var held: [(sequenceNumber: UInt32, bytes: [UInt8], time: Int64)] = []
    private var heldBytes = 0

    public init(maxHeldBytes: Int = 4 << 20, maxHoldNanoseconds: Int64 = 1_000_000_000) {
        self.maxHeldBytes = maxHeldBytes
        self.maxHoldNanoseconds = maxHoldNanoseconds
    }

    /// `deliver(bytes, afterGap)` gets the stream's bytes in order; `afterGap` when bytes were lost before them.
    /// `time`: when it was captured, in nanoseconds.
    public mutating func segment(sequenceNumber: UInt32, syn: Bool, payload: UnsafeRawBufferPointer, time: Int64,
                                 _ deliver: (UnsafeRawBufferPointer, Bool) throws -> Void) rethrows {
        statistics.segments += 1
        while let first = held.first, time - first.time > maxHoldNanoseconds { try skipGap(deliver) }
        // SYN takes one sequence number; the data starts after it.
        let start = syn ? sequenceNumber &+ 1 : sequenceNumber
        if syn || next == nil { next = next ?? start }
        guard !payload.isEmpty, let expected = next else { return }
        let offset = Int(Int32(bitPattern: start &- expected))
        if offset + payload.count <= 0 {
            statistics.retransmittedBytes += payload.count
            return
        }
        if offset > 0 {
            statistics.outOfOrder += 1
            hold(start, payload, time: time)
            if heldBytes > maxHeldBytes { try skipGap(deliver) }
            return
        }
        // Overlap with what was delivered: only the new part.
        statistics.retransmittedBytes += -offset
        let fresh = UnsafeRawBufferPointer(rebasing: payload[(-offset)...])
        next = expected &+ UInt32(fresh.count)
        try deliver(fresh, false)
        try release(deliver)
    }

    /// The end of the capture: what is held goes, each gap said.
    public mutating func finish(_ deliver: (UnsafeRawBufferPointer, Bool) throws -> Void) rethrows {
        while !held.isEmpty { try skipGap(deliver) }
    }

    private mutating func hold(_ sequenceNumber: UInt32, _ payload: UnsafeRawBufferPointer, time: Int64) {
        guard !held.contains(where: { $0.sequenceNumber == sequenceNumber && $0.bytes.count >= payload.count }) else {
            statistics.retransmittedBytes += payload.count
            return
        }
        let index = held.firstIndex { Int32(bitPattern: $0.sequenceNumber &- sequenceNumber) > 0 } ?? held.count
        held.insert((sequenceNumber, Array(payload), time), at: index)
        heldBytes += payload.count
    }

    /// Held segments that now follow on, in order.
    private mutating func release(_ deliver: (UnsafeRawBufferPointer, Bool) throws -> Void) rethrows {
        while let first = held.first, let expected = next, Int32(bitPattern: first.sequenceNumber &- expected) <= 0 {
            held.removeFirst()
            heldBytes -= first.bytes.count
            let overlap = Int(Int32(bitPattern: expected &- first.sequenceNumber))
            guard overlap < first.bytes.count else {
                statistics.retransmittedBytes += first.bytes.count
                continue
            }
            statistics.retransmittedBytes += overlap
            next = expected &+ UInt32(first.bytes.count - overlap)
            try first.bytes.withUnsafeBytes { try deliver(UnsafeRawBufferPointer(rebasing: $0[overlap...]), false) }
        }
    }

    /// Gives up on the gap before the first held segment.
    private mutating func skipGap(_ deliver: (UnsafeRawBufferPointer, Bool) throws -> Void) rethrows {
        guard let first = held.first, let expected = next else { return }
        statistics.gaps += 1
        statistics.gapBytes += Int(first.sequenceNumber &- expected)
        held.removeFirst()
        heldBytes -= first.bytes.count
        next = first.sequenceNumber &+ UInt32(first.bytes.count)
        try first.bytes.withUnsafeBytes { try deliver($0, true) }
        try release(deliver)
    }
}
