import CRecvBatch
import Glibc
import NetworkAddress

/// A UDP socket that receives in batches with `recvmmsg(2)` into buffers allocated once, and reads
/// the kernel's drop counter (SO_RXQ_OVFL) from each batch and each datagram's arrival time
/// (SO_TIMESTAMPNS). It blocks in recvmmsg itself, bounded by
/// SO_RCVTIMEO, rather than in poll(2) first: one system call a batch instead of two.
public final class UDPReceiver {
    public struct Options {
        /// Nil binds the dual-stack wildcard [::].
        public var bindAddress: String?
        public var port: UInt16
        /// Interface for a multicast join and a scoped IPv6 address, by name; else the zone of
        /// `bindAddress` ("ff02::1%eth0"), else the kernel's choice.
        public var interface: String?
        /// With a multicast `bindAddress`: join for this sender alone (source-specific, RFC 4607), so
        /// that the kernel drops the others and an SSM group (232/8, ff3x::/32) is reached at all.
        public var source: String?
        public var receiveBufferBytes: Int
        /// Datagrams per recvmmsg call, at most RECV_BATCH_MAX.
        public var batch = 64
        public var maxDatagramBytes = 65536
        /// How long `receive()` waits for a first datagram.
        public var waitMilliseconds = 20

        public init(bindAddress: String?, port: UInt16, interface: String?, receiveBufferBytes: Int) {
            self.bindAddress = bindAddress
            self.port = port
            self.interface = interface
            self.receiveBufferBytes = receiveBufferBytes
        }
    }

    public let options: Options
    public let descriptor: Int32
    /// What the kernel granted for SO_RCVBUF.
    public private(set) var grantedReceiveBufferBytes = 0
    /// Datagrams the kernel dropped because the receive buffer was full, since the socket opened.
    public private(set) var kernelDrops: UInt32 = 0
    /// The address and port bound (the port the kernel chose, for port 0).
    public private(set) var localEndpoint: Endpoint
    public var boundDescription: String { localEndpoint.description }
    public private(set) var joinedGroup: String?
    /// The one sender a source-specific join admits.
    public private(set) var joinedSource: String?

    private let interfaceIndex: UInt32
    private let family: Int32
    private let storage: UnsafeMutableRawPointer
    private let batch: OpaquePointer
    private let names: UnsafeMutablePointer<sockaddr_storage>
    private let lengths: UnsafeMutablePointer<UInt32>
    private let truncated: UnsafeMutablePointer<UInt8>
    /// When the kernel took each datagram of the last batch in (CLOCK_REALTIME, ns; 0: not said).
    private let arrivals: UnsafeMutablePointer<Int64>
    /// The realtime clock less the monotonic one as the last batch was taken.
    private var realtimeAhead: Int64 = 0
    private static let SO_RXQ_OVFL: Int32 = 40
    private static let SO_TIMESTAMPNS: Int32 = 35
    private static let SO_RCVBUFFORCE: Int32 = 33

    public init(_ options: Options) throws {
        self.options = options
        let address: SocketAddress.Parsed
        if let text = options.bindAddress {
            guard let parsed = SocketAddress.parse(text) else {
                throw SystemError("bind", "'\(text)' is not a numeric IPv4 or IPv6 address", errno: EINVAL)
            }
            address = parsed
        } else {
            address = .v6(in6addr_any)
        }
        let family: Int32 = address.isIPv4 ? AF_INET : AF_INET6
        self.family = family
        if let name = options.interface ?? options.bindAddress.flatMap(SocketAddress.zone) {
            interfaceIndex = if_nametoindex(name)
            guard interfaceIndex != 0 else { throw SystemError("if_nametoindex", "interface '\(name)'", errno: ENODEV) }
        } else {
            interfaceIndex = 0
        }
        var source: SocketAddress.Parsed?
        if address.isMulticast, let text = options.source {
            guard let parsed = SocketAddress.parse(text), parsed.isIPv4 == address.isIPv4 else {
                throw SystemError("setsockopt", "source '\(text)' is not a numeric address of the group's family "
                                  + "(IPv\(address.isIPv4 ? 4 : 6))", errno: EINVAL)
            }
            source = parsed
        }
        let requested = Endpoint(address: SocketAddress.address(address), port: options.port)
        let shown = requested.description
        localEndpoint = requested
        descriptor = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemError("socket", "UDP socket for \(shown)") }

        storage = UnsafeMutableRawPointer.allocate(byteCount: options.batch * options.maxDatagramBytes, alignment: 16)
        names = UnsafeMutablePointer<sockaddr_storage>.allocate(capacity: options.batch)
        lengths = UnsafeMutablePointer<UInt32>.allocate(capacity: options.batch)
        truncated = UnsafeMutablePointer<UInt8>.allocate(capacity: options.batch)
        arrivals = UnsafeMutablePointer<Int64>.allocate(capacity: options.batch)
        guard let batch = recv_batch_create(storage, options.maxDatagramBytes, UInt32(options.batch),
                                            names, MemoryLayout<sockaddr_storage>.stride) else {
            fatalError("out of memory for the receive batch")
        }
        self.batch = batch

        // From here self is whole, so a throw runs deinit, which closes the socket and frees the buffers.
        if family == AF_INET6 { try set(Int32(IPPROTO_IPV6), IPV6_V6ONLY, 0, "IPV6_V6ONLY") }
        if address.isMulticast { try set(SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR") }
        try set(SOL_SOCKET, Self.SO_RXQ_OVFL, 1, "SO_RXQ_OVFL")
        try set(SOL_SOCKET, Self.SO_TIMESTAMPNS, 1, "SO_TIMESTAMPNS")
        try setReceiveBuffer(options.receiveBufferBytes)
        try setReceiveTimeout(milliseconds: options.waitMilliseconds)
        waitMilliseconds = options.waitMilliseconds
        try bind(address, shown: shown)
        // Port 0 asks the kernel for a free one: read back which.
        var name = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &name) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        localEndpoint.port = SocketAddress.endpoint(&name)?.port ?? options.port
        if address.isMulticast { try join(address, source: source) }
    }

    deinit {
        close(descriptor)
        storage.deallocate()
        names.deallocate()
        lengths.deallocate()
        truncated.deallocate()
        arrivals.deallocate()
        recv_batch_destroy(batch)
    }

    private func set(_ level: Int32, _ name: Int32, _ value: Int32, _ label: String) throws {
        var v = value
        guard setsockopt(descriptor, level, name, &v, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw SystemError("setsockopt", "setting \(label) on the UDP socket")
        }
    }

    private func setReceiveBuffer(_ bytes: Int) throws {
        var value = Int32(clamping: bytes)
        // As root, SO_RCVBUFFORCE passes net.core.rmem_max; otherwise SO_RCVBUF is capped by it.
        if setsockopt(descriptor, SOL_SOCKET, Self.SO_RCVBUFFORCE, &value, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &value, socklen_t(MemoryLayout<Int32>.size))
        }
        var granted: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &granted, &length)
        // Linux reports twice what it grants for payload, the other half being its bookkeeping.
        grantedReceiveBufferBytes = Int(granted) / 2
    }

    /// How long `receive()` waits now (SO_RCVTIMEO).
    public private(set) var waitMilliseconds = 0

    /// Makes `receive()` wait up to `milliseconds`: one system call when that changes, none otherwise.
    public func wait(milliseconds: Int) throws {
        guard milliseconds != waitMilliseconds else { return }
        try setReceiveTimeout(milliseconds: milliseconds)
        waitMilliseconds = milliseconds
    }

    private func setReceiveTimeout(milliseconds: Int) throws {
        // A zero timeval would mean wait forever.
        let milliseconds = max(1, milliseconds)
        var value = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        guard setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            throw SystemError("setsockopt", "setting SO_RCVTIMEO on the UDP socket")
        }
    }

    private func bind(_ address: SocketAddress.Parsed, shown: String) throws {
        var (storage, length) = SocketAddress.storage(address, port: options.port, interface: interfaceIndex)
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, length) }
        }
        guard result == 0 else { throw SystemError("bind", "cannot bind \(shown)") }
    }

    /// Joins `group` on the interface asked for (the kernel's choice without one), for every sender
    /// or, with `source`, for that one alone.
    private func join(_ group: SocketAddress.Parsed, source: SocketAddress.Parsed?) throws {
        let level = group.isIPv4 ? Int32(IPPROTO_IP) : Int32(IPPROTO_IPV6)
        let result: Int32
        if let source {
            var request = group_source_req()
            request.gsr_interface = interfaceIndex
            request.gsr_group = SocketAddress.storage(group, port: 0).0
            request.gsr_source = SocketAddress.storage(source, port: 0).0
            result = setsockopt(descriptor, level, MCAST_JOIN_SOURCE_GROUP, &request,
                                socklen_t(MemoryLayout<group_source_req>.size))
        } else {
            var request = group_req()
            request.gr_interface = interfaceIndex
            request.gr_group = SocketAddress.storage(group, port: 0).0
            result = setsockopt(descriptor, level, MCAST_JOIN_GROUP, &request, socklen_t(MemoryLayout<group_req>.size))
        }
        let sourceText = source.map { Endpoint(address: SocketAddress.address($0), port: 0).addressDescription }
        guard result == 0 else {
            throw SystemError("setsockopt", "cannot join multicast group \(boundDescription)"
                              + (sourceText.map { " for source \($0)" } ?? ""))
        }
        joinedGroup = boundDescription
        joinedSource = sourceText
    }

    /// Waits up to `waitMilliseconds` for datagrams and receives up to a batch of them.
    /// Returns 0 on timeout or when a signal interrupted the wait.
    public func receive() throws -> Int {
        let count = recv_batch_receive(batch, descriptor, lengths, truncated, &kernelDrops, arrivals)
        if count < 0 {
            if errno == EINTR { return 0 }
            throw SystemError("recvmmsg", "UDP socket \(boundDescription)")
        }
        if count > 0 { realtimeAhead = Terminal.wallclockNanoseconds() &- Terminal.monotonicNanoseconds() }
        return Int(count)
    }

    /// When datagram `index` of the last batch came in, on the monotonic clock that read `now` after
    /// the batch: the kernel's time for it, so that a datagram that waited in the socket (a busy
    /// loop, --batch-ms) keeps the time it arrived, as a capture would have it. `now` where the
    /// kernel said none, or said one the clocks cannot place (the realtime clock stepped meanwhile).
    public func arrival(_ index: Int, now: Int64) -> Int64 {
        let stamp = arrivals[index]
        guard stamp != 0 else { return now }
        let arrival = stamp &- realtimeAhead
        guard arrival > now &- 10_000_000_000, arrival < now &+ 1_000_000_000 else { return now }
        return min(arrival, now)
    }

    /// Datagram `index` of the last batch: its bytes (valid until the next `receive`) and sender.
    public func datagram(_ index: Int) -> (bytes: UnsafeRawBufferPointer, source: Endpoint?) {
        // A datagram larger than the buffer arrives cut: hand on nothing rather than a cut packet.
        let bytes = UnsafeRawBufferPointer(start: storage + index * options.maxDatagramBytes,
                                           count: truncated[index] != 0 ? 0 : Int(lengths[index]))
        return (bytes, SocketAddress.endpoint(names + index))
    }

    /// Sends one datagram from this socket (RTCP from its port, as RFC 3550 §11 has it), to
    /// `destination`: an IPv4 one as v4-mapped on a dual-stack socket.
    public func send(_ bytes: UnsafeRawBufferPointer, to destination: Endpoint) throws {
        var (storage, length) = SocketAddress.storage(destination, family: family)
        let sent = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, length)
            }
        }
        if sent < 0 { throw SystemError("sendto", "UDP socket \(boundDescription) to \(destination)") }
    }

}
