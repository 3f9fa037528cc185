/// Transport-layer feedback (RFC 4585 §6.1, PT 205) with the Generic NACK (§6.2.1, FMT 1): each
/// FCI entry names a lost packet (PID) and, in a bitmask (BLP), which of the 16 after it are lost too.
///
///    |            PID                |             BLP               |
public enum TransportFeedback {
    public static let packetType: UInt8 = 205
    public static let genericNACK: UInt8 = 1

    /// `lost` packed into (PID, BLP) entries, in sequence order from the first.
    public static func entries(_ lost: [UInt16]) -> [(pid: UInt16, blp: UInt16)] {
        // In sequence order around the wrap (what one request holds spans far less than half of it).
        let ordered = lost.sorted { Int16(bitPattern: $1 &- $0) > 0 }
        var entries: [(pid: UInt16, blp: UInt16)] = []
        for seq in ordered {
            if let last = entries.last, case let d = seq &- last.pid, d >= 1 && d <= 16 {
                entries[entries.count - 1].blp |= 1 << (d - 1)
            } else if entries.last?.pid != seq {
                entries.append((seq, 0))
            }
        }
        return entries
    }
}

extension RTCPWriter {
    public mutating func genericNACK(sender: UInt32, mediaSource: UInt32, lost: [UInt16]) {
        let start = begin(count: TransportFeedback.genericNACK, packetType: TransportFeedback.packetType)
        u32(sender)
        u32(mediaSource)
        for entry in TransportFeedback.entries(lost) {
            u16(entry.pid)
            u16(entry.blp)
        }
        end(start)
    }
}
