/// The AMF0 values an onMetaData script tag needs.
enum AMF0 {
    static func string(_ s: String, into w: inout ByteWriter) {
        w.u8(AMF0Marker.string)
        shortString(s, into: &w)
    }

    /// A string without its marker, as ECMA array keys are written.
    static func shortString(_ s: String, into w: inout ByteWriter) {
        let utf8 = Array(s.utf8)
        w.u16(UInt16(utf8.count))
        w.append(utf8)
    }

    static func number(_ d: Double, into w: inout ByteWriter) {
        w.u8(AMF0Marker.number)
        numberBits(d, into: &w)
    }

    static func numberBits(_ d: Double, into w: inout ByteWriter) {
        let bits = d.bitPattern
        w.u32(UInt32(bits >> 32))
        w.u32(UInt32(bits & 0xFFFF_FFFF))
    }
}

extension AMF0 {
    /// The values onMetaData holds.
    enum Value {
        case number(Double)
        case boolean(Bool)
    }
}
