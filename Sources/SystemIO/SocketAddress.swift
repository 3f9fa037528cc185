import Glibc
import NetworkAddress

/// Numeric IPv4/IPv6 addresses to and from the socket API's structures.
public enum SocketAddress {
    public enum Parsed {
        case v4(in_addr)
        case v6(in6_addr)

        public var isIPv4: Bool {
            if case .v4 = self { return true }
            return false
        }

        /// Link-local unicast (fe80::/10) and interface- or link-local multicast: the kernel needs
        /// to know the interface to bind or join them.
        public var needsInterface: Bool {
            guard case .v6(let a) = self else { return false }
            return withUnsafeBytes(of: a) { b in
                (b[0] == 0xFE && b[1] & 0xC0 == 0x80) || (b[0] == 0xFF && (b[1] & 0x0F == 1 || b[1] & 0x0F == 2))
            }
        }

        public var isMulticast: Bool {
            switch self {
            case .v4(let a): return UInt32(bigEndian: a.s_addr) >> 28 == 0xE
            case .v6(let a): return withUnsafeBytes(of: a) { $0[0] } == 0xFF
            }
        }
    }

    /// "127.0.0.1", "::1", "[::1]", "239.1.2.3", "ff02::1%eth0" (the zone is read by `zone`); names
    /// are not looked up.
    public static func parse(_ text: String) -> Parsed? {
        var s = text
        if s.hasPrefix("["), s.hasSuffix("]") { s = String(s.dropFirst().dropLast()) }
        if let percent = s.firstIndex(of: "%"), s.contains(":") { s = String(s[..<percent]) }
        var v4 = in_addr()
        if inet_pton(AF_INET, s, &v4) == 1 { return .v4(v4) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, s, &v6) == 1 { return .v6(v6) }
        return nil
    }

    /// The interface an IPv6 address names after '%' (RFC 4007 §11): "eth0" in "ff02::1%eth0".
    public static func zone(_ text: String) -> String? {
        guard text.contains(":"), let percent = text.firstIndex(of: "%") else { return nil }
        let zone = text[text.index(after: percent)...].prefix { $0 != "]" }
        return zone.isEmpty ? nil : String(zone)
    }

    /// A sockaddr_in or sockaddr_in6 for `parsed` and `port`, in a sockaddr_storage, with its length.
    /// `interface` is the index an IPv6 scoped address is bound on.
    static func storage(_ parsed: Parsed, port: UInt16, interface: UInt32 = 0) -> (sockaddr_storage, socklen_t) {
        var storage = sockaddr_storage()
        switch parsed {
        case .v4(let a):
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            sin.sin_addr = a
            withUnsafeBytes(of: sin) { source in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) } }
            return (storage, socklen_t(MemoryLayout<sockaddr_in>.size))
        case .v6(let a):
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            sin6.sin6_addr = a
            sin6.sin6_scope_id = interface
            withUnsafeBytes(of: sin6) { source in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) } }
            return (storage, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
    }

    /// `endpoint` as a socket address of `family`: an IPv4 one v4-mapped (::ffff:a.b.c.d) for AF_INET6.
    static func storage(_ endpoint: Endpoint, family: Int32) -> (sockaddr_storage, socklen_t) {
        switch endpoint.address {
        case .v4(let a) where family == AF_INET:
            return storage(.v4(in_addr(s_addr: a.bigEndian)), port: endpoint.port)
        case .v4(let a):
            return storage(.v6(address6(high: 0, low: 0xFFFF_0000_0000 | UInt64(a))), port: endpoint.port)
        case .v6(let high, let low):
            return storage(.v6(address6(high: high, low: low)), port: endpoint.port)
        }
    }

    private static func address6(high: UInt64, low: UInt64) -> in6_addr {
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { b in
            b.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            b.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        return address
    }

    /// The endpoint a received datagram came from.
    static func endpoint(_ storage: UnsafePointer<sockaddr_storage>) -> Endpoint? {
        switch Int32(storage.pointee.ss_family) {
        case AF_INET:
            return storage.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                Endpoint(address: .v4(UInt32(bigEndian: sin.pointee.sin_addr.s_addr)),
                         port: UInt16(bigEndian: sin.pointee.sin_port))
            }
        case AF_INET6:
            return storage.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                let port = UInt16(bigEndian: sin6.pointee.sin6_port)
                let (high, low) = withUnsafeBytes(of: sin6.pointee.sin6_addr) { b in
                    (b.loadUnaligned(fromByteOffset: 0, as: UInt64.self).bigEndian,
                     b.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian)
                }
                // A v4-mapped address (::ffff:a.b.c.d) on a dual-stack socket is an IPv4 sender.
                if high == 0 && low >> 32 == 0xFFFF {
                    return Endpoint(address: .v4(UInt32(truncatingIfNeeded: low)), port: port)
                }
                return Endpoint(address: .v6(high, low), port: port)
            }
        default:
            return nil
        }
    }

    public static func address(_ parsed: Parsed) -> Endpoint.Address {
        switch parsed {
        case .v4(let a): return .v4(UInt32(bigEndian: a.s_addr))
        case .v6(let a):
            return withUnsafeBytes(of: a) { b in
                .v6(b.loadUnaligned(fromByteOffset: 0, as: UInt64.self).bigEndian,
                    b.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian)
            }
        }
    }
}
