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

    private var releasedUpTo = 0
    private var populatedUpTo = 0

    /// Maps the pages before `offset` in one call (MADV_POPULATE_READ, Linux 5.14) instead of a page
    /// fault every few pages; older kernels refuse it and the faults happen as before.
    public func populate(upTo offset: Int) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let end = min(offset / page * page, bytes.count)
        guard end > populatedUpTo else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: bytes.baseAddress! + populatedUpTo), end - populatedUpTo, 22)
        populatedUpTo = end
    }

    /// Lets the kernel drop the pages before `offset`, read already: mapped pages count as resident
    /// memory, and a long capture would otherwise keep all of them.
    public func release(upTo offset: Int) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let end = offset / page * page
        guard end > releasedUpTo else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: bytes.baseAddress! + releasedUpTo), end - releasedUpTo, MADV_DONTNEED)
        releasedUpTo = end
    }
}
