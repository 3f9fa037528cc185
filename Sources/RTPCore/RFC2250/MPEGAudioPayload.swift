/// MPEG audio over RTP (RFC 2250 §3.5, payload type 14 "MPA", 90 kHz clock). After a 4-byte header,
/// a payload holds whole frames, or one fragment of a frame larger than a packet:
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |             MBZ               |          Frag_offset          |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// Frag_offset is where the payload starts within its frame. The fragments of one frame share its
/// timestamp; a frame is written only when every byte came, with no gap.
public struct MPEGAudioPayload: AudioDepacketizer {
    public private(set) var track: AudioTrack
    public let maxFrameBytes: Int
    private var fragment = AudioFragment()
    /// The whole frame's length, from its header.
    private var fragmentLength = 0

    public init(track: AudioTrack, maxFrameBytes: Int = 1 << 16) {
        self.track = track
        self.maxFrameBytes = maxFrameBytes
    }

    public mutating func process(payload: UnsafeRawBufferPointer, timestamp: Int64, marker: Bool, lostBefore: Int,
                                 sequenceNumber: Int64, into output: AudioUnitOutput) throws {
        guard payload.count > 4 else {
            output.invalid(.shortHeader)
            return
        }
        let offset = Int(payload[2]) << 8 | Int(payload[3])
        let data = payload.view(4..<payload.count)
        if fragment.isOpen {
            if offset > 0 && offset == fragment.bytes.count && timestamp == fragment.timestamp && lostBefore == 0 {
                fragment.append(UnsafeRawBufferPointer(rebasing: data.prefix(fragmentLength - fragment.bytes.count)), packet: sequenceNumber)
                if fragment.bytes.count == fragmentLength { try finishFragment(into: output) }
                return
            }
            try fragment.drop(into: output, reason: lostBefore > 0 ? .missingPackets : .unfinishedFragment, missing: lostBefore)
        }
        guard offset == 0 else {
            // A fragment whose frame's start was lost.
            try output.dropped(timestamp: timestamp, reason: .missingFragmentStart, bytes: data.count,
                               firstSequenceNumber: sequenceNumber, lastSequenceNumber: sequenceNumber,
                               missingPackets: lostBefore)
            return
        }
        var rest = data
        var time = timestamp
        while !rest.isEmpty {
            guard let header = MPEGAudioFrameHeader(rest) else {
                output.invalid(.mpegAudioHeader)
                return
            }
            learn(header)
            let duration = Int64(header.samples * track.clockRate / header.sampleRate)
            // The free format gives no length: the frame is the rest of the payload.
            let length = header.frameLength ?? rest.count
            if length <= rest.count {
                try output.unit(track, timestamp: time, duration: duration, bytes: rest.view(0..<length),
                                firstSequenceNumber: sequenceNumber, lastSequenceNumber: sequenceNumber)
                rest = rest.view(length..<rest.count)
                time += duration
                continue
            }
            guard length <= maxFrameBytes else {
                output.invalid(.oversize)
                return
            }
            // The frame goes on in the next packets.
            fragment.start(rest, timestamp: time, packet: sequenceNumber)
            fragmentLength = length
            return
        }
    }

    public mutating func flush(into output: AudioUnitOutput) throws {
        if fragment.isOpen { try fragment.drop(into: output, reason: .incompleteAtEnd, missing: 0) }
    }

    private mutating func learn(_ header: MPEGAudioFrameHeader) {
        if track.sampleRate == 0 || track.layer == nil {
            track.sampleRate = header.sampleRate
            track.channels = header.channels
            track.layer = header.layer
        }
    }

    private mutating func finishFragment(into output: AudioUnitOutput) throws {
        let (time, first, last) = (fragment.timestamp, fragment.firstPacket, fragment.lastPacket)
        let track = self.track
        try fragment.finish { bytes in
            let header = MPEGAudioFrameHeader(bytes)!
            try output.unit(track, timestamp: time, duration: Int64(header.samples * track.clockRate / header.sampleRate),
                            bytes: bytes, firstSequenceNumber: first, lastSequenceNumber: last)
        }
    }
}
