/// VPS, SPS and PPS NAL units by id, from the SDP and in-band, so that they can be put back in front
/// of an IRAP access unit that arrives without them. Ids bound it: 16 VPS, 16 SPS, 64 PPS
/// (§7.4.3.1–§7.4.3.3). As in H.264's cache, each set carries a generation bumped when its content
/// changes, so that an output can tell whether what it last wrote under an id is still current.
public final class HEVCParameterSetCache {
    public static let maxParameterSetBytes = 65536

    /// The three kinds, indexed as `bytes` and `generations` are.
    public enum Kind: Int, CaseIterable, Sendable {
        case vps, sps, pps

        public static func of(type: UInt8) -> Kind? {
            switch type {
            case HEVCNALUnitType.vps: .vps
            case HEVCNALUnitType.sps: .sps
            case HEVCNALUnitType.pps: .pps
            default: nil
            }
        }

        public var capacity: Int { self == .pps ? 64 : 16 }
    }

    private var bytes: [[[UInt8]?]] = Kind.allCases.map { Array(repeating: nil, count: $0.capacity) }
    private var generations: [[UInt32]] = Kind.allCases.map { Array(repeating: 0, count: $0.capacity) }
    private var parsedSPS: [HEVCSequenceParameterSet?] = Array(repeating: nil, count: 16)
    /// The SPS each PPS names; 0xFF where there is no PPS.
    private var ppsSPS = [UInt8](repeating: 0xFF, count: 64)
    private var generation: UInt32 = 0
    /// The SPS most recently stored, for the report.
    public private(set) var latestSPS: HEVCSequenceParameterSet?

    public init() {}

    /// The kind and id of a VPS, SPS or PPS that parses.
    public static func identify(nal: UnsafeRawBufferPointer) -> (Kind, Int)? {
        guard nal.count >= 3, let kind = Kind.of(type: HEVCNALHeader(nal).type) else { return nil }
        switch kind {
        case .vps: return hevcVideoParameterSetId(nal: nal).map { (kind, Int($0)) }
        case .sps: return HEVCSequenceParameterSet(nal: nal).map { (kind, Int($0.seqParameterSetId)) }
        case .pps: return HEVCPictureParameterSetIds(nal: nal).map { (kind, Int($0.picParameterSetId)) }
        }
    }

    /// What `store` made of a parameter set that parses: its kind, and whether it replaced a
    /// different set under the same id.
    public struct Stored: Sendable {
        public var kind: Kind
        public var replaced: Bool
    }

    /// Stores `nal` (both header bytes included) when it is a VPS, SPS or PPS that parses, each
    /// parsed once here; nil when it is none. One over `maxParameterSetBytes` is not kept.
    @discardableResult
    public func store(nal: UnsafeRawBufferPointer) -> Stored? {
        guard nal.count >= 3, let kind = Kind.of(type: HEVCNALHeader(nal).type) else { return nil }
        let id: Int
        var sps: HEVCSequenceParameterSet?, ppsIds: HEVCPictureParameterSetIds?
        switch kind {
        case .vps:
            guard let vps = hevcVideoParameterSetId(nal: nal) else { return nil }
            id = Int(vps)
        case .sps:
            sps = HEVCSequenceParameterSet(nal: nal)
            guard let sps else { return nil }
            id = Int(sps.seqParameterSetId)
        case .pps:
            ppsIds = HEVCPictureParameterSetIds(nal: nal)
            guard let ppsIds else { return nil }
            id = Int(ppsIds.picParameterSetId)
        }
        guard nal.count <= Self.maxParameterSetBytes else { return Stored(kind: kind, replaced: false) }
        if let sps {
            parsedSPS[id] = sps
            latestSPS = sps
        }
        if let ppsIds { ppsSPS[id] = UInt8(ppsIds.seqParameterSetId) }
        if let old = bytes[kind.rawValue][id], old.withUnsafeBytes({ $0.hasSameBytes(as: nal) }) { return Stored(kind: kind, replaced: false) }
        let replaced = bytes[kind.rawValue][id] != nil
        generation &+= 1
        bytes[kind.rawValue][id] = Array(nal)
        generations[kind.rawValue][id] = generation
        return Stored(kind: kind, replaced: replaced)
    }

    public func bytes(_ kind: Kind, id: Int) -> [UInt8]? { id < kind.capacity ? bytes[kind.rawValue][id] : nil }
    public func generation(_ kind: Kind, id: Int) -> UInt32 { id < kind.capacity ? generations[kind.rawValue][id] : 0 }
    public func sps(id: Int) -> HEVCSequenceParameterSet? { id < 16 ? parsedSPS[id] : nil }

    /// The ids of a PPS and the SPS and VPS it leads to.
    public struct Chain: Sendable {
        public var vps: Int
        public var sps: Int
        public var pps: Int

        public subscript(kind: Kind) -> Int {
            switch kind {
            case .vps: vps
            case .sps: sps
            case .pps: pps
            }
        }
    }

    /// The SPS and VPS that PPS `ppsId` leads to, when all three are cached.
    public func chain(forPPS ppsId: UInt32) -> Chain? {
        guard ppsId < 64, bytes[Kind.pps.rawValue][Int(ppsId)] != nil, ppsSPS[Int(ppsId)] != 0xFF else { return nil }
        let spsId = Int(ppsSPS[Int(ppsId)])
        guard let sps = parsedSPS[spsId], bytes[Kind.sps.rawValue][spsId] != nil,
              bytes[Kind.vps.rawValue][Int(sps.videoParameterSetId)] != nil else { return nil }
        return Chain(vps: Int(sps.videoParameterSetId), sps: spsId, pps: Int(ppsId))
    }
}
