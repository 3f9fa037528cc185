/// A reader over a borrowed byte buffer. Reads are big-endian and return `nil` on short input
/// instead of trapping, so a hostile packet can only ever fail a parse.
public struct ByteCursor {
    public let bytes: UnsafeRawBufferPointer
    /// Offset of the next byte to read, from the start of `bytes`.
    public private(set) var readerIndex: Int

    public init(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0) {
        self.bytes = bytes
        self.readerIndex = offset
    }

    public var readableBytes: Int { bytes.count - readerIndex }

    public mutating func readUInt8() -> UInt8? {
        guard readableBytes >= 1 else { return nil }
        defer { readerIndex += 1 }
        return bytes[readerIndex]
    }

    public mutating func readUInt16() -> UInt16? {
        guard readableBytes >= 2 else { return nil }
        defer { readerIndex += 2 }
        return bytes.loadUnaligned(fromByteOffset: readerIndex, as: UInt16.self).bigEndian
    }

    public mutating func readUInt24() -> UInt32? {
        guard readableBytes >= 3 else { return nil }
        defer { readerIndex += 3 }
        return UInt32(bytes[readerIndex]) << 16 | UInt32(bytes[readerIndex + 1]) << 8 | UInt32(bytes[readerIndex + 2])
    }

    public mutating func readUInt32() -> UInt32? {
        guard readableBytes >= 4 else { return nil }
        defer { readerIndex += 4 }
        return bytes.loadUnaligned(fromByteOffset: readerIndex, as: UInt32.self).bigEndian
    }

    /// A view of the next `count` bytes, sharing storage with `bytes`.
    public mutating func readSlice(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, readableBytes >= count else { return nil }
        defer { readerIndex += count }
        return UnsafeRawBufferPointer(rebasing: bytes[readerIndex..<readerIndex + count])
    }

    /// The rest of the buffer as a view.
    public mutating func readRemaining() -> UnsafeRawBufferPointer {
        readSlice(readableBytes)!
    }

    public mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, readableBytes >= count else { return false }
        readerIndex += count
        return true
    }
}

extension UnsafeRawBufferPointer {
    /// The bytes in `range`, rebased so that index 0 is the first of them.
    @inlinable @inline(__always)
    public func view(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: self[range])
    }

    /// No bytes: what an absent part of a packet is.
    public static var empty: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }
}
