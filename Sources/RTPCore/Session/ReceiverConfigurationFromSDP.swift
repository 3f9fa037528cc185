extension Receiver.Configuration {
    /// What a session description says about the streams to receive: the video's parameter sets,
    /// payload types (unless one was chosen), clock rate, codecs and fmtp; the audio lines;
    /// the RTCP ports; the RTX and RED payload types; the dependency descriptor's ID (unless one was chosen).
    public mutating func take(_ sdp: SessionDescription) {
        parameterSets = sdp.parameterSets
        if payloadType == nil { videoFormatParameters = sdp.videoFormatParameters }
        payloadType = payloadType ?? sdp.payloadType
        video.clockRate = sdp.clockRate
        formatParameters = sdp.formatParameters
        videoCodecs = sdp.videoCodecs
        video.dependencyDescriptorID = video.dependencyDescriptorID ?? sdp.video?.headerExtensionID(uri: DependencyDescriptor.uri)
        audio.media = sdp.media.filter { $0.media == "audio" }
        rtcpPorts = sdp.media.compactMap(\.rtcpPort)
        for line in sdp.media {
            retransmission.merge(line.retransmissionPayloadTypes) { a, _ in a }
            redundancy.formUnion(line.redundancyPayloadTypes)
        }
    }
}
