/// Puts NAL units (parameter sets an access unit lacks) into its pieces at a byte position, each
/// behind a 4-byte start code, and says where every NAL unit then begins, in buffers reused from one
/// access unit to the next.
final class ParameterSetSplicer {
    private var scratch: [UInt8] = []
    private var spliced: [UnsafeRawBufferPointer] = []
    private var offsets: [Int] = []

    /// Calls `body` with `pieces` with `nalUnits` put in at byte `at` (where a unit of `units`, the
    /// access unit's own, begins or ends), the offset of every NAL unit then, and the bytes added.
    func withInserted<R>(_ nalUnits: [[UInt8]], at: Int, into pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>,
                         units: UnsafeBufferPointer<NALUnitRecord>,
                         _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>, UnsafeBufferPointer<Int>, Int) throws -> R) rethrows -> R {
        scratch.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        var unit = 0
        while unit < units.count && units[unit].offset < at {
            offsets.append(units[unit].offset)
            unit += 1
        }
        for nal in nalUnits {
            offsets.append(at + scratch.count)
            scratch.append(contentsOf: [0, 0, 0, 1])
            scratch.append(contentsOf: nal)
        }
        for later in units[unit...] { offsets.append(later.offset + scratch.count) }
        return try scratch.withUnsafeBytes { inserted in
            if !inserted.isEmpty { splice(inserted, into: pieces, at: at) }
            return try offsets.withUnsafeBufferPointer { offsets in
                guard !inserted.isEmpty else { return try body(pieces, offsets, 0) }
                return try spliced.withUnsafeBufferPointer { try body($0, offsets, inserted.count) }
            }
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
