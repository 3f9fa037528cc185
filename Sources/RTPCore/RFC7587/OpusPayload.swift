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
        let frames: Int
        switch toc & 3 {
        case 0: frames = 1
        case 1, 2: frames = 2
        default:
            guard packet.count >= 2 else { return nil }
            frames = Int(packet[1] & 0x3F)
        }
        return frames * frameSamples(toc)
    }

    /// Samples at 48 kHz in one frame of the configuration the TOC byte names: SILK 10/20/40/60 ms
    /// (configurations 0-11), hybrid 10/20 ms (12-15), CELT 2.5/5/10/20 ms (16-31).
    public static func frameSamples(_ toc: UInt8) -> Int {
        let config = Int(toc >> 3)  // bounded: five bits
        switch config {
        case 0..<12: return [480, 960, 1920, 2880][config % 4]
        case 12..<16: return [480, 960][config % 2]
        default: return [120, 240, 480, 960][config % 4]
        }
    }
}
