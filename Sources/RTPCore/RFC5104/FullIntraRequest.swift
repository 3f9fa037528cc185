/// Full Intra Request (RFC 5104 §4.3.1): payload-specific feedback with FMT 4. The media source
/// field is zero; each FCI entry names the source and a sequence number that grows by one with each
/// new request, so a sender can tell a repeat from a new one.
///
///    |                              SSRC                             |
///    | Seq nr.       |    Reserved                                   |
extension PayloadSpecificFeedback {
    public static let fullIntraRequest: UInt8 = 4
}

extension RTCPWriter {
    public mutating func fullIntraRequest(sender: UInt32, mediaSource: UInt32, sequenceNumber: UInt8) {
        let start = begin(count: PayloadSpecificFeedback.fullIntraRequest, packetType: PayloadSpecificFeedback.packetType)
        u32(sender)
        u32(0)
        u32(mediaSource)
        u8(sequenceNumber)
        u24(0)
        end(start)
    }
}
