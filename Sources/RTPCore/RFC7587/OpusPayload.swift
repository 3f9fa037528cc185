/// Opus over RTP (RFC 7587 §4.2): one RTP payload is one Opus packet, on a 48 kHz clock whatever
/// the coded bandwidth. Its duration comes from the TOC byte (RFC 6716 §3.1).
public struct OpusPayload: AudioDepacketizer {
    public let track: AudioTrack

    public init(track: AudioTrack) { self.track = track }

    public mutating func process(payload: UnsafeRawBufferPointer, timestamp: Int64, marker: Bool, lostBefore: Int,
                                 sequenceNumber: Int64, into output: AudioUnitOutput) throws {
        guard let samples = OpusPayload.samples(payload) else {
            output.invalid(.shortHeader)
            return
        }
        try output.unit(track, timestamp: timestamp, duration: Int64(samples * track.clockRate / 48000), bytes: payload,
                        firstSequenceNumber: sequenceNumber, lastSequenceNumber: sequenceNumber)
    }

    public mutating func flush(into output: AudioUnitOutput) throws {}

    /// Samples at 48 kHz in one Opus packet: frames × frame size. nil without its frame count.
    ///
    /// ```
    /// TOC:  config 5 | s 1 | c 2      c: 0 one frame, 1 and 2 two, 3 a count byte follows
    /// ```
    public static func samples(_ packet: UnsafeRawBufferPointer) -> Int? {
        guard let toc = packet.first else { return nil }
        let config = Int(toc >> 3)
        // Frame sizes in 48 kHz samples: SILK 10/20/40/60 ms, hybrid 10/20 ms, CELT 2.5/5/10/20 ms.
        let frameSize: Int
        switch config {
        case 0..<12: frameSize = [480, 960, 1920, 2880][config % 4]
        case 12..<16: frameSize = [480, 960][config % 2]
        default: frameSize = [120, 240, 480, 960][config % 4]
        }
        let frames: Int
        switch toc & 3 {
        case 0: frames = 1
        case 1, 2: frames = 2
        default:
            guard packet.count >= 2 else { return nil }
            frames = Int(packet[1] & 0x3F)
        }
        return frames * frameSize
    }
}
