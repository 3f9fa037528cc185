import Glibc
import RTPCore

/// A connection that could not be made or went away: what happened, in words.
public struct ConnectionError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A TCP connection to a server (an RTSP server's control connection): the name looked up, a
/// connect with a timeout, whole writes, and reads of what has come.
public final class TCPConnection {
    public let descriptor: Int32
    /// The server's address and port, as connected.
    public let peer: Endpoint
    /// "host:port" as given, for messages.
    public let name: String

    /// Connects to `host` (a name or a numeric address) on `port`, trying each address the name has.
    public init(host: String, port: UInt16, timeoutMilliseconds: Int32) throws {
        name = (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw ConnectionError( "cannot look up \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError: Error = ConnectionError("cannot connect to \(name)")
        var current: UnsafeMutablePointer<addrinfo>? = first
        while let info = current {
            current = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            var result = connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen)
            if result < 0 && errno == EINPROGRESS {
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                result = poll(&p, 1, timeoutMilliseconds) == 1 ? 0 : -1
                if result < 0 { errno = ETIMEDOUT }
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                if result == 0, getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error != 0 {
                    errno = error
                    result = -1
                }
            }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen))) }
            if result == 0, let endpoint = SocketAddress.endpoint(&storage) {
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                descriptor = fd
                peer = endpoint
                return
            }
            lastError = SystemError("connect", name)
            close(fd)
        }
        throw lastError
    }

    /// A connection `TCPListener` accepted.
    init(accepted fd: Int32, peer: Endpoint) {
        descriptor = fd
        self.peer = peer
        name = peer.description
    }

    deinit { close(descriptor) }

    /// Writes all of `bytes`, waiting up to `timeoutMilliseconds` for room.
    public func write(_ bytes: [UInt8], timeoutMilliseconds: Int32 = 5000) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n > 0 { offset += n; continue }
            guard n < 0, errno == EAGAIN || errno == EINTR else { throw SystemError("send", name) }
            var p = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            if poll(&p, 1, timeoutMilliseconds) == 0 { throw ConnectionError( "\(name): the connection accepts nothing more (timed out writing)") }
        }
    }

    /// Reads what has come into `buffer`, waiting up to `timeoutMilliseconds` (0: not at all).
    /// Returns the count; 0 when nothing came; throws when the server closed the connection.
    public func read(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) throws -> Int {
        if timeoutMilliseconds > 0 {
            var p = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, timeoutMilliseconds)
            if ready == 0 || (ready < 0 && errno == EINTR) { return 0 }
        }
        let n = recv(descriptor, buffer.baseAddress, buffer.count, 0)
        if n > 0 { return n }
        if n == 0 { throw ConnectionError( "\(name) closed the connection") }
        if errno == EAGAIN || errno == EINTR { return 0 }
        throw SystemError("recv", name)
    }
}
