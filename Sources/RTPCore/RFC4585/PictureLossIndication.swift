/// Payload-specific feedback (RFC 4585 §6.1, PT 206), and its Picture Loss Indication (§6.3.1,
/// FMT 1): "decode from a keyframe", with no FCI.
///
///    |V=2|P|   FMT   |       PT      |          length               |
///    |                  SSRC of packet sender                        |
///    |                  SSRC of media source                         |
///    :            Feedback Control Information (FCI)                 :
public enum PayloadSpecificFeedback {
    public static let packetType: UInt8 = 206
    public static let pictureLossIndication: UInt8 = 1
}

extension RTCPWriter {
    public mutating func pictureLossIndication(sender: UInt32, mediaSource: UInt32) {
        let start = begin(count: PayloadSpecificFeedback.pictureLossIndication, packetType: PayloadSpecificFeedback.packetType)
        u32(sender)
        u32(mediaSource)
        end(start)
    }
}
