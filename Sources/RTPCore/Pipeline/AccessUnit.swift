/// A whole access unit as it leaves the receiver: Annex-B bytes with 4-byte start codes, preceded by
/// its SPS and PPS when it is a keyframe.
public struct AccessUnit {
    public var timestamp: UInt32
    /// The RTP timestamp extended to 64 bits: it never wraps, and is the presentation time (90 kHz).
    public var extendedTimestamp: Int64
    /// Valid only during the `AccessUnitSink.write` call.
    public var bytes: UnsafeRawBufferPointer
    public var isKeyframe: Bool
    public var isIDR: Bool
    /// Something was lost since the last keyframe: this picture may refer to a missing one.
    public var followsLoss: Bool
    /// When the packet that completed it arrived, on the packet clock (for latency figures).
    public var arrival: Int64 = 0

    public init(timestamp: UInt32, extendedTimestamp: Int64, bytes: UnsafeRawBufferPointer,
                isKeyframe: Bool, isIDR: Bool, followsLoss: Bool) {
        self.timestamp = timestamp
        self.extendedTimestamp = extendedTimestamp
        self.bytes = bytes
        self.isKeyframe = isKeyframe
        self.isIDR = isIDR
        self.followsLoss = followsLoss
    }
}

/// Where access units go: a file, a decoder, a muxer.
public protocol AccessUnitSink: AnyObject {
    /// Returns false when the sink takes no more (a frame limit was reached).
    func write(_ accessUnit: AccessUnit) throws -> Bool
}
