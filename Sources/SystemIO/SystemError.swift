import Glibc

/// A failed system call: which call, on what, and errno's text.
public struct SystemError: Error, CustomStringConvertible {
    public var call: String
    public var subject: String
    public var errno: Int32

    public init(_ call: String, _ subject: String, errno: Int32 = Glibc.errno) {
        self.call = call
        self.subject = subject
        self.errno = errno
    }

    public var description: String {
        "\(subject): \(String(cString: strerror(errno)))"
    }

    public var isBrokenPipe: Bool { errno == EPIPE }
    public var isNoSuchFile: Bool { errno == ENOENT }
}

/// Retries a call interrupted by a signal; throws on any other failure.
@discardableResult
func retryingOnEINTR<T: BinaryInteger>(_ call: String, _ subject: String, _ body: () -> T) throws -> T {
    while true {
        let result = body()
        if result >= 0 { return result }
        if errno != EINTR { throw SystemError(call, subject) }
    }
}
