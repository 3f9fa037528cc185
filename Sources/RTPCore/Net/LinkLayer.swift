/// Finds the UDP datagram in a captured frame: link layer → IPv4/IPv6 → UDP.
public enum LinkType: Int, Sendable {
    case null = 0          // BSD loopback: 4-byte address family in the capturing host's byte order
    case ethernet = 1
    case rawIP12 = 12      // DLT_RAW on some systems
    case rawIP = 101
    case loop = 108        // OpenBSD loopback: address family in network byte order
    case linuxSLL = 113
    case ipv4 = 228
    case ipv6 = 229
    case linuxSLL2 = 276

    public var name: String {
        switch self {
        case .null: "BSD loopback"
        case .ethernet: "Ethernet"
        case .rawIP12, .rawIP: "raw IP"
        case .loop: "OpenBSD loopback"
        case .linuxSLL: "Linux cooked (SLL)"
        case .ipv4: "IPv4"
        case .ipv6: "IPv6"
        case .linuxSLL2: "Linux cooked v2 (SLL2)"
        }
    }
}

public struct UDPDatagram: Sendable {
    public var source: Endpoint
    public var destination: Endpoint
    /// The UDP payload's bytes within the frame.
    public var payloadRange: Range<Int>

    @inlinable
    public init(source: Endpoint, destination: Endpoint, payloadRange: Range<Int>) {
        self.source = source
        self.destination = destination
        self.payloadRange = payloadRange
    }
}

/// Why a captured frame yields no UDP datagram; also the names the statistics count them by.
public enum FrameSkip: String, Error, CaseIterable, Sendable {
    case notIP = "not IP"
    case notUDP = "not UDP"
    case ipFragment = "IP fragment (not reassembled)"
    case truncated = "cut short by the capture's snaplen"
    case malformed = "malformed IP or UDP header"
}

public enum LinkFrameDecoder {
    @usableFromInline static let etherTypeIPv4: UInt16 = 0x0800
    @usableFromInline static let etherTypeIPv6: UInt16 = 0x86DD
    /// 802.1Q, 802.1ad and the older QinQ tag.
    @inlinable @inline(__always) static func isVLANTag(_ type: UInt16) -> Bool { type == 0x8100 || type == 0x88A8 || type == 0x9100 }

    /// The IP packet's transport header: its protocol, where it starts and where the packet ends
    /// (within `ip`, which starts at `base` in the frame), and the addresses.
    @usableFromInline struct TransportHeader {
        @usableFromInline var proto: UInt8
        @usableFromInline var ip: UnsafeRawBufferPointer
        @usableFromInline var base: Int
        @usableFromInline var offset: Int
        @usableFromInline var end: Int
        @usableFromInline var source: Endpoint.Address
        @usableFromInline var destination: Endpoint.Address

        @inlinable init(proto: UInt8, ip: UnsafeRawBufferPointer, base: Int, offset: Int, end: Int,
                        source: Endpoint.Address, destination: Endpoint.Address) {
            self.proto = proto
            self.ip = ip
            self.base = base
            self.offset = offset
            self.end = end
            self.source = source
            self.destination = destination
        }
    }

    /// `frame` holds the captured bytes; `originalLength` is the frame's length on the wire.
    /// Inlinable: a capture's walk inlines it, and then decides its link type once, not per frame.
    @inlinable @inline(__always)
    public static func udpDatagram(linkType: LinkType, frame: UnsafeRawBufferPointer, originalLength: Int) throws(FrameSkip) -> UDPDatagram {
        let t = try transport(linkType: linkType, frame: frame, originalLength: originalLength)
        guard t.proto == 17 else { throw .notUDP }
        return try udp(t.ip, at: t.offset, end: t.end, base: t.base, source: t.source, destination: t.destination)
    }

    /// A TCP segment (RTSP's interleaved RTP, RFC 2326 §10.12), for a frame that is not UDP.
    public static func tcpSegment(linkType: LinkType, frame: UnsafeRawBufferPointer, originalLength: Int) throws(FrameSkip) -> TCPSegment {
        let t = try transport(linkType: linkType, frame: frame, originalLength: originalLength)
        guard t.proto == 6 else { throw .notUDP }
        return try TCPSegment(t.ip, at: t.offset, end: t.end, base: t.base, source: t.source, destination: t.destination)
    }

    @inlinable @inline(__always)
    static func transport(linkType: LinkType, frame: UnsafeRawBufferPointer, originalLength: Int) throws(FrameSkip) -> TransportHeader {
        if frame.count < originalLength { throw .truncated }
        @inline(__always) func u16(_ at: Int) -> UInt16 { frame.loadUnaligned(fromByteOffset: at, as: UInt16.self).bigEndian }
        var at: Int
        let etherType: UInt16
        switch linkType {
        case .ethernet:
            guard frame.count >= 14 else { throw .malformed }
            var type = u16(12)
            at = 14
            // Offsets below a frame's length cannot overflow: wrapping arithmetic, no checks.
            while isVLANTag(type) {
                guard frame.count >= at &+ 4 else { throw .malformed }
                type = u16(at &+ 2)
                at &+= 4
            }
            etherType = type
        case .linuxSLL:
            guard frame.count >= 16 else { throw .malformed }
            etherType = u16(14)
            at = 16
        case .linuxSLL2:
            guard frame.count >= 20 else { throw .malformed }
            etherType = u16(0)
            at = 20
        case .null, .loop:
            guard frame.count >= 4 else { throw .malformed }
            let raw = frame.loadUnaligned(as: UInt32.self).bigEndian
            at = 4
            // NULL stores the family in host order; read it both ways. 2 is AF_INET everywhere;
            // AF_INET6 is 24, 28 or 30 depending on the BSD.
            let family = linkType == .loop ? raw : (raw > 0xFFFF ? raw.byteSwapped : raw)
            switch family {
            case 2: etherType = etherTypeIPv4
            case 10, 24, 28, 30: etherType = etherTypeIPv6
            default: throw .notIP
            }
        case .rawIP, .rawIP12, .ipv4, .ipv6:
            guard frame.count > 0 else { throw .malformed }
            let version = frame[0] >> 4
            etherType = version == 4 ? etherTypeIPv4 : version == 6 ? etherTypeIPv6 : 0
            at = 0
        }
        let ip = frame.view(at..<frame.count)
        switch etherType {
        case etherTypeIPv4: return try ipv4(ip, base: at)
        case etherTypeIPv6: return try ipv6(ip, base: at)
        default: throw .notIP
        }
    }

    /// RFC 791 header: version/IHL, total length, flags/fragment offset, protocol, addresses.
    @inlinable @inline(__always)
    static func ipv4(_ ip: UnsafeRawBufferPointer, base: Int) throws(FrameSkip) -> TransportHeader {
        guard ip.count >= 20, ip[0] >> 4 == 4 else { throw .malformed }
        let headerLength = Int(ip[0] & 0x0F) &* 4
        let totalLength = Int(ip.loadUnaligned(fromByteOffset: 2, as: UInt16.self).bigEndian)
        guard headerLength >= 20, totalLength >= headerLength else { throw .malformed }
        guard totalLength <= ip.count else { throw .truncated }
        let fragment = ip.loadUnaligned(fromByteOffset: 6, as: UInt16.self).bigEndian
        // More-fragments set, or a non-zero offset.
        if fragment & 0x3FFF != 0 { throw .ipFragment }
        let source = ip.loadUnaligned(fromByteOffset: 12, as: UInt32.self).bigEndian
        let destination = ip.loadUnaligned(fromByteOffset: 16, as: UInt32.self).bigEndian
        return TransportHeader(proto: ip[9], ip: ip, base: base, offset: headerLength, end: totalLength,
                               source: .v4(source), destination: .v4(destination))
    }

    /// RFC 8200 header, walking the extension headers to UDP.
    @usableFromInline
    static func ipv6(_ ip: UnsafeRawBufferPointer, base: Int) throws(FrameSkip) -> TransportHeader {
        guard ip.count >= 40, ip[0] >> 4 == 6 else { throw .malformed }
        let payloadLength = Int(ip.loadUnaligned(fromByteOffset: 4, as: UInt16.self).bigEndian)
        let end = 40 + payloadLength
        guard end <= ip.count else { throw .truncated }
        var next = ip[6]
        var offset = 40
        for _ in 0..<16 {
            switch next {
            case 17, 6:
                let src = (ip.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian,
                           ip.loadUnaligned(fromByteOffset: 16, as: UInt64.self).bigEndian)
                let dst = (ip.loadUnaligned(fromByteOffset: 24, as: UInt64.self).bigEndian,
                           ip.loadUnaligned(fromByteOffset: 32, as: UInt64.self).bigEndian)
                return TransportHeader(proto: next, ip: ip, base: base, offset: offset, end: end,
                                       source: .v6(src.0, src.1), destination: .v6(dst.0, dst.1))
            case 0, 43, 60:  // hop-by-hop, routing, destination options
                guard offset + 8 <= end else { throw .malformed }
                next = ip[offset]
                offset += (Int(ip[offset + 1]) + 1) * 8
            case 51:  // authentication header: length in 4-byte units, minus 2
                guard offset + 8 <= end else { throw .malformed }
                next = ip[offset]
                offset += (Int(ip[offset + 1]) + 2) * 4
            case 44:
                throw .ipFragment
            default:
                throw .notUDP
            }
        }
        throw .malformed
    }

    @inlinable @inline(__always)
    static func udp(_ ip: UnsafeRawBufferPointer, at offset: Int, end: Int, base: Int,
                    source: Endpoint.Address, destination: Endpoint.Address) throws(FrameSkip) -> UDPDatagram {
        // Offsets within a frame, lengths of 16 bits: no sum can overflow.
        guard offset &+ 8 <= end else { throw .malformed }
        let sourcePort = ip.loadUnaligned(fromByteOffset: offset, as: UInt16.self).bigEndian
        let destinationPort = ip.loadUnaligned(fromByteOffset: offset &+ 2, as: UInt16.self).bigEndian
        let length = Int(ip.loadUnaligned(fromByteOffset: offset &+ 4, as: UInt16.self).bigEndian)
        // A UDP length that disagrees with the IP length is a lie one of them tells: trust neither.
        guard length >= 8, offset &+ length <= end else { throw .malformed }
        let start = base &+ offset
        return UDPDatagram(
            source: Endpoint(address: source, port: sourcePort),
            destination: Endpoint(address: destination, port: destinationPort),
            payloadRange: start &+ 8..<start &+ length)
    }
}
