/// A whole access unit as it leaves the receiver: Annex-B bytes with 4-byte start codes, preceded by
/// its SPS and PPS when it is a keyframe.
public struct AccessUnit {
    public var timestamp: UInt32
    /// The RTP timestamp extended to 64 bits: it never wraps, and is the presentation time (90 kHz).
    public var extendedTimestamp: Int64
    /// The bytes, in order, in one piece or several (payloads referenced where they lie, and
    /// parameter sets put in front of a keyframe). Valid only during the `AccessUnitSink.write` call.
    public var pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>
    public var byteCount: Int
    public var isKeyframe: Bool
    public var isIDR: Bool
    /// Something was lost since the last keyframe: this picture may refer to a missing one.
    public var followsLoss: Bool
    /// When the packet that completed it arrived, on the packet clock (for latency figures).
    public var arrival: Int64 = 0

    public init(timestamp: UInt32, extendedTimestamp: Int64, pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>,
                byteCount: Int, isKeyframe: Bool, isIDR: Bool, followsLoss: Bool) {
        self.timestamp = timestamp
        self.extendedTimestamp = extendedTimestamp
        self.pieces = pieces
        self.byteCount = byteCount
        self.isKeyframe = isKeyframe
        self.isIDR = isIDR
        self.followsLoss = followsLoss
    }

    /// Calls `body` with the bytes in one piece, gathered into `scratch` when they are in several.
    public func withContiguousBytes<R>(scratch: inout [UInt8], _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if pieces.count == 1 { return try body(pieces[0]) }
        scratch.removeAll(keepingCapacity: true)
        for piece in pieces { scratch.append(contentsOf: piece) }
        return try scratch.withUnsafeBytes(body)
    }
}

/// Where access units go: a file, a decoder, a muxer.
public protocol AccessUnitSink: AnyObject {
    /// Returns false when the sink takes no more (a frame limit was reached).
    func write(_ accessUnit: AccessUnit) throws -> Bool
}
