/// Annex-B byte streams (H.264 Annex B, H.265 Annex B): NAL units behind start codes, as access
/// units hold them.
public enum AnnexB {
    /// Calls `body` with each NAL unit of an Annex-B buffer (start codes of 3 or 4 bytes).
    public static func forEachNALUnit(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        forEachNALUnit(bytes, while: { body($0); return true })
    }

    /// Calls `body` with each NAL unit of an Annex-B buffer, until it returns false.
    public static func forEachNALUnit(_ bytes: UnsafeRawBufferPointer, while body: (UnsafeRawBufferPointer) -> Bool) {
        var start = -1, going = true
        forEachStartCode(bytes) { code in
            if start >= 0 {
                var end = code
                if end > start && bytes[end - 1] == 0 { end -= 1 }  // the 4th byte of a long start code
                if end > start && !body(bytes.view(start..<end)) { going = false }
            }
            start = code + 3
            return going
        }
        if going && start >= 0 && start < bytes.count { _ = body(bytes.view(start..<bytes.count)) }
    }

    /// Whether `bytes` holds a start code (00 00 01), which no NAL unit does (emulation prevention):
    /// a sender put an Annex-B stream where one NAL unit belongs.
    @inline(__always)
    public static func containsStartCode(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var found = false
        forEachStartCode(bytes) { _ in
            found = true
            return false
        }
        return found
    }

    /// Where the NAL units of `bytes` lie when start codes split it: the bytes before the first
    /// code, and after each, without the zero bytes that end them (trailing_zero_8bits and a long
    /// start code's first byte); empty ones left out.
    public static func unitRanges(splitting bytes: UnsafeRawBufferPointer) -> [Range<Int>] {
        var ranges: [Range<Int>] = [], start = 0
        func close(_ end: Int) {
            var end = end
            while end > start && bytes[end - 1] == 0 { end -= 1 }
            if end > start { ranges.append(start..<end) }
        }
        forEachStartCode(bytes) { code in
            close(code)
            start = code + 3
            return true
        }
        close(bytes.count)
        return ranges
    }

    /// Calls `body` with where each start code (00 00 01) begins, in order, until it returns false.
    /// Looks at every third byte where it can (the 1 of a code, or a byte that rules one out), so a
    /// slice costs little.
    @inline(__always)
    private static func forEachStartCode(_ bytes: UnsafeRawBufferPointer, _ body: (Int) -> Bool) {
        var i = 2
        while i < bytes.count {
            let byte = bytes[i]
            if byte > 1 {
                i += 3
            } else if byte == 1 {
                if bytes[i - 1] == 0 && bytes[i - 2] == 0 && !body(i - 2) { return }
                i += 3
            } else {
                i += 1
            }
        }
    }

    /// The NAL units of an SDP's parameter-set item: the item itself, or, where a camera put start
    /// codes in it (GW Security's end each item with 00 00 00 01), the units between them. A NAL
    /// unit never holds 00 00 01 (emulation prevention), so one found is a start code.
    public static func parameterSetNALUnits(_ item: [UInt8]) -> [[UInt8]] {
        item.withUnsafeBytes { bytes in
            containsStartCode(bytes) ? unitRanges(splitting: bytes).map { Array(bytes[$0]) } : [item]
        }
    }
}
