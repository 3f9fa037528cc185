/// Where a NAL unit lies in the access unit being assembled, and which packets it came in.
public struct NALUnitRecord: Sendable {
    /// Offset of the start code in the access unit.
    public var offset: Int
    /// Length with the start code.
    public var length: Int
    public var type: UInt8
    /// Extended sequence numbers of the packets the unit began and ended in.
    public var firstPacket: Int64
    public var lastPacket: Int64
}

extension UnsafeBufferPointer where Element == NALUnitRecord {
    /// The units before the first for which `isVCL` holds (the first slice): those a decoder that
    /// starts at this access unit has read when it meets the slice, where its parameter sets must be.
    func beforeFirstSlice(isVCL: (UInt8) -> Bool) -> Slice<Self> {
        self[..<(firstIndex { isVCL($0.type) } ?? endIndex)]
    }
}

/// A set of parameter set ids below 256, without allocation.
public struct ParameterSetIdSet: Sendable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    public init() {}
    public mutating func insert(_ id: UInt32) {
        let bit = UInt64(1) << (id & 63)
        switch id >> 6 {
        case 0: words.0 |= bit
        case 1: words.1 |= bit
        case 2: words.2 |= bit
        default: words.3 |= bit
        }
    }
    public func contains(_ id: UInt32) -> Bool {
        let bit = UInt64(1) << (id & 63)
        switch id >> 6 {
        case 0: return words.0 & bit != 0
        case 1: return words.1 & bit != 0
        case 2: return words.2 & bit != 0
        default: return words.3 & bit != 0
        }
    }
    /// Calls `body` with every id in the set, in order.
    public func forEach(_ body: (UInt32) throws -> Void) rethrows {
        for w in 0..<4 {
            var bits = w == 0 ? words.0 : w == 1 ? words.1 : w == 2 ? words.2 : words.3
            while bits != 0 {
                try body(UInt32(w * 64 + bits.trailingZeroBitCount))
                bits &= bits - 1
            }
        }
    }
    /// Whether `body` holds for every id in the set.
    public func allSatisfy(_ body: (UInt32) -> Bool) -> Bool {
        var all = true
        forEach { if all && !body($0) { all = false } }
        return all
    }
}
