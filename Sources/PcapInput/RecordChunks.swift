import Glibc
import SystemIO

/// The buffers a capture is read into, one at a time. A buffer the receiver still refers
/// to (an access unit in progress made of views into it) is not reused: it is retired, and taken
/// back once `isReferenced` says nothing points into it any more. Retired buffers are bounded: past
/// `maxRetainedBytes`, the oldest is taken back after `stopReferring` has had its views copied.
/// Without `isReferenced`, a record is valid only until the next one is read.
final class RecordChunks {
    let chunkBytes: Int
    let maxRetainedBytes: Int
    var isReferenced: ((UnsafeRawBufferPointer) -> Bool)?
    var stopReferring: ((UnsafeRawBufferPointer) -> Void)?
    private var chunks: [UnsafeMutableRawBufferPointer] = []
    private var current: Int?
    /// Bytes of the current buffer filled from the file.
    private var filled = 0
    private var retired: [Int] = []
    private var free: [Int] = []

    init(chunkBytes: Int, maxRetainedBytes: Int) {
        self.chunkBytes = chunkBytes
        self.maxRetainedBytes = maxRetainedBytes
    }

    deinit { for chunk in chunks { chunk.deallocate() } }

    /// Bytes held in buffers, for the bound on memory.
    var allocatedBytes: Int { chunks.reduce(0) { $0 + $1.count } }

    /// At least `capacity` bytes, of which the first `keep.count` are `keep` (the start of a record
    /// the last read ended in), followed by what the next read of `file` gave. Returns them, and
    /// whether the file has ended. A pipe gives what its writer sent so far: while the current buffer
    /// has room after `keep`, the read goes there, so records keep their place.
    func next(keeping keep: UnsafeRawBufferPointer, capacity: Int, from file: InputFile) throws
        -> (bytes: UnsafeRawBufferPointer, atEnd: Bool) {
        if let current, let base = keep.baseAddress, base + keep.count == chunks[current].baseAddress! + filled {
            let start = base - UnsafeRawPointer(chunks[current].baseAddress!)
            let room = chunks[current].count - filled
            if room > 0 && chunks[current].count - start >= capacity {
                let read = try file.readAvailable(into: UnsafeMutableRawBufferPointer(rebasing: chunks[current][filled...]))
                filled += read
                return (UnsafeRawBufferPointer(rebasing: chunks[current][start..<filled]), read == 0)
            }
        }
        if let current { retired.append(current) }
        retired.removeAll { index in
            guard !(isReferenced?(UnsafeRawBufferPointer(chunks[index])) ?? false) else { return false }
            free.append(index)
            return true
        }
        // Access units in progress that hold too much (NAL units that never end, say): copy them out
        // of the oldest buffers.
        while retired.reduce(0, { $0 + chunks[$1].count }) > maxRetainedBytes {
            let oldest = retired.removeFirst()
            stopReferring?(UnsafeRawBufferPointer(chunks[oldest]))
            free.append(oldest)
        }
        // Room for one byte past `keep` at least: a read of nothing means the end of the file.
        let needed = max(capacity, chunkBytes, keep.count + 1)
        let index: Int
        if let i = free.firstIndex(where: { chunks[$0].count >= needed }) {
            index = free.remove(at: i)
        } else {
            chunks.append(.allocate(byteCount: needed, alignment: 64))
            index = chunks.count - 1
        }
        current = index
        let chunk = chunks[index]
        // `keep` may lie in this very buffer: memmove.
        if !keep.isEmpty { memmove(chunk.baseAddress!, keep.baseAddress!, keep.count) }
        let read = try file.readAvailable(into: UnsafeMutableRawBufferPointer(rebasing: chunk[keep.count...]))
        filled = keep.count + read
        return (UnsafeRawBufferPointer(rebasing: chunk[0..<filled]), read == 0)
    }
}
