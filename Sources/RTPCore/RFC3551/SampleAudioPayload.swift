/// The sample-based encodings of RFC 3551 §4.5 that rtprecv takes: PCMU and PCMA (G.711, §4.5.14),
/// G.722 (§4.5.2) and L16 (§4.5.11), with L24, which RFC 3190 §4 defines as L16 with three bytes
/// a sample. A packet holds whole samples, any number of them, channels interleaved: it is one
/// frame. One byte is one sample per channel for G.711; for G.722 one byte codes two 16 kHz
/// samples, which is one tick of its 8 kHz RTP clock; L16 and L24 take two and three bytes a
/// sample. So ticks = bytes / (channels × bytes a sample).
public struct SampleAudioPayload: AudioDepacketizer {
    public let track: AudioTrack
    /// Bytes of one tick of the RTP clock, every channel's sample.
    private let bytesPerTick: Int

    public init(track: AudioTrack) {
        precondition([.pcmu, .pcma, .g722, .l16, .l24].contains(track.codec))
        self.track = track
        bytesPerTick = max(1, track.channels) * (track.codec.linearPCMBytes ?? 1)
    }

    public mutating func process(payload: UnsafeRawBufferPointer, timestamp: Int64, marker: Bool, lostBefore: Int,
                                 sequenceNumber: Int64, into output: AudioUnitOutput) throws {
        guard payload.count % bytesPerTick == 0 else {
            output.invalid(.accessUnitOverrun)
            return
        }
        // bounded: a payload's length
        try output.unit(track, timestamp: timestamp, duration: Int64(payload.count / bytesPerTick), bytes: payload,
                        firstSequenceNumber: sequenceNumber, lastSequenceNumber: sequenceNumber)
    }

    public mutating func flush(into output: AudioUnitOutput) throws {}
}
