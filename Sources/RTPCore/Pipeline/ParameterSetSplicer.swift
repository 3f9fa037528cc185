/// Puts NAL units (parameter sets an access unit lacks) into its pieces at a byte position, each
/// behind a 4-byte start code, in buffers reused from one access unit to the next.
final class ParameterSetSplicer {
    private var scratch: [UInt8] = []
    private var spliced: [UnsafeRawBufferPointer] = []

    /// Calls `body` with `pieces` with `nalUnits` put in at byte `at`, and the bytes that added.
    func withInserted<R>(_ nalUnits: [[UInt8]], at: Int, into pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>,
                         _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>, Int) throws -> R) rethrows -> R {
        scratch.removeAll(keepingCapacity: true)
        for nal in nalUnits {
            scratch.append(contentsOf: [0, 0, 0, 1])
            scratch.append(contentsOf: nal)
        }
        return try scratch.withUnsafeBytes { inserted in
            splice(inserted, into: pieces, at: at)
            return try spliced.withUnsafeBufferPointer { try body($0, inserted.count) }
        }
    }

    private func splice(_ inserted: UnsafeRawBufferPointer, into pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>, at: Int) {
        spliced.removeAll(keepingCapacity: true)
        var position = 0
        var done = false
        for piece in pieces {
            if !done && at < position + piece.count {
                let split = at - position
                if split > 0 { spliced.append(piece.view(0..<split)) }
                spliced.append(inserted)
                spliced.append(piece.view(split..<piece.count))
                done = true
            } else {
                spliced.append(piece)
            }
            position += piece.count
        }
        if !done { spliced.append(inserted) }
    }
}
