/// SPS and PPS NAL units by id, from the SDP and in-band, so that they can be put back in front of an
/// access unit that arrives without them. Ids bound the cache: 32 SPS and 256 PPS (§7.4.2.1.1, §7.4.2.2).
///
/// Each set carries a generation, bumped whenever its content changes, so that an output can tell
/// whether what it last wrote under an id is still what the stream uses. What every access unit
/// asks (is its PPS here, which SPS does it name, how is frame_num coded) is kept in plain arrays
/// beside the bytes, so that asking copies nothing; and it is a class, so that handing it around
/// copies none of its arrays.
public final class ParameterSetCache {
    public static let maxParameterSetBytes = 65536

    /// What a slice header's frame_num needs of its SPS, and how it counts (§7.4.3).
    public struct FrameNumbering: Sendable, Equatable {
        public var log2MaxFrameNum: Int
        public var separateColourPlane: Bool
        public var frameMbsOnly: Bool
        public var gapsAllowed: Bool
        public var maxFrameNum: UInt32 { 1 << log2MaxFrameNum }
    }

    private var spsBytes: [[UInt8]?] = Array(repeating: nil, count: 32)
    private var spsParsed: [SequenceParameterSet?] = Array(repeating: nil, count: 32)
    private var spsNumbering: [FrameNumbering?] = Array(repeating: nil, count: 32)
    private var spsFrameRate: [(numerator: Int, denominator: Int)?] = Array(repeating: nil, count: 32)
    private var spsGeneration = [UInt32](repeating: 0, count: 32)
    private var ppsBytes: [[UInt8]?] = Array(repeating: nil, count: 256)
    /// The SPS each PPS names; 0xFF where there is no PPS.
    private var ppsSPS = [UInt8](repeating: 0xFF, count: 256)
    private var ppsGeneration = [UInt32](repeating: 0, count: 256)
    private var generation: UInt32 = 0
    /// The SPS most recently stored, for reporting the resolution.
    public private(set) var latestSPS: SequenceParameterSet?

    public init() {}

    /// What `store` did with a parameter set.
    public struct Stored {
        public var isSPS: Bool
        /// It replaced a different set with the same id.
        public var replaced: Bool
    }

    /// Stores `nal` (header byte included) when it is a well-formed SPS or PPS; nil when it is
    /// neither. An SPS byte for byte the one cached under its id is not parsed again: senders
    /// repeat theirs before every keyframe, some twice.
    @discardableResult
    public func store(nal: UnsafeRawBufferPointer) -> Stored? {
        guard !nal.isEmpty, nal.count <= Self.maxParameterSetBytes else { return nil }
        switch nalUnitType(nal[0]) {
        case NALUnitType.sps:
            if let id = cachedSPSId(nal: nal) {
                latestSPS = spsParsed[Int(id)]
                return Stored(isSPS: true, replaced: false)
            }
            guard let set = SequenceParameterSet(nal: nal) else { return nil }
            let id = Int(set.seqParameterSetId)
            latestSPS = set
            let replaced = spsBytes[id] != nil
            generation &+= 1
            spsBytes[id] = Array(nal)
            spsParsed[id] = set
            spsNumbering[id] = FrameNumbering(
                log2MaxFrameNum: Int(set.log2MaxFrameNumMinus4) + 4, separateColourPlane: set.separateColourPlaneFlag,
                frameMbsOnly: set.frameMbsOnlyFlag, gapsAllowed: set.gapsInFrameNumValueAllowedFlag)
            spsFrameRate[id] = set.frameRateFraction
            spsGeneration[id] = generation
            return Stored(isSPS: true, replaced: replaced)
        case NALUnitType.pps:
            guard let ids = PictureParameterSetIds(nal: nal) else { return nil }
            let id = Int(ids.picParameterSetId)
            if let old = ppsBytes[id], old.withUnsafeBytes({ $0.hasSameBytes(as: nal) }) { return Stored(isSPS: false, replaced: false) }
            let replaced = ppsBytes[id] != nil
            generation &+= 1
            ppsBytes[id] = Array(nal)
            ppsSPS[id] = UInt8(ids.seqParameterSetId)
            ppsGeneration[id] = generation
            return Stored(isSPS: false, replaced: replaced)
        default:
            return nil
        }
    }

    /// The id of `nal` when it is byte for byte the SPS cached under that id (so well formed).
    public func cachedSPSId(nal: UnsafeRawBufferPointer) -> UInt32? {
        guard let id = SequenceParameterSet.id(nal: nal), let cached = spsBytes[Int(id)], cached.withUnsafeBytes({ $0.hasSameBytes(as: nal) }) else { return nil }
        return id
    }

    public func sps(id: UInt32) -> [UInt8]? { id < 32 ? spsBytes[Int(id)] : nil }
    public func pps(id: UInt32) -> [UInt8]? { id < 256 ? ppsBytes[Int(id)] : nil }
    public func parsedSPS(id: UInt32) -> SequenceParameterSet? { id < 32 ? spsParsed[Int(id)] : nil }

    /// The SPS that PPS `ppsId` names, when the PPS and that SPS are both cached.
    public func spsId(forPPS ppsId: UInt32) -> UInt32? {
        guard ppsId < 256, ppsSPS[Int(ppsId)] != 0xFF, spsBytes[Int(ppsSPS[Int(ppsId)])] != nil else { return nil }
        return UInt32(ppsSPS[Int(ppsId)])
    }

    public func hasParameterSets(forPPS ppsId: UInt32) -> Bool { spsId(forPPS: ppsId) != nil }

    public func spsGeneration(id: UInt32) -> UInt32 { id < 32 ? spsGeneration[Int(id)] : 0 }
    public func ppsGeneration(id: UInt32) -> UInt32 { id < 256 ? ppsGeneration[Int(id)] : 0 }

    /// How the slices that use PPS `ppsId` code frame_num, when its parameter sets are cached.
    public func frameNumbering(forPPS ppsId: UInt32) -> FrameNumbering? {
        spsId(forPPS: ppsId).flatMap { spsNumbering[Int($0)] }
    }

    /// The VUI frame rate of the SPS that PPS `ppsId` names, when signalled.
    public func frameRate(forPPS ppsId: UInt32) -> (numerator: Int, denominator: Int)? {
        spsId(forPPS: ppsId).flatMap { spsFrameRate[Int($0)] }
    }
}
