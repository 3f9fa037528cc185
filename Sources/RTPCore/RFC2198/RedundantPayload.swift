/// An RTP payload for redundant audio data (RFC 2198 §3), as WebRTC's `red` sends Opus (and wraps
/// video with ULPFEC): a header for each redundant block,
///
///     0                   1                   2                   3
///     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///    |F|   block PT  |  timestamp offset         |   block length    |
///    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// then the primary's, one byte (F = 0 and its block PT); then the blocks' data in the order of
/// their headers, the primary's last, running to the end of the payload.
public enum RedundantPayload {
    public struct Block: Equatable, Sendable {
        public var payloadType: UInt8
        /// How far before the packet's timestamp the block's begins; 0 for the primary.
        public var timestampOffset: UInt32
        /// Where its data lies in the payload.
        public var range: Range<Int>
    }

    /// The primary block of `payload`, after `redundant` has been given each redundant block in
    /// order (oldest first, as senders put them); nil where the headers run past the payload or
    /// the blocks' lengths beyond it.
    public static func primary(of payload: UnsafeRawBufferPointer, redundant: (Block) throws -> Void) rethrows -> Block? {
        // The headers: four bytes while F is set, then one; every step is checked against the end.
        var at = 0, dataBytes = 0
        while true {
            guard at < payload.count else { return nil }
            if payload[at] & 0x80 == 0 { break }
            guard payload.count - at >= 4 else { return nil }
            dataBytes += Int(payload[at + 2] & 0x03) << 8 | Int(payload[at + 3])  // bounded: widenings of bytes
            at += 4
        }
        let dataStart = at + 1
        guard payload.count - dataStart >= dataBytes else { return nil }
        var data = dataStart
        for header in stride(from: 0, to: at, by: 4) {
            let length = Int(payload[header + 2] & 0x03) << 8 | Int(payload[header + 3])  // bounded: widenings of bytes
            let offset = UInt32(payload[header + 1]) << 6 | UInt32(payload[header + 2] >> 2)  // bounded: widenings of bytes
            try redundant(Block(payloadType: payload[header] & 0x7F, timestampOffset: offset, range: data..<data + length))
            data += length
        }
        return Block(payloadType: payload[at] & 0x7F, timestampOffset: 0, range: data..<payload.count)
    }
}

/// The timestamp step between successive RED packets of one SSRC: a packet's duration, by which
/// a redundant block's timestamp offset counts packets back.
struct RedundancyStep {
    private var last: (ssrc: UInt32, sequenceNumber: UInt16, timestamp: UInt32)?
    private var step: UInt32?

    /// The step as known after `packet`; nil until two packets in a row have shown it, and again
    /// after a change of SSRC.
    mutating func next(_ packet: RTPPacket) -> UInt32? {
        if let last, last.ssrc == packet.ssrc {
            if packet.sequenceNumber == last.sequenceNumber &+ 1 {
                let delta = packet.timestamp &- last.timestamp
                // A step back, or beyond a second at 96 kHz, is no packet's duration.
                step = delta > 0 && delta <= 96_000 ? delta : nil
            }
        } else {
            step = nil
        }
        last = (packet.ssrc, packet.sequenceNumber, packet.timestamp)
        return step
    }
}
