/// RTP carried in TCP in a capture: each connection's directions reassembled (RFC 9293), then
/// deframed, as RTSP interleaves it (RFC 2326 §10.12, `$`, channel, length) or as RFC 4571 frames
/// it (a 16-bit length). What comes out is handed on as if each packet had been a datagram; RTSP
/// messages in the same stream (a DESCRIBE's SDP, SETUP's Transport) are handed on beside them.
public struct InterleavedCapture {
    public enum Framing: String, Sendable { case rtsp, rfc4571 }

    public let framing: Framing
    /// Connections followed at once; more are counted and ignored.
    public let maxConnections: Int
    public private(set) var connectionsOverLimit = 0
    public private(set) var frames = 0
    private var directions: [Direction] = []

    private struct Direction {
        var source: Endpoint
        var destination: Endpoint
        var reassembly: TCPReassembly
        var rtsp = RTSPStreamReader()
        var lengths = LengthFraming()

        /// Bytes of the stream, in order, deframed; returns the packets handed on.
        mutating func consume(_ bytes: UnsafeRawBufferPointer, afterGap: Bool, framing: Framing,
                              releasing: (UnsafeRawBufferPointer) -> Void,
                              packet: (UnsafeRawBufferPointer, Endpoint, Endpoint, UInt8) throws -> Void,
                              message: (RTSPMessage, Endpoint, Endpoint) throws -> Void) throws -> Int {
            var handed = 0
            let (source, destination) = (self.source, self.destination)
            switch framing {
            case .rtsp:
                rtsp.withBuffer(releasing)
                if afterGap { rtsp.gap() }
                rtsp.append(bytes)
                try rtsp.drain { item in
                    switch item {
                    case .interleaved(let channel, let bytes):
                        handed += 1
                        try packet(bytes, source, destination, channel)
                    case .message(let m):
                        try message(m, source, destination)
                    }
                }
            case .rfc4571:
                lengths.withBuffer(releasing)
                if afterGap { lengths.gap() }
                lengths.append(bytes)
                try lengths.drain { bytes in
                    handed += 1
                    try packet(bytes, source, destination, 0)
                }
            }
            return handed
        }
    }

    public init(framing: Framing, maxConnections: Int = 64, maxHeldBytes: Int = 4 << 20) {
        self.framing = framing
        self.maxConnections = maxConnections
        self.maxHeldBytes = maxHeldBytes
    }

    private let maxHeldBytes: Int

    /// The reassembly statistics of every direction, summed.
    public var statistics: TCPReassembly.Statistics {
        directions.reduce(into: TCPReassembly.Statistics()) { total, d in
            let s = d.reassembly.statistics
            total.segments += s.segments
            total.retransmittedBytes += s.retransmittedBytes
            total.outOfOrder += s.outOfOrder
            total.gaps += s.gaps
            total.gapBytes += s.gapBytes
        }
    }

    public var skippedBytes: Int { directions.reduce(0) { $0 + $1.rtsp.skippedBytes + $1.lengths.skippedBytes } }

    /// One captured segment. `releasing(memory)` is called before a buffer that handed-on packets
    /// view into is moved or reused; `packet(bytes, source, destination, channel)` gets each RTP or
    /// RTCP packet; `message` each RTSP message.
    public mutating func segment(_ segment: TCPSegment, payload: UnsafeRawBufferPointer, time: Int64,
                                 releasing: (UnsafeRawBufferPointer) -> Void,
                                 packet: (UnsafeRawBufferPointer, Endpoint, Endpoint, UInt8) throws -> Void,
                                 message: (RTSPMessage, Endpoint, Endpoint) throws -> Void) throws {
        guard let index = direction(segment) else { return }
        var d = directions[index]
        var handed = 0
        // The reassembly apart from the rest of the direction, which its deliveries change.
        var reassembly = d.reassembly
        try reassembly.segment(sequenceNumber: segment.sequenceNumber, syn: segment.syn, payload: payload, time: time) { bytes, afterGap in
            handed += try d.consume(bytes, afterGap: afterGap, framing: framing, releasing: releasing, packet: packet, message: message)
        }
        d.reassembly = reassembly
        frames += handed
        directions[index] = d
    }

    /// The end of the capture: what each direction still holds behind a gap is handed on.
    public mutating func finish(releasing: (UnsafeRawBufferPointer) -> Void,
                                packet: (UnsafeRawBufferPointer, Endpoint, Endpoint, UInt8) throws -> Void,
                                message: (RTSPMessage, Endpoint, Endpoint) throws -> Void) throws {
        for index in directions.indices {
            var d = directions[index]
            var handed = 0
            var reassembly = d.reassembly
            try reassembly.finish { bytes, afterGap in
                handed += try d.consume(bytes, afterGap: afterGap, framing: framing, releasing: releasing, packet: packet, message: message)
            }
            d.reassembly = reassembly
            frames += handed
            directions[index] = d
        }
    }

    private mutating func direction(_ segment: TCPSegment) -> Int? {
        if let i = directions.firstIndex(where: { $0.source == segment.source && $0.destination == segment.destination }) { return i }
        guard directions.count < 2 * maxConnections else {
            connectionsOverLimit += 1
            return nil
        }
        directions.append(Direction(source: segment.source, destination: segment.destination,
                                    reassembly: TCPReassembly(maxHeldBytes: maxHeldBytes)))
        return directions.count - 1
    }
}
