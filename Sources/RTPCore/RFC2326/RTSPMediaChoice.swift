/// Which media lines of a server's session description an RTSP client sets up.
extension SessionDescription {
    /// The first video line of a registered codec, and the first audio line of a codec rtprecv
    /// takes (with `takingAudio`), by index. A line marked a=sendonly (an ONVIF audio back channel,
    /// which Dahua lists even when not asked for it) is taken only where no other line would do,
    /// as some cameras mark every line so.
    public func mediaToSetUp(takingAudio: Bool) -> [Int] {
        func first(_ takes: (MediaDescription) -> Bool) -> Int? {
            media.indices.first { takes(media[$0]) && !media[$0].isSendOnly } ?? media.firstIndex(where: takes)
        }
        var taken: [Int] = []
        if let video = first({ m in
            m.media == "video" && m.payloadTypes.contains { m.formats[$0].flatMap { VideoCodec(encodingName: $0.encodingName) } != nil }
        }) {
            taken.append(video)
        }
        if takingAudio, let audio = first({ m in
            m.media == "audio" && m.payloadTypes.contains { m.formats[$0].map(AudioFormats.isSupported) ?? false }
        }) {
            taken.append(audio)
        }
        return taken
    }
}
