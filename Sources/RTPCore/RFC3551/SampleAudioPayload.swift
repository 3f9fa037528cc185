/// The sample-based encodings of RFC 3551 §4.5 that rtprecv takes: PCMU and PCMA (G.711, §4.5.14),
/// G.722 (§4.5.2), G.726 (§4.5.4) and L16 (§4.5.11), with L24, which RFC 3190 §4 defines as L16
/// with three bytes a sample. A packet holds whole samples, any number of them, channels
/// interleaved: it is one frame. One byte is one sample per channel for G.711; for G.722 one byte
/// codes two 16 kHz samples, which is one tick of its 8 kHz RTP clock; L16 and L24 take two and
/// three bytes a sample; G.726's 2 to 5 bits a sample fill whole octets every 8 samples or fewer
/// (G.726-24: 3 octets for 8). So a packet is whole units of `unit.bytes`, each `unit.ticks` long.
public struct SampleAudioPayload: AudioDepacketizer {
    public let track: AudioTrack
    /// The fewest bytes that hold whole samples of every channel, and the ticks they last.
    public let unit: (bytes: Int, ticks: Int)
    /// SRTP's tag on every payload: the stream came without its key (said once).
    private var tagTrail: AuthenticationTagTrail

    public init(track: AudioTrack) {
        self.track = track
        let channels = max(1, track.channels)
        switch track.codec {
        case .g726(let bits, _):
            // Bits a sample over the 8 of an octet, reduced: 4 bits are 1 octet for 2 samples.
            let common = [4, 2, 1].first { bits % $0 == 0 && 8 % $0 == 0 }!
            unit = (bits / common * channels, 8 / common)
        default:
            precondition([.pcmu, .pcma, .g722, .l16, .l24].contains(track.codec))
            unit = (channels * (track.codec.linearPCMBytes ?? 1), 1)
        }
        tagTrail = AuthenticationTagTrail(unit: unit)
    }

    public mutating func process(payload: UnsafeRawBufferPointer, timestamp: Int64, marker: Bool, lostBefore: Int,
                                 sequenceNumber: Int64, into output: AudioUnitOutput) throws {
        if tagTrail.tagBytes == nil {
            tagTrail.add(bytes: payload.count, timestamp: timestamp, sequenceNumber: sequenceNumber)
            if let tag = tagTrail.tagBytes { output.notice(.authenticationTagOnPayloads(bytes: tag)) }
        }
        guard payload.count % unit.bytes == 0 else {
            output.invalid(.accessUnitOverrun)
            return
        }
        // bounded: a payload's length
        try output.unit(track, timestamp: timestamp, duration: Int64(payload.count / unit.bytes * unit.ticks), bytes: payload,
                        firstSequenceNumber: sequenceNumber, lastSequenceNumber: sequenceNumber)
    }

    public mutating func flush(into output: AudioUnitOutput) throws {}
}
