/// A JPEG from RFC 2435 payloads: the headers its first packet's JPEG header stands for, rebuilt
/// (`JPEGHeaderWriter`), then each packet's piece of the scan at its fragment offset, then an EOI
/// unless the scan brought its own. The quantization tables are the Q factor's, the ones the
/// first packet carries, or for Q 128 to 254 without them the last ones carried with that Q. The
/// header is rebuilt only when what it says changes: a stream of one size and tables makes it once.
struct JPEGAssembly: FrameAssembly {
    /// The headers last written, and what they were made from.
    private var header: [UInt8] = []
    private var madeFrom: (type: UInt8, q: UInt8, width: Int, height: Int, restartInterval: UInt16)?
    private var tables: JPEGQuantizationTables?
    /// Tables carried with a Q of 128 to 254, for the frames of that Q that leave them out.
    private var carried: (q: UInt8, tables: JPEGQuantizationTables)?
    /// Where the frame's scan begins in its bytes, once its first packet came.
    private var scanStart: Int?
    /// What the frame in progress is, once its first packet came: for `JPEGFrameHeader`.
    private(set) var frameHeader: JPEGFrameHeader?
    /// The SDP's size, for the frames whose header says 0 (larger than 2040).
    private let pictureSize: (width: Int, height: Int)?

    init() { pictureSize = nil }

    init(pictureSize: (width: Int, height: Int)?) { self.pictureSize = pictureSize }

    mutating func begin(_ bytes: AccessUnitBuffer) {
        scanStart = nil
        frameHeader = nil
    }

    mutating func append(_ data: UnsafeRawBufferPointer, of descriptor: JPEGPayloadHeader, to bytes: AccessUnitBuffer,
                         borrowing: Bool) -> FrameRecord.Reason? {
        var data = data
        if descriptor.fragmentOffset == 0 && scanStart == nil {
            guard let size = prepareHeader(descriptor, tables: data.view(0..<descriptor.tableLength)) else { return .noParameterSets }
            data = data.view(descriptor.tableLength..<data.count)
            header.withUnsafeBytes { bytes.append($0, borrowing: false) }
            scanStart = bytes.count
            frameHeader = JPEGFrameHeader(width: size.width, height: size.height, type: descriptor.type)
        }
        guard let scanStart else { return .missingFragmentStart }
        // Offsets run modulo 2^24; a gap or an overlap is a packet lost or sent twice.
        guard (bytes.count - scanStart) & 0xFF_FFFF == descriptor.fragmentOffset else { return .missingPackets }
        bytes.append(data, borrowing: borrowing)
        return nil
    }

    mutating func end(_ bytes: AccessUnitBuffer) -> FrameRecord.Reason? {
        guard let scanStart else { return nil }
        let endsWithEOI = bytes.count - scanStart >= 2 && bytes.withBytes(bytes.count - 2..<bytes.count) { $0[0] == 0xFF && $0[1] == 0xD9 }
        if !endsWithEOI { Self.endOfImage.withUnsafeBytes { bytes.append($0, borrowing: false) } }
        return nil
    }

    private static let endOfImage: [UInt8] = [0xFF, 0xD9]

    /// The picture's size: the header's, or where it says 0, the SDP's; nil where neither says.
    private func size(of descriptor: JPEGPayloadHeader) -> (width: Int, height: Int)? {
        if descriptor.width > 0 && descriptor.height > 0 { return (descriptor.width, descriptor.height) }
        return pictureSize
    }

    /// The header for `descriptor`'s frame, with `tableData` (its first packet's tables, if any),
    /// and the picture's size; nil when its size or its tables are not known.
    private mutating func prepareHeader(_ descriptor: JPEGPayloadHeader,
                                        tables tableData: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        guard let size = size(of: descriptor) else { return nil }
        let q = descriptor.q
        var next: JPEGQuantizationTables
        if q < 128 {
            next = madeFrom?.q == q ? tables! : JPEGQuantizationTables(q: q)
        } else if !tableData.isEmpty {
            if let tables, tables.precision == descriptor.tablePrecision & 3, tables.areCarried(in: tableData) {
                next = tables
            } else {
                guard let read = JPEGQuantizationTables(precision: descriptor.tablePrecision, data: tableData) else { return nil }
                next = read
            }
            if q < 255 { carried = (q, next) }
        } else if let carried, carried.q == q {
            next = carried.tables
        } else {
            return nil
        }
        let made = (descriptor.type, q, size.width, size.height, descriptor.restartInterval)
        if let madeFrom, madeFrom == made, tables == next { return size }
        (madeFrom, tables) = (made, next)
        JPEGHeaderWriter(width: size.width, height: size.height, type: descriptor.type,
                         restartInterval: descriptor.restartInterval, tables: next).write(into: &header)
        return size
    }
}
