/// The bytes of the access unit being assembled, as pieces in order: copies in a buffer of its own,
/// and views of payloads left where they are when the packets' memory outlives the access unit (a
/// capture's read buffers, kept while referred to). A picture's slices then reach `writev` without
/// ever being copied, which is most of the bytes a replay moves.
struct AccessUnitBuffer {
    /// Bytes of `owned` from `start` when `borrowed` is nil; otherwise `count` bytes at `borrowed`.
    private struct Piece {
        var borrowed: UnsafeRawPointer?
        var start: Int
        var count: Int
    }

    /// Views shorter than this are copied: a few bytes are cheaper to copy than to describe.
    static let minimumBorrow = 256

    private var owned: [UInt8] = []
    private var pieces: [Piece] = []
    private var views: [UnsafeRawBufferPointer] = []
    private var carried: [UInt8] = []
    /// Bytes in the access unit, copied or not.
    private(set) var count = 0

    init(capacity: Int) {
        owned.reserveCapacity(capacity)
        pieces.reserveCapacity(256)
        views.reserveCapacity(256)
    }

    var isEmpty: Bool { count == 0 }

    /// A 4-byte start code and a NAL unit header.
    mutating func appendStartCode(header: UInt8) {
        growOwnedPiece(by: 5)
        owned.append(0)
        owned.append(0)
        owned.append(0)
        owned.append(1)
        owned.append(header)
        count += 5
    }

    /// A 4-byte start code and a two-byte NAL unit header (H.265).
    mutating func appendStartCode(header: UInt8, _ header1: UInt8) {
        appendStartCode(header: header)
        growOwnedPiece(by: 1)
        owned.append(header1)
        count += 1
    }

    /// Appends `bytes`, as a view when `borrowing` (they stay valid until the access unit is handed
    /// on) and they are worth it.
    mutating func append(_ bytes: UnsafeRawBufferPointer, borrowing: Bool) {
        guard !bytes.isEmpty else { return }
        if borrowing && bytes.count >= Self.minimumBorrow {
            pieces.append(Piece(borrowed: bytes.baseAddress!, start: 0, count: bytes.count))
        } else {
            growOwnedPiece(by: bytes.count)
            owned.append(contentsOf: bytes)
        }
        count += bytes.count
    }

    private mutating func growOwnedPiece(by n: Int) {
        if let last = pieces.last, last.borrowed == nil, last.start + last.count == owned.count {
            pieces[pieces.count - 1].count += n
        } else {
            pieces.append(Piece(borrowed: nil, start: owned.count, count: n))
        }
    }

    /// Whether a view points into `memory`.
    func refers(to memory: UnsafeRawBufferPointer) -> Bool {
        guard let start = memory.baseAddress else { return false }
        let end = start + memory.count
        return pieces.contains { piece in piece.borrowed.map { $0 >= start && $0 < end } ?? false }
    }

    /// Replaces the views into `memory` with copies, so that it may be reused.
    mutating func copyViews(pointingInto memory: UnsafeRawBufferPointer) {
        guard let start = memory.baseAddress else { return }
        for i in pieces.indices {
            guard let base = pieces[i].borrowed, base >= start, base < start + memory.count else { continue }
            let offset = owned.count
            owned.append(contentsOf: UnsafeRawBufferPointer(start: base, count: pieces[i].count))
            pieces[i] = Piece(borrowed: nil, start: offset, count: pieces[i].count)
        }
    }

    /// Takes out the bytes at `range` (positions in the access unit).
    mutating func remove(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        var kept: [Piece] = []
        kept.reserveCapacity(pieces.count + 1)
        var position = 0
        for piece in pieces {
            let start = position, end = position + piece.count
            position = end
            if end <= range.lowerBound || start >= range.upperBound {
                kept.append(piece)
                continue
            }
            if start < range.lowerBound {
                var head = piece
                head.count = range.lowerBound - start
                kept.append(head)
            }
            if end > range.upperBound {
                let skip = range.upperBound - start
                kept.append(Piece(borrowed: piece.borrowed.map { $0 + skip }, start: piece.start + skip,
                                  count: end - range.upperBound))
            }
        }
        pieces = kept
        count -= range.count
        // Drop owned bytes no piece uses any more at the end, so that appends extend the last piece again.
        let used = pieces.reduce(0) { $1.borrowed == nil ? max($0, $1.start + $1.count) : $0 }
        owned.removeSubrange(used...)
    }

    /// Calls `body` with the bytes at `range`, in one piece (copied when they span several).
    func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var position = 0
        var copy: [UInt8] = []
        for piece in pieces {
            let start = position, end = position + piece.count
            position = end
            guard end > range.lowerBound, start < range.upperBound else { continue }
            let from = max(range.lowerBound, start) - start, to = min(range.upperBound, end) - start
            if range.lowerBound >= start && range.upperBound <= end {
                return try withPiece(piece) { try body($0.view(from..<to)) }
            }
            withPiece(piece) { copy.append(contentsOf: $0.view(from..<to)) }
        }
        return try copy.withUnsafeBytes(body)
    }

    private func withPiece<R>(_ piece: Piece, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let base = piece.borrowed { return try body(UnsafeRawBufferPointer(start: base, count: piece.count)) }
        return try owned.withUnsafeBytes { try body($0.view(piece.start..<piece.start + piece.count)) }
    }

    /// Calls `body` with the first `end` bytes as views, in order.
    mutating func withPieces<R>(upTo end: Int, _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> R) rethrows -> R {
        var views = self.views  // reused storage, moved out while in use
        self.views = []
        defer {
            views.removeAll(keepingCapacity: true)
            self.views = views
        }
        return try owned.withUnsafeBytes { ownedBytes in
            var position = 0
            for piece in pieces where position < end {
                let n = min(piece.count, end - position)
                if let base = piece.borrowed {
                    views.append(UnsafeRawBufferPointer(start: base, count: n))
                } else {
                    views.append(ownedBytes.view(piece.start..<piece.start + n))
                }
                position += n
            }
            return try views.withUnsafeBufferPointer(body)
        }
    }

    /// Drops the first `n` bytes; what follows (SEI and parameter sets of the next picture, always
    /// copies) moves to the front.
    mutating func removeFirst(_ n: Int) {
        carried.removeAll(keepingCapacity: true)
        withBytes(n..<count) { carried.append(contentsOf: $0) }
        removeAll()
        carried.withUnsafeBytes { append($0, borrowing: false) }
    }

    mutating func removeAll() {
        owned.removeAll(keepingCapacity: true)
        pieces.removeAll(keepingCapacity: true)
        count = 0
    }
}
