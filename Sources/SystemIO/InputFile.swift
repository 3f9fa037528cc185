import Glibc

/// A file, or standard input for "-", read front to back with plain `read(2)`.
public final class InputFile {
    public let path: String
    /// The size of a regular file; 0 for a pipe.
    public let size: Int
    private let descriptor: Int32
    private let owned: Bool

    public init(path: String) throws {
        self.path = path
        if path == "-" {
            descriptor = STDIN_FILENO
            owned = false
        } else {
            descriptor = try retryingOnEINTR("open", path) { open(path, O_RDONLY | O_CLOEXEC) }
            owned = true
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let error = SystemError("fstat", path)
            if owned { _ = close(descriptor) }
            throw error
        }
        size = info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : 0
        // Read front to back: let the kernel read ahead.
        _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL)
    }

    deinit { if owned { _ = close(descriptor) } }

    /// The whole file mapped read-only, or nil for a pipe, an empty file, or one that cannot be mapped
    /// (read it instead).
    public func map() -> FileMapping? {
        size > 0 ? FileMapping(file: self, descriptor: descriptor, size: size) : nil
    }

    /// Reads what one read(2) gives: from a pipe, what the writer has sent so far, so that records
    /// flow as they come. Returns 0 at the end of the input, or once a stop signal came (a pipe whose
    /// writer lingers must not hold up Ctrl-C).
    public func readAvailable(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let n = Glibc.read(descriptor, buffer.baseAddress!, buffer.count)
            if n >= 0 { return n }
            guard errno == EINTR else { throw SystemError("read", path) }
            if StopSignal.received != 0 { return 0 }
        }
    }

    /// Fills `buffer` from the file, short only at the end of the file; returns the bytes read.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let n = try retryingOnEINTR("read", path) {
                Glibc.read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if n == 0 { break }
            filled += n
        }
        return filled
    }
}
