import Glibc

/// The event loop's wait when a run listens on more than one socket (RTP and RTCP of each media
/// line): poll(2) over all of them, then each readable one is drained with its recvmmsg batches.
/// With one socket the loop blocks in recvmmsg itself and needs none of this.
public struct SocketPoll {
    private var descriptors: [pollfd]

    public init(_ sockets: [Int32]) {
        descriptors = sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    }

    /// Waits up to `milliseconds` and calls `ready` with the index of each socket that can be read.
    /// A signal ends the wait early, as a timeout does.
    public mutating func wait(milliseconds: Int, _ ready: (Int) throws -> Void) throws {
        let count = descriptors.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), Int32(milliseconds)) }
        if count < 0 {
            if errno == EINTR { return }
            throw SystemError("poll", "the UDP sockets")
        }
        guard count > 0 else { return }
        for i in descriptors.indices where descriptors[i].revents & Int16(POLLIN | POLLERR) != 0 { try ready(i) }
    }
}
