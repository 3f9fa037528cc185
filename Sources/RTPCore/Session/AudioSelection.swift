/// Which packets are the session's audio, and with what payload format: the SDP's audio lines,
/// `--audio-payload-type` / `--audio-ssrc`, else the static audio payload types rtprecv takes
/// (RFC 3551: 0 PCMU, 8 PCMA, 9 G.722, 10 and 11 L16, 14 MPA).
public struct AudioSelection: Sendable {
    public var enabled = true
    public var ssrc: UInt32?
    public var payloadType: UInt8?
    /// The SDP's m=audio lines.
    public var media: [MediaDescription] = []
    public var maxFrameBytes = 1 << 16

    public init() {}

    /// The static types taken without an SDP.
    public static let staticTypes: [StaticPayloadType] = [.pcmu, .pcma, .g722, .l16Stereo, .l16Mono, .mpa]

    /// The rtpmap of an audio packet's payload type, or nil when the packet is not the session's audio.
    /// Asked once per new SSRC, not per packet.
    public func format(payloadType: UInt8, ssrc: UInt32, port: UInt16?) -> MediaDescription.Format? {
        guard enabled else { return nil }
        if let wanted = self.ssrc, wanted != ssrc { return nil }
        if let wanted = self.payloadType, wanted != payloadType { return nil }
        if !media.isEmpty {
            // The line of the packet's port decides; a capture without ports, any audio line.
            for line in media where port == nil || line.port == port || line.port == 0 {
                if let format = line.formats[payloadType], AudioFormats.isSupported(format) { return format }
            }
            return nil
        }
        guard let known = StaticPayloadType(rawValue: payloadType), AudioSelection.staticTypes.contains(known) else { return nil }
        return known.format
    }
}
