/// What walking a capture in place finds at a position of the window. A plain value, numbers only:
/// the walk makes one for every record, and words only for the one it stops at.
enum RecordStep {
    /// A record, and where the next block or record begins.
    case record(CaptureFile.Record, next: Int)
    /// The window ends inside the block or record at `at`, which needs `bytes`: read more, or the
    /// file is cut short (`shortfall` says how).
    case needsMore(at: Int, bytes: Int, shortfall: RecordProblem)
    case failed(at: Int, problem: RecordProblem)
}

/// Why a record cannot be read where the walk is, as the warning says it.
enum RecordProblem: CustomStringConvertible {
    // Classic pcap.
    case recordHeaderCutShort
    case recordCutShort(length: Int, available: Int)
    case recordOverSnaplen(length: Int, snaplen: Int)
    // pcapng.
    case blockHeaderCutShort
    case blockCutShort(length: Int, available: Int)
    case sectionWithoutByteOrderMagic
    case invalidBlockLength(Int)
    case interfaceBlockTooShort
    case interfaceOfAnotherLinkType(index: Int, linkType: Int, first: Int)
    case packetBlockTooShort
    case undescribedInterface(Int)
    case packetOverrunsBlock(length: Int)
    case simplePacketBeforeInterface

    var description: String {
        switch self {
        case .recordHeaderCutShort: "the record header is cut short"
        case .recordCutShort(let length, let available): "a \(length)-byte record has only \(available) bytes"
        case .recordOverSnaplen(let length, let snaplen): "record length \(length) is larger than the snaplen of \(snaplen)"
        case .blockHeaderCutShort: "the block header is cut short"
        case .blockCutShort(let length, let available): "a \(length)-byte block has only \(available) bytes"
        case .sectionWithoutByteOrderMagic: "a section header without the byte-order magic"
        case .invalidBlockLength(let length): "block length \(length) is not a valid block length"
        case .interfaceBlockTooShort: "an interface block is too short"
        case .interfaceOfAnotherLinkType(let index, let linkType, let first):
            "interface \(index) has link type \(linkType), not the first interface's \(first)"
        case .packetBlockTooShort: "a packet block is too short"
        case .undescribedInterface(let id): "a packet names interface \(id), which was not described"
        case .packetOverrunsBlock(let length): "a \(length)-byte packet overruns its block"
        case .simplePacketBeforeInterface: "a simple packet block before any interface"
        }
    }
}
