/// Which interleaved channels (RFC 2326 §10.12) of a captured connection carry RTCP. Servers
/// choose the numbers (RTP and RTCP usually on 2n and 2n+1, not always), so a channel is RTCP's
/// when its first frame is RTCP. What else comes on an RTCP channel is malformed RTCP, never a
/// stream of its own.
public struct InterleavedChannelRoles: Sendable {
    private enum Role: UInt8 { case unknown, rtp, rtcp }
    private var roles = [Role](repeating: .unknown, count: 256)

    public init() {}

    /// Whether `frame`, on `channel`, goes to RTCP: it is RTCP, or the channel is RTCP's.
    public mutating func isRTCP(_ frame: UnsafeRawBufferPointer, channel: UInt8) -> Bool {
        // bounded: a UInt8 indexes the 256 roles
        let i = Int(channel)
        let isPacket = RTCP.isPacket(frame)
        if roles[i] == .unknown { roles[i] = isPacket ? .rtcp : .rtp }
        return isPacket || roles[i] == .rtcp
    }
}
