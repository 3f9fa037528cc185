import CMappingGuard
import Glibc

/// A regular file mapped read-only, whole, to be walked in place. Its pages are the page cache's:
/// shared and reclaimable, so they count in RSS but are not memory the process holds.
///
/// A file that shrinks while mapped would raise SIGBUS when a page past its new end is touched; the
/// mapping is guarded against that (zero pages take the place of the lost ones, and `faulted` says
/// so), and `currentSize` lets the reader see the shrinking before it gets there.
public final class FileMapping {
    public let bytes: UnsafeRawBufferPointer
    /// Set once a page past the file's end was touched: the file shrank under the mapping.
    public let faults: FaultMark
    private let file: InputFile
    private let descriptor: Int32

    /// A mapping's fault mark, to be read per record without holding (retaining) the mapping.
    public struct FaultMark {
        @usableFromInline let pointer: UnsafePointer<Int32>
        @inlinable public var isSet: Bool { mapping_guard_is_faulted(pointer) != 0 }
    }

    init?(file: InputFile, descriptor: Int32, size: Int) {
        guard size > 0, let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED else {
            return nil
        }
        guard let mark = mapping_guard_add(base, size) else {
            munmap(base, size)
            return nil
        }
        _ = madvise(base, size, MADV_SEQUENTIAL)
        bytes = UnsafeRawBufferPointer(start: base, count: size)
        faults = FaultMark(pointer: UnsafePointer(mark))
        self.file = file
        self.descriptor = descriptor
    }

    deinit {
        mapping_guard_remove(bytes.baseAddress)
        munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
    }

    /// The file's size now, as fstat gives it.
    public func currentSize() -> Int? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int(info.st_size) : nil
    }

    /// Maps `range`'s pages ahead of the reader, in one call rather than a fault per few pages
    /// (MADV_POPULATE_READ): a file written just before it is read sits in small page-cache folios,
    /// and each fault maps only a few. MADV_WILLNEED, by contrast, costs more than it saves when the
    /// file is cached. A failure (past a new end of the file) is left to the guard.
    public func populate(_ range: Range<Int>) {
        let start = range.lowerBound & ~(Self.pageSize - 1), end = min(range.upperBound, bytes.count)
        guard start < end else { return }
        // Linux 5.14; an older kernel refuses it (EINVAL), and faults do the work.
        _ = madvise(UnsafeMutableRawPointer(mutating: bytes.baseAddress! + start), end - start, MADV_POPULATE_READ)
    }

    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
}
