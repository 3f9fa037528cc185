/// The aggregation header that begins every AV1 RTP payload ("RTP Payload Format For AV1",
/// AOMedia, §4.4):
///
///      0 1 2 3 4 5 6 7
///     +-+-+-+-+-+-+-+-+
///     |Z|Y| W |N|-|-|-|
///     +-+-+-+-+-+-+-+-+
///
/// Z: the first OBU element continues an OBU from the previous packet; Y: the last one continues in
/// the next; W: how many OBU elements (0: each has a LEB128 length; else the last has none); N: the
/// first packet of a coded video sequence. A temporal unit is the packets of one timestamp, to the
/// marker bit; nothing in the header marks its first packet.
public struct AV1AggregationHeader: Sendable, Equatable {
    public var continuesOBU: Bool
    public var continuesInNextPacket: Bool
    public var elementCount: Int
    public var beginsCodedVideoSequence: Bool

    public let size = 1

    public init?(_ payload: UnsafeRawBufferPointer) {
        guard let byte = payload.first else { return nil }
        continuesOBU = byte & 0x80 != 0
        continuesInNextPacket = byte & 0x40 != 0
        elementCount = Int(byte >> 4 & 3)  // bounded: two bits
        beginsCodedVideoSequence = byte & 0x08 != 0
        // N with Z cannot be: a coded video sequence does not begin inside an OBU.
        if beginsCodedVideoSequence && continuesOBU { return nil }
    }

    /// Calls `body` with each OBU element of `elements` (the payload after this header) and whether
    /// it is the last; returns false when a length runs past the payload or the count falls short.
    public func forEachElement(_ elements: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Bool) -> Void) -> Bool {
        var rest = elements, index = 0
        while !rest.isEmpty {
            index += 1
            let last = elementCount != 0 && index == elementCount
            if last {
                body(rest, true)
                return true
            }
            guard let length = LEB128.read(rest), length.value <= rest.count - length.size else { return false }
            let element = rest.view(length.size..<length.size + length.value)
            rest = rest.view(length.size + length.value..<rest.count)
            body(element, rest.isEmpty)
        }
        return elementCount == 0 || index == elementCount
    }
}
