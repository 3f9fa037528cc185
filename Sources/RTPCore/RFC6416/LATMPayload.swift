/// MPEG-4 audio in LATM over RTP (RFC 6416 §6): a payload is an audioMuxElement, or a fragment of
/// one (the marker bit ends it; the fragments share its timestamp).
///
/// ```
/// audioMuxElement(muxConfigPresent):
///   [useSameStreamMux 1 | StreamMuxConfig if 0]      only when cpresent=1
///   (PayloadLengthInfo | PayloadMux) × (numSubFrames + 1)
///   [otherData]  byte_alignment
/// PayloadLengthInfo (frameLengthType 0): bytes of 255 and a last byte below 255, summed
/// ```
///
/// With `cpresent=1` the element starts with a bit of its own, so its frames do not start on byte
/// boundaries: they are shifted into whole bytes before they leave.
public struct LATMPayload: AudioDepacketizer {
    public private(set) var track: AudioTrack
    public let configPresent: Bool
    public let maxFrameBytes: Int
    public private(set) var config: StreamMuxConfig?
    /// The audioMuxElement being gathered from fragments.
    private var element = AudioFragment()
    /// A frame shifted into whole bytes.
    private var frame: [UInt8] = []
    /// In-band configs that changed the track.
    public private(set) var configChanges = 0

    public init(track: AudioTrack, parameters: MP4ALATMParameters, maxFrameBytes: Int = 1 << 16) {
        self.track = track
        configPresent = parameters.configPresent
        config = parameters.config
        self.maxFrameBytes = maxFrameBytes
        if let config { self.track.codec = .aac(config.audioSpecificConfig) }
    }

    public mutating func process(payload: UnsafeRawBufferPointer, timestamp: Int64, marker: Bool, lostBefore: Int,
                                 sequenceNumber: Int64, into output: AudioUnitOutput) throws {
        if element.isOpen && (lostBefore > 0 || timestamp != element.timestamp) {
            try element.drop(into: output, reason: lostBefore > 0 ? .missingPackets : .unfinishedFragment, missing: lostBefore)
        }
        if !element.isOpen && marker {
            // The common case: one whole element, read where it lies.
            try parse(payload, timestamp: timestamp, first: sequenceNumber, last: sequenceNumber, into: output)
            return
        }
        guard element.bytes.count + payload.count <= maxFrameBytes else {
            output.invalid(.oversize)
            if element.isOpen { try element.drop(into: output, reason: .unfinishedFragment, missing: 0) }
            return
        }
        if element.isOpen {
            element.append(payload, packet: sequenceNumber)
        } else {
            element.start(payload, timestamp: timestamp, packet: sequenceNumber)
        }
        if marker {
            let (time, first) = (element.timestamp, element.firstPacket)
            var whole = element
            try whole.finish { try parse($0, timestamp: time, first: first, last: sequenceNumber, into: output) }
            element = whole
        }
    }

    public mutating func flush(into output: AudioUnitOutput) throws {
        if element.isOpen { try element.drop(into: output, reason: .incompleteAtEnd, missing: 0) }
    }

    /// One or more audioMuxElements, back to back.
    private mutating func parse(_ bytes: UnsafeRawBufferPointer, timestamp: Int64, first: Int64, last: Int64,
                                into output: AudioUnitOutput) throws {
        var reader = BitReader(bytes)
        var time = timestamp
        while reader.bitsLeft >= 8 {
            if configPresent, let useSame = reader.readFlag(), !useSame {
                do {
                    let newConfig = try StreamMuxConfig(reading: &reader)
                    if newConfig != config {
                        if config != nil { configChanges += 1 }
                        config = newConfig
                        track.codec = .aac(newConfig.audioSpecificConfig)
                    }
                } catch {
                    output.invalid(.streamMuxConfig)
                    return
                }
            }
            guard let config else {
                output.invalid(.noStreamMuxConfig)
                return
            }
            let asc = config.audioSpecificConfig
            let duration = Int64(asc.samplesPerFrame * track.clockRate / max(1, asc.samplingFrequency))
            for _ in 0...config.numSubFrames {
                var length = 0
                while true {
                    guard let byte = reader.read(8) else {
                        output.invalid(.accessUnitOverrun)
                        return
                    }
                    length += Int(byte)
                    if byte != 255 { break }
                }
                // Nothing is zero bytes long: what is left is padding.
                if length == 0 { return }
                guard length * 8 <= reader.bitsLeft else {
                    output.invalid(.accessUnitOverrun)
                    return
                }
                if reader.isByteAligned {
                    let start = reader.position / 8
                    _ = reader.skip(length * 8)
                    try output.unit(track, timestamp: time, duration: duration, bytes: bytes.view(start..<start + length),
                                    firstSequenceNumber: first, lastSequenceNumber: last)
                } else {
                    frame.removeAll(keepingCapacity: true)
                    _ = reader.copyBits(length * 8, into: &frame)
                    let shifted = frame
                    try shifted.withUnsafeBytes {
                        try output.unit(track, timestamp: time, duration: duration, bytes: $0,
                                        firstSequenceNumber: first, lastSequenceNumber: last)
                    }
                }
                time += duration
            }
            guard reader.skip(config.otherDataLenBits) else { return }
            reader.alignToByte()
        }
    }
}
