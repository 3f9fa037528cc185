/// RTCP that reaches the RTP path: multiplexed on RTP's port (RFC 5761, as WebRTC and many SIP
/// endpoints send it), or taken by a capture that also holds port + 1. It is counted, not parsed.
public enum RTCP {
    /// RFC 5761 §4: a version-2 datagram whose second octet is 192–223 is RTCP (SR 200, RR 201,
    /// SDES 202, BYE 203, APP 204, feedback 205–206, XR 207); RTP keeps off payload types 64–95, which
    /// with the marker bit would read the same. Eight bytes: a header and the sender's SSRC.
    @inline(__always)
    public static func isPacket(_ datagram: UnsafeRawBufferPointer) -> Bool {
        datagram.count >= 8 && datagram[0] >> 6 == 2 && (192...223).contains(datagram[1])
    }
}
