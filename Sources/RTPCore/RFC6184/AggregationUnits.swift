/// The NAL units of an aggregation packet (RFC 6184 §5.7), walked in place.
///
/// STAP-A (§5.7.1, Figure 7) repeats a 16-bit NAL unit size and the NAL unit; STAP-B puts a 16-bit
/// DON first. MTAP16 and MTAP24 (§5.7.2) put a 16-bit DON base (DONB) first, and each unit is
///
///     0                   1                   2                   3
///     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///    :        NAL unit size          |     DOND      |  TS offset    |
///    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///    |  TS offset    |                                               |
///    +-+-+-+-+-+-+-+-+              NAL unit                         |
///    :                                                               :
///
/// (a 24-bit TS offset in MTAP24), where the size counts the NAL unit alone (Figure 12). Some senders
/// count DOND and the TS offset in it too: `sizeCountsPrefix` reads them that way.
///
/// The walk stops at the first unit that is not wholly inside the packet; `overran` then says so,
/// and `overrunHeader` gives that unit's NAL header byte when it is there to read.
public struct AggregationUnits {
    public struct Unit {
        public var nal: UnsafeRawBufferPointer
        /// MTAP: DOND; 0 otherwise.
        public var donDelta: UInt8 = 0
        /// MTAP: TS offset; 0 otherwise.
        public var timestampOffset: UInt32 = 0
    }

    private var cursor: ByteCursor
    private let prefixBytes: Int
    private let sizeCountsPrefix: Bool
    /// STAP-B: the DON; MTAP: DONB. Nil for STAP-A, or when the packet is too short to hold it.
    public let decodingOrderNumber: UInt16?
    public private(set) var overran = false
    public private(set) var overrunHeader: UInt8?

    /// `payload` starts with a STAP-A, STAP-B, MTAP16 or MTAP24 payload header.
    public init(_ payload: UnsafeRawBufferPointer, sizeCountsPrefix: Bool = false) {
        let type = nalUnitType(payload[0])
        cursor = ByteCursor(payload, at: 1)
        prefixBytes = type == H264Payload.mtap16 ? 3 : type == H264Payload.mtap24 ? 4 : 0
        self.sizeCountsPrefix = sizeCountsPrefix && prefixBytes > 0
        decodingOrderNumber = type == H264Payload.stapA ? nil : cursor.readUInt16()
        if type != H264Payload.stapA && decodingOrderNumber == nil { overran = true }
    }

    public mutating func next() -> Unit? {
        guard !overran, cursor.readableBytes > 0 else { return nil }
        let start = cursor
        guard let size = cursor.readUInt16(), size > 0 else { return stop(at: start, headerThere: false) }
        let nalBytes = sizeCountsPrefix ? Int(size) - prefixBytes : Int(size)
        var unit = Unit(nal: UnsafeRawBufferPointer(start: nil, count: 0))
        if prefixBytes > 0 {
            guard let dond = cursor.readUInt8(),
                  let offset = prefixBytes == 3 ? cursor.readUInt16().map(UInt32.init) : cursor.readUInt24()
            else { return stop(at: start, headerThere: false) }
            unit.donDelta = dond
            unit.timestampOffset = offset
        }
        guard nalBytes > 0, let nal = cursor.readSlice(nalBytes) else { return stop(at: start, headerThere: nalBytes > 0) }
        unit.nal = nal
        return unit
    }

    private mutating func stop(at unitStart: ByteCursor, headerThere: Bool) -> Unit? {
        overran = true
        var c = unitStart
        if headerThere && c.skip(2 + prefixBytes) { overrunHeader = c.readUInt8() }
        return nil
    }

    /// Whether every byte after the payload header belongs to a whole, well-formed unit, read with
    /// `sizeCountsPrefix`: the test that tells the two MTAP size conventions apart.
    public static func fitExactly(_ payload: UnsafeRawBufferPointer, sizeCountsPrefix: Bool) -> Bool {
        var units = AggregationUnits(payload, sizeCountsPrefix: sizeCountsPrefix)
        var count = 0
        while let unit = units.next() {
            guard H264Payload.isAggregatable(unit.nal[0]) else { return false }
            count += 1
        }
        return !units.overran && count > 0
    }
}
