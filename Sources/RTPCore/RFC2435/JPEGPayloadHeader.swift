/// The headers in front of each RFC 2435 payload (§3.1): the main JPEG header, a Restart Marker
/// header for types 64 to 127, and in a frame's first packet, for Q of 128 or more, a Quantization
/// Table header whose tables follow it.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     | Type-specific |              Fragment Offset                  |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |      Type     |       Q       |     Width     |     Height    |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |       Restart Interval        |F|L|       Restart Count       |   types 64-127
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |      MBZ      |   Precision   |             Length            |   Q >= 128, offset 0
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// Only the types the RFC defines are read (0 and 1, 64 and 65 with restart markers); the others
/// need an agreement outside it. A width or height of 0 is a picture larger than 2040, whose size
/// the SDP gives (`a=x-dimensions`).
struct JPEGPayloadHeader {
    /// Where this packet's data lies in the frame's scan.
    let fragmentOffset: Int
    /// 0 (4:2:2) or 1 (4:2:0), the restart marker bit (64) taken off.
    let type: UInt8
    let q: UInt8
    /// In pixels; 0 where the picture is larger than the header can say.
    let width: Int
    let height: Int
    let restartInterval: UInt16
    /// The Quantization Table header's precision and the length of the tables after it; 0 when
    /// there is none, or when it says the tables were sent before (Q 128 to 254).
    let tablePrecision: UInt8
    let tableLength: Int
    /// The headers' bytes, up to the tables (which `JPEGAssembly` reads from the data).
    let size: Int

    init?(_ payload: UnsafeRawBufferPointer) {
        guard payload.count >= 8 else { return nil }
        // bounded: widenings of bytes, here and below
        fragmentOffset = Int(payload[1]) << 16 | Int(payload[2]) << 8 | Int(payload[3])
        let rawType = payload[4]
        guard rawType & ~0x41 == 0 else { return nil }
        type = rawType & 1
        q = payload[5]
        // bounded: a byte times 8
        (width, height) = (Int(payload[6]) * 8, Int(payload[7]) * 8)
        guard q != 0 else { return nil }
        var at = 8
        if rawType & 0x40 != 0 {
            guard payload.count >= at + 4 else { return nil }
            // bounded: widenings of bytes
            restartInterval = UInt16(payload[at]) << 8 | UInt16(payload[at + 1])
            at += 4
        } else {
            restartInterval = 0
        }
        if q >= 128 && fragmentOffset == 0 {
            guard payload.count >= at + 4 else { return nil }
            tablePrecision = payload[at + 1]
            // bounded: widenings of bytes
            tableLength = Int(payload[at + 2]) << 8 | Int(payload[at + 3])
            at += 4
            guard tableLength <= payload.count - at, q != 255 || tableLength > 0 else { return nil }
        } else {
            (tablePrecision, tableLength) = (0, 0)
        }
        size = at
    }
}
