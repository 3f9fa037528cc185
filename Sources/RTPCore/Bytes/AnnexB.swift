/// Annex-B byte streams (H.264 Annex B, H.265 Annex B): NAL units behind start codes, as access
/// units hold them.
public enum AnnexB {
    /// Calls `body` with each NAL unit of an Annex-B buffer (start codes of 3 or 4 bytes).
    public static func forEachNALUnit(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        forEachNALUnit(bytes, while: { body($0); return true })
    }

    /// Calls `body` with each NAL unit of an Annex-B buffer, until it returns false.
    public static func forEachNALUnit(_ bytes: UnsafeRawBufferPointer, while body: (UnsafeRawBufferPointer) -> Bool) {
        var i = 0, start = -1
        let n = bytes.count
        while i + 2 < n {
            if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 {
                if start >= 0 {
                    var end = i
                    if end > start && bytes[end - 1] == 0 { end -= 1 }  // the 4th byte of a long start code
                    if end > start && !body(bytes.view(start..<end)) { return }
                }
                i += 3
                start = i
            } else {
                i += 1
            }
        }
        if start >= 0 && start < n { _ = body(bytes.view(start..<n)) }
    }

    /// The NAL units of an SDP's parameter-set item: the item itself, or, where a camera put start
    /// codes in it (GW Security's end each item with 00 00 00 01), the units between them. A NAL
    /// unit never holds 00 00 01 (emulation prevention), so one found is a start code.
    public static func parameterSetNALUnits(_ item: [UInt8]) -> [[UInt8]] {
        guard item.count >= 3, (0..<item.count - 2).contains(where: { item[$0] == 0 && item[$0 + 1] == 0 && item[$0 + 2] == 1 }) else {
            return [item]
        }
        var units: [[UInt8]] = []
        ([0, 0, 1] + item).withUnsafeBytes { bytes in
            forEachNALUnit(bytes) { (nal: UnsafeRawBufferPointer) -> Void in
                var unit = Array(nal)
                while unit.last == 0 { unit.removeLast() }
                if !unit.isEmpty { units.append(unit) }
            }
        }
        return units
    }
}
