/// SPS and PPS NAL units by id, from the SDP and in-band, so that they can be put back in front of an
/// access unit that arrives without them. Ids bound the cache: 32 SPS and 256 PPS (§7.4.2.1.1, §7.4.2.2).
///
/// Each set carries a generation, bumped whenever its content changes, so that an output can tell
/// whether what it last wrote under an id is still what the stream uses.
public struct ParameterSetCache: Sendable {
    public static let maxParameterSetBytes = 65536

    public struct Entry: Sendable {
        public var bytes: [UInt8]
        public var generation: UInt32
    }

    private var sps: [Entry?] = Array(repeating: nil, count: 32)
    private var parsed: [SequenceParameterSet?] = Array(repeating: nil, count: 32)
    private var pps: [(spsId: UInt32, entry: Entry)?] = Array(repeating: nil, count: 256)
    private var generation: UInt32 = 0
    /// The SPS most recently stored, for reporting the resolution.
    public private(set) var latestSPS: SequenceParameterSet?

    public init() {}

    /// Stores `nal` (header byte included) when it is a well-formed SPS or PPS.
    /// Returns true when it replaced a different set with the same id.
    @discardableResult
    public mutating func store(nal: UnsafeRawBufferPointer) -> Bool {
        guard !nal.isEmpty, nal.count <= Self.maxParameterSetBytes else { return false }
        switch nalUnitType(nal[0]) {
        case NALUnitType.sps:
            guard let set = SequenceParameterSet(nal: nal) else { return false }
            let id = Int(set.seqParameterSetId)
            latestSPS = set
            if let old = sps[id], old.bytes.elementsEqual(nal) { return false }
            let replaced = sps[id] != nil
            generation &+= 1
            sps[id] = Entry(bytes: Array(nal), generation: generation)
            parsed[id] = set
            return replaced
        case NALUnitType.pps:
            guard let ids = PictureParameterSetIds(nal: nal) else { return false }
            let id = Int(ids.picParameterSetId)
            if let old = pps[id], old.entry.bytes.elementsEqual(nal) { return false }
            let replaced = pps[id] != nil
            generation &+= 1
            pps[id] = (ids.seqParameterSetId, Entry(bytes: Array(nal), generation: generation))
            return replaced
        default:
            return false
        }
    }

    public func sps(id: UInt32) -> Entry? { id < 32 ? sps[Int(id)] : nil }
    public func pps(id: UInt32) -> (spsId: UInt32, entry: Entry)? { id < 256 ? pps[Int(id)] : nil }
    public func parsedSPS(id: UInt32) -> SequenceParameterSet? { id < 32 ? parsed[Int(id)] : nil }

    /// The PPS `ppsId` and the SPS it names, when both are cached.
    public func parameterSets(forPPS ppsId: UInt32) -> (sps: Entry, pps: Entry, parsedSPS: SequenceParameterSet)? {
        guard let p = pps(id: ppsId), let s = sps(id: p.spsId), let parsed = parsedSPS(id: p.spsId) else { return nil }
        return (s, p.entry, parsed)
    }
}
