/// Lists the RTP streams in a capture, as a packet analyser's stream list does: per SSRC, payload
/// type and address pair, the packets, the sequence gaps, the NAL unit types and the resolution.
public struct StreamSurvey {
    public struct Key: Hashable, Sendable {
        public var source: Endpoint?
        public var destination: Endpoint?
        public var ssrc: UInt32
        public var payloadType: UInt8
    }

    public struct Entry: Sendable {
        public var key: Key
        public var packets = 0
        public var bytes = 0
        public var firstExtended: Int64 = 0
        public var highestExtended: Int64 = 0
        fileprivate var sequence: RTPSourceState?
        /// Bit n set when NAL unit type n (or payload structure type 24-31) was seen.
        public var nalTypes: UInt32 = 0
        public var sps: SequenceParameterSet?
        public var firstTime: Int64 = 0
        public var lastTime: Int64 = 0

        /// RFC 3550 A.3: expected minus received; duplicates can make it negative.
        public var lost: Int { Int(highestExtended - firstExtended + 1) - packets }
    }

    public private(set) var entries: [Key: Entry] = [:]
    public private(set) var order: [Key] = []
    public private(set) var invalidRTP = 0
    public private(set) var rtcp = 0
    public static let maxStreams = 4096

    public init() {}

    public mutating func add(datagram: UnsafeRawBufferPointer, source: Endpoint?, destination: Endpoint?, time: Int64) {
        if RTCP.isPacket(datagram) {
            rtcp += 1
            return
        }
        guard let packet = try? RTPPacket(parsing: datagram) else {
            invalidRTP += 1
            return
        }
        let key = Key(source: source, destination: destination, ssrc: packet.ssrc, payloadType: packet.payloadType)
        if entries[key] == nil {
            guard entries.count < Self.maxStreams else { return }
            var entry = Entry(key: key)
            entry.sequence = RTPSourceState(firstSequenceNumber: packet.sequenceNumber)
            entry.firstExtended = entry.sequence!.extendedHighestSequenceNumber
            entry.highestExtended = entry.firstExtended
            entry.firstTime = time
            entries[key] = entry
            order.append(key)
        }
        entries[key]!.record(packet, payload: datagram.view(packet.payloadRange), time: time)
    }
}

extension StreamSurvey.Entry {
    fileprivate mutating func record(_ packet: RTPPacket, payload: UnsafeRawBufferPointer, time: Int64) {
        packets += 1
        bytes += payload.count
        lastTime = time
        if packets > 1, case .accepted(let e)? = sequence?.update(packet.sequenceNumber) {
            firstExtended = min(firstExtended, e)
            highestExtended = max(highestExtended, e)
        }
        guard let first = payload.first else { return }
        nalTypes |= 1 << nalUnitType(first)
        H264Payload.forEachNALUnit(payload) { type, nal in
            nalTypes |= 1 << type
            if type == NALUnitType.sps, let nal, let parsed = SequenceParameterSet(nal: nal) { sps = parsed }
        }
    }
}
