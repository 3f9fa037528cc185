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
}
