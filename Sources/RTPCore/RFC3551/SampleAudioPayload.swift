/// The sample-based encodings of RFC 3551 §4.5 that rtprecv takes: PCMU and PCMA (G.711, §4.5.14)
/// and G.722 (§4.5.2). A packet holds whole samples, any number of them: it is one frame.
/// One byte is one sample per channel for G.711; for G.722 one byte codes two 16 kHz samples,
/// which is one tick of its 8 kHz RTP clock. Either way, ticks = bytes / channels.
public struct SampleAudioPayload: AudioDepacketizer {
    public let track: AudioTrack

    public init(track: AudioTrack) {
        precondition([.pcmu, .pcma, .g722].contains(track.codec))
        self.track = track
    }

    public mutating func process(payload: UnsafeRawBufferPointer, timestamp: Int64, marker: Bool, lostBefore: Int,
                                 sequenceNumber: Int64, into output: AudioUnitOutput) throws {
        let channels = max(1, track.channels)
        guard payload.count % channels == 0 else {
            output.invalid(.accessUnitOverrun)
            return
        }
        try output.unit(track, timestamp: timestamp, duration: Int64(payload.count / channels), bytes: payload,
                        firstSequenceNumber: sequenceNumber, lastSequenceNumber: sequenceNumber)
    }

    public mutating func flush(into output: AudioUnitOutput) throws {}
}
