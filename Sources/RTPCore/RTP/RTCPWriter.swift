/// Builds compound RTCP packets (RFC 3550 §6.1) into one reused buffer: each packet's header, its
/// body, and its length in 32-bit words less one filled in at the end.
public struct RTCPWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() { bytes.reserveCapacity(1500) }

    public mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { bytes += [UInt8(v >> 8), UInt8(v & 0xFF)] }
    mutating func u24(_ v: UInt32) { bytes += [UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    mutating func u32(_ v: UInt32) { bytes += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    /// Starts a packet: V=2, no padding, `count` (RC, SC or FMT) and `packetType`; returns where it starts.
    mutating func begin(count: UInt8, packetType: UInt8) -> Int {
        let start = bytes.count
        u8(0x80 | count & 0x1F)
        u8(packetType)
        u16(0)
        return start
    }

    /// Pads the packet begun at `start` to a word and writes its length.
    mutating func end(_ start: Int) {
        while (bytes.count - start) % 4 != 0 { bytes.append(0) }
        let words = UInt16((bytes.count - start) / 4 - 1)
        bytes[start + 2] = UInt8(words >> 8)
        bytes[start + 3] = UInt8(words & 0xFF)
    }

    /// RR (§6.4.2): the reporter's SSRC and up to 31 report blocks.
    public mutating func receiverReport(ssrc: UInt32, reports: [ReceptionReport]) {
        let blocks = reports.prefix(31)
        let start = begin(count: UInt8(blocks.count), packetType: RTCPPacket.PacketType.receiverReport.rawValue)
        u32(ssrc)
        for r in blocks {
            u32(r.ssrc)
            u8(r.fractionLost)
            u24(UInt32(bitPattern: r.cumulativeLost) & 0xFF_FFFF)
            u32(r.extendedHighestSequenceNumber)
            u32(r.jitter)
            u32(r.lastSenderReport)
            u32(r.delaySinceLastSenderReport)
        }
        end(start)
    }

    /// SDES (§6.5) with one chunk: the CNAME item, then the null item ending it, padded to a word.
    public mutating func sourceDescription(ssrc: UInt32, cname: String) {
        let start = begin(count: 1, packetType: RTCPPacket.PacketType.sourceDescription.rawValue)
        u32(ssrc)
        let text = Array(cname.utf8.prefix(255))
        u8(1)  // CNAME
        u8(UInt8(text.count))
        bytes += text
        // At least one null octet ends the list of items; then up to the word boundary.
        repeat { bytes.append(0) } while (bytes.count - start) % 4 != 0
        end(start)
    }

    /// BYE (§6.6) for one source.
    public mutating func goodbye(ssrc: UInt32) {
        let start = begin(count: 1, packetType: RTCPPacket.PacketType.goodbye.rawValue)
        u32(ssrc)
        end(start)
    }
}
