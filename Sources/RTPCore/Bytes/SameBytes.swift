extension UnsafeRawBufferPointer {
    /// Whether `other` holds the same bytes, compared eight at a time: parameter sets are compared
    /// with the cached ones at every keyframe, and `elementsEqual` takes a byte at a time.
    public func hasSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        guard count == other.count else { return false }
        var i = 0
        while i + 8 <= count {
            guard loadUnaligned(fromByteOffset: i, as: UInt64.self) == other.loadUnaligned(fromByteOffset: i, as: UInt64.self) else {
                return false
            }
            i += 8
        }
        while i < count {
            guard self[i] == other[i] else { return false }
            i += 1
        }
        return true
    }
}
