import Glibc

/// A regular file read front to back with plain `read(2)`.
public final class InputFile {
    public let path: String
    public let size: Int
    private let descriptor: Int32

    public init(path: String) throws {
        self.path = path
        descriptor = try retryingOnEINTR("open", path) { open(path, O_RDONLY | O_CLOEXEC) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let error = SystemError("fstat", path)
            _ = close(descriptor)
            throw error
        }
        size = Int(info.st_size)
        // Read front to back: let the kernel read ahead.
        _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL)
    }

    deinit { _ = close(descriptor) }

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
