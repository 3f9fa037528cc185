/// SPS and PPS NAL units by id, from the SDP and in-band, so that they can be put back in front of a
/// keyframe that arrives without them. Ids bound the cache: 32 SPS and 256 PPS (§7.4.2.1.1, §7.4.2.2).
public struct ParameterSetCache: Sendable {
    public static let maxParameterSetBytes = 65536

    private var sps: [[UInt8]?] = Array(repeating: nil, count: 32)
    private var pps: [(spsId: UInt32, bytes: [UInt8])?] = Array(repeating: nil, count: 256)
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
            guard let parsed = SequenceParameterSet(nal: nal) else { return false }
            let id = Int(parsed.seqParameterSetId)
            latestSPS = parsed
            if let old = sps[id], old.elementsEqual(nal) { return false }
            let replaced = sps[id] != nil
            sps[id] = Array(nal)
            return replaced
        case NALUnitType.pps:
            guard let ids = PictureParameterSetIds(nal: nal) else { return false }
            let id = Int(ids.picParameterSetId)
            if let old = pps[id], old.bytes.elementsEqual(nal) { return false }
            let replaced = pps[id] != nil
            pps[id] = (ids.seqParameterSetId, Array(nal))
            return replaced
        default:
            return false
        }
    }

    public func sps(id: UInt32) -> [UInt8]? { id < 32 ? sps[Int(id)] : nil }
    public func pps(id: UInt32) -> (spsId: UInt32, bytes: [UInt8])? { id < 256 ? pps[Int(id)] : nil }
    public func parsedSPS(id: UInt32) -> SequenceParameterSet? {
        sps(id: id).flatMap { bytes in bytes.withUnsafeBytes { SequenceParameterSet(nal: $0) } }
    }
}
