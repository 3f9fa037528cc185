import Glibc

/// A whole file mapped read-only, so that its bytes can be viewed without copying.
public final class MappedFile {
    public let path: String
    public let bytes: UnsafeRawBufferPointer

    /// Nil for an empty file, which cannot be mapped.
    public init?(path: String) throws {
        self.path = path
        let fd = try retryingOnEINTR("open", path) { open(path, O_RDONLY | O_CLOEXEC) }
        defer { _ = close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemError("fstat", path) }
        guard (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 else { return nil }
        let size = Int(info.st_size)
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw SystemError("mmap", path)
        }
        // Read front to back: let the kernel read ahead.
        _ = madvise(base, size, MADV_SEQUENTIAL)
        bytes = UnsafeRawBufferPointer(start: base, count: size)
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count) }
}
