/// The template dependency structure of the dependency descriptor ("RTP Payload Format For AV1",
/// AOMedia, appendix A.8.3.2): sent with the first packet of a coded video sequence, it gives each
/// frame template its layer, its decode target indications and the frames it refers to, so that
/// later descriptors name a template in six bits.
public struct FrameDependencyStructure: Sendable {
    /// A decode target indication (A.8.3.3): how a frame matters to one decode target.
    public enum Indication: UInt8, Sendable {
        case notPresent = 0, discardable = 1, `switch` = 2, required = 3
    }

    /// What a frame of one template is: its layer, its indications and its references.
    public struct Template: Sendable {
        public var spatialID = 0
        public var temporalID = 0
        /// Two bits per decode target, the first target's lowest (`Indication`).
        public var indications: UInt64 = 0
        public var references = FrameReferenceDiffs()
    }

    public var templateIDOffset = 0
    public var decodeTargetCount = 1
    public var templates: [Template] = []
    /// Chains (A.8.3.2 template_chains): how many, for the frame chain fields that follow.
    public var chainCount = 0
    /// Each spatial layer's render size, when the structure gives them.
    public var resolutions: [(width: Int, height: Int)] = []

    /// The structure at the reader, or nil when it runs past the descriptor or breaks the limits
    /// the syntax implies (a 6-bit template ID: at most 64 templates).
    init?(_ r: inout BitReader) {
        guard let offset = r.read(6), let count = r.read(5) else { return nil }
        templateIDOffset = Int(offset)  // bounded: six bits
        decodeTargetCount = Int(count) + 1  // bounded: five bits
        guard readLayers(&r), readIndications(&r), readReferences(&r), readChains(&r), readResolutions(&r) else { return nil }
    }

    /// template_layers: next_layer_idc says whether the next template is of the same layer, the
    /// next temporal layer, the next spatial layer, or that there are no more.
    private mutating func readLayers(_ r: inout BitReader) -> Bool {
        var current = Template()
        while true {
            guard templates.count < 64, let next = r.read(2) else { return false }
            templates.append(current)
            switch next {
            case 0: break
            case 1: current.temporalID += 1
            case 2: current = Template(spatialID: current.spatialID + 1)
            default: return true
            }
        }
    }

    private mutating func readIndications(_ r: inout BitReader) -> Bool {
        for t in templates.indices {
            guard let indications = Self.readIndications(&r, count: decodeTargetCount) else { return false }
            templates[t].indications = indications
        }
        return true
    }

    /// `count` indications of two bits, packed with the first target's lowest.
    static func readIndications(_ r: inout BitReader, count: Int) -> UInt64? {
        var packed: UInt64 = 0
        for target in 0..<count {
            guard let dti = r.read(2) else { return nil }
            packed |= UInt64(dti) << UInt64(target * 2)  // bounded: two bits, below 32 targets
        }
        return packed
    }

    /// template_fdiffs: each template's references, flagged one by one, four bits each.
    private mutating func readReferences(_ r: inout BitReader) -> Bool {
        for t in templates.indices {
            while true {
                guard let follows = r.readFlag() else { return false }
                if !follows { break }
                guard let minusOne = r.read(4), templates[t].references.append(Int(minusOne) + 1) else { return false }  // bounded: four bits
            }
        }
        return true
    }

    /// template_chains: the chain count, which chain protects each decode target, and each
    /// template's chain fdiffs; only the count is kept (for the frames' own chain fields).
    private mutating func readChains(_ r: inout BitReader) -> Bool {
        guard let count = r.readNonSymmetric(decodeTargetCount + 1) else { return false }
        chainCount = count
        guard count > 0 else { return true }
        for _ in 0..<decodeTargetCount {
            guard r.readNonSymmetric(count) != nil else { return false }
        }
        return r.skip(templates.count * count * 4)
    }

    /// resolutions_present_flag, then the render size of each spatial layer.
    private mutating func readResolutions(_ r: inout BitReader) -> Bool {
        guard let present = r.readFlag() else { return false }
        guard present else { return true }
        for _ in 0...(templates.last?.spatialID ?? 0) {
            guard let width = r.read(16), let height = r.read(16) else { return false }
            resolutions.append((Int(width) + 1, Int(height) + 1))  // bounded: 16 bits each
        }
        return true
    }
}

/// A frame's references as differences of frame numbers, in place: an AV1 frame refers to at most
/// seven frames (REFS_PER_FRAME), so more than seven is malformed.
public struct FrameReferenceDiffs: Sendable {
    private var diffs = SIMD8<UInt16>()
    public private(set) var count = 0

    public init() {}

    /// False when the frame would refer to more than seven.
    mutating func append(_ diff: Int) -> Bool {
        guard count < 7, diff > 0, diff <= 0xFFFF else { return false }
        diffs[count] = UInt16(truncatingIfNeeded: diff)
        count += 1
        return true
    }

    public subscript(i: Int) -> Int { Int(truncatingIfNeeded: diffs[i]) }
}

extension BitReader {
    /// ns(n) (A.8.2): a number below `n` in the fewest bits, shorter for the smaller ones.
    mutating func readNonSymmetric(_ n: Int) -> Int? {
        guard n > 1 else { return n == 1 ? 0 : nil }
        let width = Int.bitWidth - n.leadingZeroBitCount
        let m = (1 << width) - n
        guard let v = read(width - 1).map(Int.init) else { return nil }
        if v < m { return v }
        guard let extra = read(1) else { return nil }
        return (v << 1) - m + Int(extra)  // bounded: one bit
    }
}
