/// The bytes of the access unit being assembled, as pieces in order: copies in a buffer of its own,
/// and views of payloads left where they are when the packets' memory outlives the access unit (a
/// capture's read buffers, kept while referred to). A picture's slices then reach `writev` without
/// ever being copied, which is most of the bytes a replay moves.
///
/// A class over buffers it allocates itself, not arrays: a piece is appended for nearly every
/// packet, and an array in a stored property pays a uniqueness check and a capacity check for each.
final class AccessUnitBuffer {
    /// Bytes of the owned buffer from `start` when `borrowed` is nil; otherwise `count` bytes at
    /// `borrowed`.
    private struct Piece {
        var borrowed: UnsafeRawPointer?
        var start: Int
        var count: Int

        /// Its first `n` bytes.
        func prefix(_ n: Int) -> Piece { Piece(borrowed: borrowed, start: start, count: n) }
        /// What follows its first `n` bytes.
        func dropFirst(_ n: Int) -> Piece { Piece(borrowed: borrowed.map { $0 + n }, start: start + n, count: count - n) }
    }

    /// Views shorter than this are copied: a few bytes are cheaper to copy than to describe.
    static let minimumBorrow = 256

    private var owned: UnsafeMutableRawPointer
    private var ownedCount = 0
    private var ownedCapacity: Int
    private var pieces: UnsafeMutablePointer<Piece>
    private var pieceCount = 0
    private var pieceCapacity = 256
    /// `withPieces`' views, reused.
    private var views: UnsafeMutablePointer<UnsafeRawBufferPointer>
    private var viewCapacity = 256
    /// `removeFirst`'s copy of what it keeps, reused.
    private var carried: [UInt8] = []
    /// Bytes in the access unit, copied or not.
    private(set) var count = 0

    init(capacity: Int) {
        ownedCapacity = max(capacity, 64)
        owned = .allocate(byteCount: ownedCapacity, alignment: 16)
        pieces = .allocate(capacity: pieceCapacity)
        views = .allocate(capacity: viewCapacity)
    }

    deinit {
        owned.deallocate()
        pieces.deallocate()
        views.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// A 4-byte start code and a NAL unit header.
    @inline(__always)
    func appendStartCode(header: UInt8) {
        let at = reserveOwned(5)
        at.storeBytes(of: UInt32(1).bigEndian, as: UInt32.self)
        at.storeBytes(of: header, toByteOffset: 4, as: UInt8.self)
        count += 5
    }

    /// A 4-byte start code and a two-byte NAL unit header (H.265).
    @inline(__always)
    func appendStartCode(header: UInt8, _ header1: UInt8) {
        let at = reserveOwned(6)
        at.storeBytes(of: UInt32(1).bigEndian, as: UInt32.self)
        at.storeBytes(of: header, toByteOffset: 4, as: UInt8.self)
        at.storeBytes(of: header1, toByteOffset: 5, as: UInt8.self)
        count += 6
    }

    /// Appends `bytes`, as a view when `borrowing` (they stay valid until the access unit is handed
    /// on) and they are worth it.
    @inline(__always)
    func append(_ bytes: UnsafeRawBufferPointer, borrowing: Bool) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        if borrowing && bytes.count >= Self.minimumBorrow {
            appendPiece(Piece(borrowed: base, start: 0, count: bytes.count))
        } else {
            reserveOwned(bytes.count).copyMemory(from: base, byteCount: bytes.count)
        }
        count += bytes.count
    }

    /// A piece of owned bytes at the end, empty until `fill`: a header that depends on what follows
    /// it (an AV1 OBU's size, known once its last fragment came).
    struct Reservation {
        fileprivate let piece: Int
        let capacity: Int
    }

    /// Room for up to `capacity` bytes, left empty: what is appended next comes after it. Filled
    /// before the pieces are edited (`remove`, `insert`), which may give its bytes to others.
    func reserve(_ capacity: Int) -> Reservation {
        if ownedCount + capacity > ownedCapacity { growOwned(to: ownedCount + capacity) }
        // Of count 0 until filled, and ending before `ownedCount`: no append extends it.
        appendPiece(Piece(borrowed: nil, start: ownedCount, count: 0))
        ownedCount += capacity
        return Reservation(piece: pieceCount - 1, capacity: capacity)
    }

    /// Puts `bytes` (at most the capacity) into the room `reservation` kept, once.
    func fill(_ reservation: Reservation, with bytes: UnsafeRawBufferPointer) {
        let i = reservation.piece
        guard let base = bytes.baseAddress, bytes.count <= reservation.capacity, i < pieceCount,
              pieces[i].borrowed == nil, pieces[i].count == 0 else { return }
        (owned + pieces[i].start).copyMemory(from: base, byteCount: bytes.count)
        pieces[i].count = bytes.count
        count += bytes.count
    }

    /// Room for `n` more owned bytes at the end of the last piece (or of a new one); returns where.
    @inline(__always)
    private func reserveOwned(_ n: Int) -> UnsafeMutableRawPointer {
        if ownedCount + n > ownedCapacity { growOwned(to: ownedCount + n) }
        if pieceCount > 0, pieces[pieceCount - 1].borrowed == nil,
           pieces[pieceCount - 1].start + pieces[pieceCount - 1].count == ownedCount {
            pieces[pieceCount - 1].count += n
        } else {
            appendPiece(Piece(borrowed: nil, start: ownedCount, count: n))
        }
        defer { ownedCount += n }
        return owned + ownedCount
    }

    private func growOwned(to needed: Int) {
        let capacity = max(needed, ownedCapacity * 2)
        let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        grown.copyMemory(from: owned, byteCount: ownedCount)
        owned.deallocate()
        owned = grown
        ownedCapacity = capacity
    }

    @inline(__always)
    private func appendPiece(_ piece: Piece) {
        if pieceCount == pieceCapacity { growPieces() }
        (pieces + pieceCount).initialize(to: piece)
        pieceCount += 1
    }

    private func growPieces() {
        let grown = UnsafeMutablePointer<Piece>.allocate(capacity: pieceCapacity * 2)
        grown.moveInitialize(from: pieces, count: pieceCount)
        pieces.deallocate()
        pieces = grown
        pieceCapacity *= 2
    }

    /// Whether a view points into `memory`.
    func refers(to memory: UnsafeRawBufferPointer) -> Bool {
        guard let start = memory.baseAddress else { return false }
        let end = start + memory.count
        for i in 0..<pieceCount {
            if let base = pieces[i].borrowed, base >= start, base < end { return true }
        }
        return false
    }

    /// Replaces the views into `memory` with copies, so that it may be reused.
    func copyViews(pointingInto memory: UnsafeRawBufferPointer) {
        guard let start = memory.baseAddress else { return }
        for i in 0..<pieceCount {
            guard let base = pieces[i].borrowed, base >= start, base < start + memory.count else { continue }
            let n = pieces[i].count
            if ownedCount + n > ownedCapacity { growOwned(to: ownedCount + n) }
            (owned + ownedCount).copyMemory(from: base, byteCount: n)
            pieces[i] = Piece(borrowed: nil, start: ownedCount, count: n)
            ownedCount += n
        }
    }

    /// Takes out the bytes at `range` (positions in the access unit).
    func remove(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        // Rare (a unit cut short, a repeated parameter set): the pieces are rebuilt aside.
        var kept: [Piece] = []
        kept.reserveCapacity(pieceCount + 1)
        var position = 0
        for i in 0..<pieceCount {
            let piece = pieces[i]
            let start = position, end = position + piece.count
            position = end
            if end <= range.lowerBound || start >= range.upperBound {
                kept.append(piece)
                continue
            }
            if start < range.lowerBound { kept.append(piece.prefix(range.lowerBound - start)) }
            if end > range.upperBound { kept.append(piece.dropFirst(range.upperBound - start)) }
        }
        store(kept)
        count -= range.count
        // Owned bytes no piece uses any more at the end are dropped, so that appends extend the last
        // piece again, and the owned bytes stay within what the access unit holds.
        var used = 0
        for i in 0..<pieceCount where pieces[i].borrowed == nil { used = max(used, pieces[i].start + pieces[i].count) }
        ownedCount = used
    }

    /// Puts a copy of `bytes` in at `position` (at most `count`).
    func insert(_ bytes: UnsafeRawBufferPointer, at position: Int) {
        guard let base = bytes.baseAddress, !bytes.isEmpty, position >= 0, position <= count else { return }
        // Rare (an AV1 keyframe without its sequence header): the pieces are rebuilt aside.
        if ownedCount + bytes.count > ownedCapacity { growOwned(to: ownedCount + bytes.count) }
        (owned + ownedCount).copyMemory(from: base, byteCount: bytes.count)
        let inserted = Piece(borrowed: nil, start: ownedCount, count: bytes.count)
        ownedCount += bytes.count
        var rebuilt: [Piece] = []
        rebuilt.reserveCapacity(pieceCount + 2)
        var at = 0
        for i in 0..<pieceCount {
            let piece = pieces[i]
            if position >= at && position < at + piece.count {
                let split = position - at
                if split > 0 { rebuilt.append(piece.prefix(split)) }
                rebuilt.append(inserted)
                rebuilt.append(piece.dropFirst(split))
            } else {
                rebuilt.append(piece)
            }
            at += piece.count
        }
        if position == count { rebuilt.append(inserted) }
        store(rebuilt)
        count += bytes.count
    }

    /// `rebuilt` as the pieces, in place of those there were (`remove`, `insert`).
    private func store(_ rebuilt: [Piece]) {
        while rebuilt.count > pieceCapacity { growPieces() }
        // Pieces are plain values: stored over whatever was there.
        for (i, piece) in rebuilt.enumerated() { pieces[i] = piece }
        pieceCount = rebuilt.count
    }

    /// Calls `body` with the bytes at `range`, in one piece (copied when they span several).
    func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var position = 0
        var copy: [UInt8] = []
        for i in 0..<pieceCount {
            let piece = pieces[i]
            let start = position, end = position + piece.count
            position = end
            guard end > range.lowerBound, start < range.upperBound else { continue }
            let from = max(range.lowerBound, start) - start, to = min(range.upperBound, end) - start
            let bytes = bytesOf(piece)
            if range.lowerBound >= start && range.upperBound <= end {
                return try body(bytes.view(from..<to))
            }
            copy.append(contentsOf: bytes.view(from..<to))
        }
        return try copy.withUnsafeBytes(body)
    }

    @inline(__always)
    private func bytesOf(_ piece: Piece) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: piece.borrowed ?? UnsafeRawPointer(owned + piece.start), count: piece.count)
    }

    /// Calls `body` with the first `end` bytes as views, in order.
    func withPieces<R>(upTo end: Int, _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> R) rethrows -> R {
        if pieceCount > viewCapacity {
            views.deallocate()
            viewCapacity = pieceCapacity
            views = .allocate(capacity: viewCapacity)
        }
        var position = 0
        var n = 0
        while n < pieceCount && position < end {
            let piece = pieces[n]
            let length = min(piece.count, end - position)
            (views + n).initialize(to: UnsafeRawBufferPointer(
                start: piece.borrowed ?? UnsafeRawPointer(owned + piece.start), count: length))
            position += length
            n += 1
        }
        return try body(UnsafeBufferPointer(start: views, count: n))
    }

    /// Drops the first `n` bytes; what follows (SEI and parameter sets of the next picture, always
    /// copies) moves to the front.
    func removeFirst(_ n: Int) {
        carried.removeAll(keepingCapacity: true)
        withBytes(n..<count) { carried.append(contentsOf: $0) }
        removeAll()
        carried.withUnsafeBytes { append($0, borrowing: false) }
    }

    func removeAll() {
        ownedCount = 0
        pieceCount = 0
        count = 0
    }
}
