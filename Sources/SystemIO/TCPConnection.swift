import Glibc
import NetworkAddress

/// A connection that could not be made or went away: what happened, in words.
public struct ConnectionError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A byte stream to a server, plain or over TLS: whole writes, reads of what has come, and the
/// descriptor a loop polls for what comes.
public protocol StreamConnection: AnyObject {
    var descriptor: Int32 { get }
    /// The server's address and port, as connected.
    var peer: Endpoint { get }
    /// Writes all of `bytes`, waiting up to `timeoutMilliseconds` for room.
    func write(_ bytes: [UInt8], timeoutMilliseconds: Int32) throws
    /// Reads what has come into `buffer`, waiting up to `timeoutMilliseconds` (0: not at all).
    /// Returns the count; 0 when nothing came; throws when the server closed the connection.
    func read(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) throws -> Int
    /// Whether a read that fills less than its buffer took everything there was, so that only a
    /// poll can say that more came (not so where a layer above the socket reads by records).
    var shortReadTakesAll: Bool { get }
}

extension StreamConnection {
    public func write(_ bytes: [UInt8]) throws { try write(bytes, timeoutMilliseconds: 5000) }
}

/// A TCP connection to a server (an RTSP server's control connection): the name looked up, a
/// connect with a timeout, whole writes, and reads of what has come.
public final class TCPConnection: StreamConnection {
    public let descriptor: Int32
    /// The server's address and port, as connected.
    public let peer: Endpoint
    /// "host:port" as given, for messages.
    public let name: String
    /// recv(2) on a stream socket copies all that is queued, up to the buffer's size.
    public var shortReadTakesAll: Bool { true }

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
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { continue }
            var result = connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen)
            // A signal during connect(2) leaves it going on, as EINPROGRESS does.
            if result < 0 && (errno == EINPROGRESS || errno == EINTR) {
                result = Self.wait(fd, for: POLLOUT, milliseconds: timeoutMilliseconds) ? 0 : -1
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
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))  // best effort: only latency
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

    /// Whether `fd` became ready for `events` within `milliseconds`, a signal's interruption waited
    /// through (the time left, not the whole time again).
    public static func wait(_ fd: Int32, for events: Int32, milliseconds: Int32) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let deadline = Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000 + Int64(milliseconds)
        while true {
            clock_gettime(CLOCK_MONOTONIC, &now)
            let left = max(0, deadline - (Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000))
            var p = pollfd(fd: fd, events: Int16(events), revents: 0)
            let ready = poll(&p, 1, Int32(clamping: left))
            if ready > 0 { return true }
            if ready == 0 || errno != EINTR || left == 0 { return false }
        }
    }

    /// Writes all of `bytes`, waiting up to `timeoutMilliseconds` for room.
    public func write(_ bytes: [UInt8], timeoutMilliseconds: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n > 0 { offset += n; continue }
            guard n < 0, errno == EAGAIN || errno == EINTR else { throw failure("send") }
            if errno == EAGAIN && !Self.wait(descriptor, for: POLLOUT, milliseconds: timeoutMilliseconds) {
                throw ConnectionError("\(name): the connection accepts nothing more (timed out writing)")
            }
        }
    }

    /// Writes what the socket takes of `bytes` now, without waiting: the count (0 when it takes
    /// nothing); throws when the connection is gone.
    public func writeSome(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        guard !bytes.isEmpty else { return 0 }
        while true {
            let n = Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            if n >= 0 { return n }
            if errno == EAGAIN { return 0 }
            if errno != EINTR { throw failure("send") }
        }
    }

    /// Reads what has come into `buffer`, waiting up to `timeoutMilliseconds` (0: not at all).
    /// Returns the count; 0 when nothing came; throws when the server closed the connection.
    public func read(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) throws -> Int {
        if timeoutMilliseconds > 0 && !Self.wait(descriptor, for: POLLIN, milliseconds: timeoutMilliseconds) { return 0 }
        while true {
            let n = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if n > 0 { return n }
            if n == 0 { throw ConnectionError("\(name) closed the connection") }
            if errno == EAGAIN { return 0 }
            if errno != EINTR { throw failure("recv") }
        }
    }

    /// errno of a failed `call` as an error: a connection the peer reset or that went away is a
    /// ConnectionError (a server restarting, not a fault of this machine).
    private func failure(_ call: String) -> Error {
        switch errno {
        case ECONNRESET, EPIPE, ENOTCONN, ETIMEDOUT, ECONNABORTED, EHOSTUNREACH, ENETUNREACH:
            let reason = String(cString: strerror(errno))
            return ConnectionError("\(name): the connection was lost (\(reason))")
        default:
            return SystemError(call, name)
        }
    }
}
