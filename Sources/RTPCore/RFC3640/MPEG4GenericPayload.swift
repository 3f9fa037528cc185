/// MPEG-4 elementary streams over RTP (RFC 3640), as AAC uses them (AAC-hbr, AAC-lbr):
///
/// ```
/// +---------+-----------+-----------+---------------+
/// | RTP     | AU Header | Auxiliary | Access Unit   |
/// | Header  | Section   | Section   | Data Section  |
/// +---------+-----------+-----------+---------------+
///
/// AU-headers-length (16 bits, in bits) | AU-header(1) ... AU-header(n) | padding to a byte
/// AU-header: AU-size | AU-Index or AU-Index-delta | CTS-flag, CTS-delta | DTS-flag, DTS-delta |
///            RAP-flag | Stream-state          (each as long as the fmtp says, possibly 0)
/// ```
///
/// The RTP timestamp is the first AU's; each later AU is `AU-Index-delta + 1` frames after the one
/// before (§3.2.1.1), so a packet of consecutive AUs steps one frame each, and interleaved AUs
/// (deltas above 0) are put back in order here. An AU larger than a packet comes in fragments that
/// share its timestamp, each with an AU header giving the whole AU's size (§3.2.3); one that lost a
/// fragment is dropped whole.
public struct MPEG4GenericPayload: AudioDepacketizer {
    public let track: AudioTrack
    public let parameters: MPEG4GenericParameters
    public let maxFrameBytes: Int
    /// Ticks between consecutive AUs.
    public let frameDuration: Int64

    /// The AU headers of the packet at hand (kept to reuse its storage).
    private var headers: [AUHeader] = []
    private var fragment = AudioFragment()
    /// The whole AU's size, from its AU header.
    private var fragmentSize = 0

    /// Interleaved AUs waiting for their turn, in timestamp order; their number is bounded by the
    /// widest span a packet showed.
    private var waiting: [(timestamp: Int64, bytes: [UInt8], packet: Int64)] = []
    private var span = 0
    private var nextTimestamp: Int64?
    public private(set) var interleaved = false
    /// An AU came behind an ADTS header (said once).
    private var adtsSeen = false

    /// At most this many AUs in one packet; more are a broken header section.
    public static let maxAUsPerPacket = 512
    /// At most this many interleaved AUs wait for their turn (RFC 3640's examples span a few packets).
    public static let maxWaitingAUs = 64

    public init(track: AudioTrack, parameters: MPEG4GenericParameters, maxFrameBytes: Int = 1 << 16) {
        self.track = track
        self.parameters = parameters
        self.maxFrameBytes = maxFrameBytes
        let config = parameters.config
        frameDuration = Int64(parameters.constantDuration
                              ?? config.samplesPerFrame * track.clockRate / max(1, config.samplingFrequency))
    }

    private struct AUHeader {
        var size: Int
        var timestamp: Int64
    }

    public mutating func process(payload: UnsafeRawBufferPointer, timestamp: Int64, marker: Bool, lostBefore: Int,
                                 sequenceNumber: Int64, into output: AudioUnitOutput) throws {
        if fragment.isOpen && (lostBefore > 0 || timestamp != fragment.timestamp) {
            try fragment.drop(into: output, reason: lostBefore > 0 ? .missingPackets : .unfinishedFragment, missing: lostBefore)
        }
        guard let dataStart = readSections(payload, timestamp: timestamp, into: output) else { return }
        let data = payload.view(dataStart..<payload.count)
        if fragment.isOpen {
            try continueFragment(data, marker: marker, sequenceNumber: sequenceNumber, into: output)
            return
        }
        guard try emitUnits(data, marker: marker, sequenceNumber: sequenceNumber, into: output) else { return }
        if interleaved {
            let packetSpan = Int((headers[headers.count - 1].timestamp.subtractingSaturated(headers[0].timestamp) / max(1, frameDuration)).addingSaturated(1))
            span = min(max(span, packetSpan), MPEG4GenericPayload.maxWaitingAUs)
        }
        try releaseWaiting(into: output, all: false)
    }

    /// Reads the AU header section into `headers`, and skips the auxiliary section; returns where
    /// the access unit data begins, or nil (said to `output`) when the sections do not fit.
    private mutating func readSections(_ payload: UnsafeRawBufferPointer, timestamp: Int64, into output: AudioUnitOutput) -> Int? {
        headers.removeAll(keepingCapacity: true)
        guard parameters.hasAUHeaders else {
            // No AU headers: the payload is one AU (§3.2.1, a constant-size stream needs constantSize).
            headers.append(AUHeader(size: payload.count, timestamp: timestamp))
            return 0
        }
        guard payload.count >= 2 else {
            output.invalid(.shortHeader)
            return nil
        }
        let headersBits = Int(payload[0]) << 8 | Int(payload[1])
        var dataStart = 2 + (headersBits + 7) / 8
        guard dataStart <= payload.count, readAUHeaders(payload.view(2..<dataStart), bits: headersBits, timestamp: timestamp) else {
            output.invalid(.auHeadersOverrun)
            return nil
        }
        if parameters.auxiliaryDataSizeLength > 0 {
            var aux = BitReader(payload.view(dataStart..<payload.count))
            guard let auxBits = aux.read(parameters.auxiliaryDataSizeLength) else {
                output.invalid(.auHeadersOverrun)
                return nil
            }
            dataStart += (parameters.auxiliaryDataSizeLength + Int(auxBits) + 7) / 8
            guard dataStart <= payload.count else {
                output.invalid(.auHeadersOverrun)
                return nil
            }
        }
        guard !headers.isEmpty else {
            output.invalid(.shortHeader)
            return nil
        }
        return dataStart
    }

    /// The AU headers of `section`, `bits` long, each with its AU's time; false when one runs past
    /// the section or there are too many.
    private mutating func readAUHeaders(_ section: UnsafeRawBufferPointer, bits headersBits: Int, timestamp: Int64) -> Bool {
        let p = parameters
        var bits = BitReader(section)
        var time = timestamp
        while bits.position < headersBits {
            let first = headers.isEmpty
            guard headers.count < MPEG4GenericPayload.maxAUsPerPacket,
                  let size = bits.read(p.sizeLength),
                  let index = bits.read(first ? p.indexLength : p.indexDeltaLength) else { return false }
            if !first {
                // index < 2^32 and duration ≤ 2^24 (MPEG4GenericParameters): the product fits; the sum saturates.
                time = time.addingSaturated((Int64(index) + 1) * frameDuration)
                if index > 0 { interleaved = true }
            }
            var auTime = time
            if p.ctsDeltaLength > 0, let flag = bits.readFlag(), flag {
                guard let delta = bits.read(p.ctsDeltaLength) else { return false }
                if !first { auTime = timestamp + signExtended(delta, bits: p.ctsDeltaLength) }
            }
            if p.dtsDeltaLength > 0, let flag = bits.readFlag(), flag {
                guard bits.skip(p.dtsDeltaLength) else { return false }
            }
            if p.randomAccessIndication { _ = bits.skip(1) }
            if p.streamStateIndication > 0 { _ = bits.skip(p.streamStateIndication) }
            guard bits.position <= headersBits else { return false }
            headers.append(AUHeader(size: Int(size), timestamp: auTime))
        }
        return true
    }

    /// A continuation of the open fragment: one header with the whole AU's size.
    private mutating func continueFragment(_ data: UnsafeRawBufferPointer, marker: Bool, sequenceNumber: Int64,
                                           into output: AudioUnitOutput) throws {
        guard headers.count == 1, headers[0].size == fragmentSize else {
            output.invalid(.fragmentMismatch)
            try fragment.drop(into: output, reason: .unfinishedFragment, missing: 0)
            return
        }
        fragment.append(UnsafeRawBufferPointer(rebasing: data.prefix(fragmentSize - fragment.bytes.count)), packet: sequenceNumber)
        if fragment.bytes.count == fragmentSize {
            let (time, first, last) = (fragment.timestamp, fragment.firstPacket, fragment.lastPacket)
            var whole = fragment
            try whole.finish { try emit($0, timestamp: time, first: first, last: last, into: output) }
            fragment = whole
        } else if marker {
            try fragment.drop(into: output, reason: .unfinishedFragment, missing: 0)
        }
    }

    /// The AUs `headers` describe, each as it is whole in `data`, or the first fragment of one
    /// larger than the packet; false (said to `output`) when an AU runs past the data.
    private mutating func emitUnits(_ data: UnsafeRawBufferPointer, marker: Bool, sequenceNumber: Int64,
                                    into output: AudioUnitOutput) throws -> Bool {
        var offset = 0
        for (i, header) in headers.enumerated() {
            let rest = data.count - offset
            if header.size <= rest {
                try emit(data.view(offset..<offset + header.size), timestamp: header.timestamp,
                         first: sequenceNumber, last: sequenceNumber, into: output)
                offset += header.size
                continue
            }
            guard i == 0, headers.count == 1, !marker, header.size <= maxFrameBytes else {
                output.invalid(header.size > maxFrameBytes ? .oversize : .accessUnitOverrun)
                return false
            }
            // The first fragment of an AU larger than the packet.
            fragment.start(data, timestamp: header.timestamp, packet: sequenceNumber)
            fragmentSize = header.size
        }
        return true
    }

    public mutating func flush(into output: AudioUnitOutput) throws {
        if fragment.isOpen { try fragment.drop(into: output, reason: .incompleteAtEnd, missing: 0) }
        try releaseWaiting(into: output, all: true)
    }

    /// In order, an AU goes straight out; interleaved, it waits for the ones due before it. One
    /// behind an ADTS header (some cameras send them so) goes without it.
    private mutating func emit(_ whole: UnsafeRawBufferPointer, timestamp: Int64, first: Int64, last: Int64,
                               into output: AudioUnitOutput) throws {
        var bytes = whole
        if let header = ADTSHeader.headerLength(wrapping: whole) {
            if !adtsSeen { output.notice(.adtsHeadersOnAccessUnits) }
            adtsSeen = true
            bytes = whole.view(header..<whole.count)
        }
        if !interleaved {
            try output.unit(track, timestamp: timestamp, duration: frameDuration, bytes: bytes,
                            firstSequenceNumber: first, lastSequenceNumber: last)
            nextTimestamp = timestamp + frameDuration
            return
        }
        if let next = nextTimestamp, timestamp < next {
            // Its turn has passed: written late it would go back in time.
            try output.dropped(timestamp: timestamp, reason: .missingPackets, bytes: bytes.count,
                               firstSequenceNumber: first, lastSequenceNumber: last, missingPackets: 0)
            return
        }
        let position = waiting.firstIndex { $0.timestamp > timestamp } ?? waiting.count
        waiting.insert((timestamp, Array(bytes), first), at: position)
    }

    private mutating func releaseWaiting(into output: AudioUnitOutput, all: Bool) throws {
        while let head = waiting.first {
            let due = head.timestamp == nextTimestamp || nextTimestamp == nil && waiting.count > span
            guard all || due || waiting.count > span else { return }
            waiting.removeFirst()
            try head.bytes.withUnsafeBytes {
                try output.unit(track, timestamp: head.timestamp, duration: frameDuration, bytes: $0,
                                firstSequenceNumber: head.packet, lastSequenceNumber: head.packet)
            }
            nextTimestamp = head.timestamp + frameDuration
        }
    }
}

private func signExtended(_ value: UInt32, bits: Int) -> Int64 {
    let shift = 64 - bits
    return (Int64(value) << shift) >> shift
}
