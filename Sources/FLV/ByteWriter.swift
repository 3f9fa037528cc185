/// Big-endian appends to a reused byte array.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { bytes.append(UInt8(v >> 8)); bytes.append(UInt8(v & 0xFF)) }
    mutating func u24(_ v: UInt32) {
        bytes.append(UInt8(v >> 16 & 0xFF)); bytes.append(UInt8(v >> 8 & 0xFF)); bytes.append(UInt8(v & 0xFF))
    }
    mutating func u32(_ v: UInt32) { u16(UInt16(v >> 16)); u16(UInt16(v & 0xFFFF)) }
    mutating func append<C: Collection>(_ c: C) where C.Element == UInt8 { bytes.append(contentsOf: c) }

    mutating func put24(_ v: UInt32, at offset: Int) {
        bytes[offset] = UInt8(v >> 16 & 0xFF); bytes[offset + 1] = UInt8(v >> 8 & 0xFF); bytes[offset + 2] = UInt8(v & 0xFF)
    }
    mutating func put32(_ v: UInt32, at offset: Int) {
        put24(v >> 8, at: offset)
        bytes[offset + 3] = UInt8(v & 0xFF)
    }
}
