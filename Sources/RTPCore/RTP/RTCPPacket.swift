/// RTCP packets (RFC 3550 §6), walked in place through a compound datagram (§6.1). Every packet
/// starts with
///
///     0                   1                   2                   3
///     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///    |V=2|P|    RC   |      PT       |             length            |
///    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// where length counts 32-bit words less one. A sender report (§6.4.1) follows with
///
///    |                         SSRC of sender                        |
///    |              NTP timestamp, most significant word             |
///    |             NTP timestamp, least significant word             |
///    |                         RTP timestamp                         |
///    |                     sender's packet count                     |
///    |                      sender's octet count                     |
///
/// then RC report blocks, as a receiver report (§6.4.2) has after its SSRC.
public enum RTCPPacket: Equatable, Sendable {
    case senderReport(SenderReport)
    case receiverReport(ssrc: UInt32, reports: Int)
    /// SDES (§6.5): the CNAME of each chunk that has one.
    case sourceDescription([SourceName])
    /// BYE (§6.6): the sources that leave.
    case goodbye([UInt32])
    /// XR (RFC 3611): the DLRR sub-blocks it holds, which answer a receiver's reference time.
    case extendedReport(ssrc: UInt32, delays: [ExtendedReport.DelaySinceLastReceiverReport])
    /// APP, feedback (RFC 4585: 205, 206) and others, by packet type.
    case other(packetType: UInt8)

    public struct SenderReport: Equatable, Sendable {
        public var ssrc: UInt32
        /// NTP time (RFC 5905): seconds since 1900 in the high 32 bits, the fraction in the low 32.
        public var ntpTimestamp: UInt64
        /// The same instant on the sender's RTP clock.
        public var rtpTimestamp: UInt32
        public var packetCount: UInt32
        public var octetCount: UInt32
        public var reports: Int
    }

    public struct SourceName: Equatable, Sendable {
        public var ssrc: UInt32
        public var cname: String
    }

    public enum PacketType: UInt8, Sendable {
        case senderReport = 200, receiverReport = 201, sourceDescription = 202, goodbye = 203, application = 204
    }

    /// What the statistics count packets by.
    public enum Kind: String, CaseIterable, Sendable {
        case senderReport = "sender reports", receiverReport = "receiver reports"
        case sourceDescription = "source descriptions", goodbye = "BYE", extendedReport = "extended reports"
        case other = "other", invalid = "malformed"
    }

    public var kind: Kind {
        switch self {
        case .senderReport: .senderReport
        case .receiverReport: .receiverReport
        case .sourceDescription: .sourceDescription
        case .goodbye: .goodbye
        case .extendedReport: .extendedReport
        case .other: .other
        }
    }

    public enum Invalid: String, Error, Sendable {
        case badVersion = "version is not 2"
        case lengthOverrun = "length runs past the datagram"
        case tooShort = "shorter than its type needs"
    }

    /// Calls `body` with each packet of a compound datagram, in order; throws at the first one that
    /// is malformed, after handing on those before it.
    public static func forEach(in datagram: UnsafeRawBufferPointer, _ body: (RTCPPacket) throws -> Void) throws {
        var cursor = ByteCursor(datagram)
        while cursor.readableBytes > 0 {
            guard let first = cursor.readUInt8(), let packetType = cursor.readUInt8(), let length = cursor.readUInt16()
            else { throw Invalid.tooShort }
            guard first >> 6 == 2 else { throw Invalid.badVersion }
            guard let packet = cursor.readSlice(4 * Int(length)) else { throw Invalid.lengthOverrun }
            // Padding (P) is only allowed on the last packet, and counts within length.
            var content = packet
            if first & 0x20 != 0, let pad = packet.last, Int(pad) <= packet.count, pad > 0 {
                content = packet.view(0..<packet.count - Int(pad))
            }
            try body(parse(type: packetType, count: Int(first & 0x1F), body: content))
        }
    }

    private static func parse(type: UInt8, count: Int, body: UnsafeRawBufferPointer) throws -> RTCPPacket {
        var c = ByteCursor(body)
        switch PacketType(rawValue: type) {
        case .senderReport:
            guard let ssrc = c.readUInt32(), let high = c.readUInt32(), let low = c.readUInt32(),
                  let rtp = c.readUInt32(), let packets = c.readUInt32(), let octets = c.readUInt32(),
                  c.readableBytes >= 24 * count else { throw Invalid.tooShort }
            return .senderReport(SenderReport(ssrc: ssrc, ntpTimestamp: UInt64(high) << 32 | UInt64(low), rtpTimestamp: rtp,
                                              packetCount: packets, octetCount: octets, reports: count))
        case .receiverReport:
            guard let ssrc = c.readUInt32(), c.readableBytes >= 24 * count else { throw Invalid.tooShort }
            return .receiverReport(ssrc: ssrc, reports: count)
        case .sourceDescription:
            var names: [SourceName] = []
            for _ in 0..<count {
                guard let ssrc = c.readUInt32() else { throw Invalid.tooShort }
                // Items: type, length, text; a zero type ends the chunk, which pads to 32 bits.
                while let itemType = c.readUInt8(), itemType != 0 {
                    guard let length = c.readUInt8(), let text = c.readSlice(Int(length)) else { throw Invalid.tooShort }
                    if itemType == 1 { names.append(SourceName(ssrc: ssrc, cname: String(decoding: text, as: UTF8.self))) }
                }
                while c.readerIndex % 4 != 0 { guard c.skip(1) else { break } }
            }
            return .sourceDescription(names)
        case .goodbye:
            var sources: [UInt32] = []
            for _ in 0..<count {
                guard let ssrc = c.readUInt32() else { throw Invalid.tooShort }
                sources.append(ssrc)
            }
            return .goodbye(sources)
        default:
            guard type == ExtendedReport.packetType else { return .other(packetType: type) }
            guard let ssrc = c.readUInt32() else { throw Invalid.tooShort }
            return .extendedReport(ssrc: ssrc, delays: try ExtendedReport.delays(in: &c))
        }
    }
}
