import Glibc
import NetworkAddress

/// A listening TCP socket (the metrics endpoint's): bound to a numeric address, non-blocking, so
/// the event loop accepts only when poll(2) says a connection waits.
public final class TCPListener {
    public let descriptor: Int32
    public let localEndpoint: Endpoint

    public init(address text: String, port: UInt16) throws {
        guard let address = SocketAddress.parse(text) else {
            throw ConnectionError("'\(text)' is not a numeric IPv4 or IPv6 address")
        }
        let family: Int32 = address.isIPv4 ? AF_INET : AF_INET6
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket", "TCP \(text):\(port)") }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))  // best effort: a restart may wait for TIME_WAIT
        var (storage, length) = SocketAddress.storage(address, port: port)
        let bound = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        // A backlog deep enough that a flood of connections does not push a real one into SYN retries.
        guard bound == 0, listen(fd, 256) == 0 else {
            let error = SystemError("bind", "cannot listen on TCP \(text):\(port)")
            close(fd)
            throw error
        }
        var local = sockaddr_storage()
        var localLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &localLength) } }
        descriptor = fd
        localEndpoint = SocketAddress.endpoint(&local) ?? Endpoint(address: SocketAddress.address(address), port: port)
    }

    deinit { close(descriptor) }

    /// A waiting connection, non-blocking; nil when none waits.
    public func accept() -> TCPConnection? {
        var peer = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(descriptor, $0, &length) }
        }
        guard fd >= 0 else { return nil }
        // Non-blocking, or not at all: a slow client must never stall the loop in a read or write.
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0, fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else {
            close(fd)
            return nil
        }
        let endpoint = SocketAddress.endpoint(&peer) ?? localEndpoint
        return TCPConnection(accepted: fd, peer: endpoint)
    }
}
