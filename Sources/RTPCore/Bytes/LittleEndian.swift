extension Array where Element == UInt8 {
    /// Appends `value` little-endian, in `T`'s width: the fields of WAV, IVF and Opus headers.
    public mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
