/// Lists the RTP streams in a capture, as a packet analyser's stream list does: per SSRC and address
/// pair, the packets and the sequence gaps (RFC 3550: the sequence space is the SSRC's, whatever
/// payload types it switches between), and per payload type within it the codec and what it shows
/// (an H.264 or H.265 stream's NAL unit types and SPS; an audio stream's packet duration; the
/// digits of telephone events).
///
/// The codec comes from the SDP when one is given, from the static payload types of RFC 3551,
/// else from the payloads: a dynamic payload type is taken for H.264 or H.265 only on evidence (an
/// SPS that parses, or slices that do in payloads that are valid for the codec), so that an audio
/// stream never shows NAL types or a resolution read out of its samples.
public struct StreamSurvey {
    public struct Key: Hashable, Sendable {
        public var source: Endpoint?
        public var destination: Endpoint?
        public var ssrc: UInt32
    }

    public enum Codec: Equatable, Sendable {
        case h264
        case h265
        /// Named by an rtpmap or a static payload type.
        case named(encodingName: String, clockRate: Int, channels: Int?)
        /// RFC 4733 events that no SDP names, known by their payloads.
        case telephoneEvent
        /// A dynamic payload type with no SDP to name it, and no sign of H.264.
        case unknown
        /// SRTP that no key given decrypts, or, with no key, payloads that look like ciphertext.
        case encrypted
    }

    /// One SSRC's stream: its sequence space, and the payload types it carried.
    public struct Entry: Sendable {
        public var key: Key
        public var packets = 0
        public var firstExtended: Int64 = 0
        public var highestExtended: Int64 = 0
        fileprivate var sequence: RTPSourceState?
        /// In the order they first came; the first is the stream's media unless another has more packets.
        public var payloadTypes: [PayloadTypeEntry] = []
        public var firstTime: Int64 = 0
        public var lastTime: Int64 = 0

        /// RFC 3550 A.3: expected minus received; duplicates can make it negative.
        public var lost: Int { Int(highestExtended - firstExtended + 1) - packets }

        /// The payload type with the most packets: what the stream is.
        public var main: PayloadTypeEntry { payloadTypes.max { $0.packets < $1.packets }! }
    }

    /// What one payload type of a stream carried.
    public struct PayloadTypeEntry: Sendable {
        public var payloadType: UInt8
        public var packets = 0
        public var bytes = 0
        /// The rtpmap the SDP or RFC 3551 gives the payload type.
        public var format: MediaDescription.Format?
        /// Bit n set when NAL unit type n (or payload structure type 24-31) was seen.
        public var nalTypes: UInt32 = 0
        public var sps: SequenceParameterSet?
        /// The same for H.265: NAL unit types (and RFC 7798's 48-50) seen, the latest SPS, and the
        /// parameter set kinds seen.
        public var hevcNALTypes: UInt64 = 0
        public var hevcSPS: HEVCSequenceParameterSet?
        /// Evidence of each codec for a dynamic payload type with no format: slices whose headers
        /// parse, and payloads that are not valid for it.
        fileprivate var slices = 0
        fileprivate var invalidH264 = 0
        fileprivate var hevcSlices = 0
        fileprivate var invalidH265 = 0
        /// Payloads that read as one RFC 4733 event, and those that repeat the event before them
        /// (same timestamp, a duration not shorter), as every event's packets do.
        fileprivate var eventLike = 0
        fileprivate var eventRepeats = 0
        fileprivate var lastEvent: (timestamp: UInt32, duration: UInt16)?
        fileprivate var events = TelephoneEventTracker()
        /// The telephone events, in order, at most `maxEvents` of them.
        public fileprivate(set) var telephoneEvents: [TelephoneEventTracker.Event] = []
        public static let maxEvents = 256
        /// Packets SRTP did not decrypt, and the first payload bytes seen (a set of 256): ciphertext
        /// gives every value, a codec's first byte few.
        public fileprivate(set) var encryptedPackets = 0
        fileprivate var firstBytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        /// Payloads whose first byte has the top bit set: H.264's and H.265's forbidden bit.
        fileprivate var forbiddenBits = 0
        /// The timestamp and sequence number of its previous packet.
        fileprivate var last: (timestamp: UInt32, sequenceNumber: UInt16)?
        /// The forward steps between successive packets' timestamps, summed, and their number.
        fileprivate var stepTotal: Int64 = 0
        fileprivate var stepCount = 0

        public var codec: Codec {
            if encryptedPackets * 2 > packets { return .encrypted }
            // No H.264 payload starts with a byte of the forbidden bit: most of the 256 values is ciphertext.
            let distinct = firstBytes.0.nonzeroBitCount + firstBytes.1.nonzeroBitCount + firstBytes.2.nonzeroBitCount
                + firstBytes.3.nonzeroBitCount
            if packets >= 200 && distinct >= 192 { return .encrypted }
            // Fewer packets: the forbidden bit in a quarter of them, and first bytes as varied as
            // random ones (n random bytes take about n(1 - n/512) values), which no codec's are:
            // Opus's TOC byte sets the top bit too, but takes a few values.
            if packets >= VideoPayloadInvalid.minimumPacketsForCiphertext && forbiddenBits * 4 >= packets && distinct * 2 >= min(packets, 256) { return .encrypted }
            if let format, !format.encodingName.isEmpty {
                let codec = VideoCodec(encodingName: format.encodingName)
                if codec == .h264 { return .h264 }
                if codec == .h265 { return .h265 }
                return .named(encodingName: format.encodingName, clockRate: format.clockRate, channels: format.channels)
            }
            if StaticPayloadType.isStaticRange(payloadType) { return .unknown }
            if looksLikeTelephoneEvents { return .telephoneEvent }
            if sps != nil || (slices >= 3 && invalidH264 * 10 <= packets) { return .h264 }
            if hevcSPS != nil || (hevcSlices >= 3 && invalidH265 * 10 <= packets) { return .h265 }
            return .unknown
        }

        /// Whether a keyframe began in it: an IDR slice of H.264, an IRAP picture of H.265.
        public var sawKeyframe: Bool {
            switch codec {
            case .h264: nalTypes & (1 << NALUnitType.idrSlice) != 0
            case .h265: (0..<64).contains { HEVCNALUnitType.isIRAP($0) && hevcNALTypes & (1 << $0) != 0 }
            default: false
            }
        }

        /// Every payload 4 bytes that read as an event, and events repeated as RFC 4733 §2.5.1.2
        /// sends them: no codec's payloads are all that.
        private var looksLikeTelephoneEvents: Bool {
            packets >= 3 && eventLike == packets && bytes == packets * TelephoneEvent.payloadSize && eventRepeats * 2 >= packets
        }

        /// Whether its events are worth decoding: the SDP says telephone-event, or nothing names it.
        public var isTelephoneEvent: Bool {
            switch codec {
            case .telephoneEvent: true
            case .named(let name, _, _): name.lowercased() == "telephone-event"
            default: false
            }
        }

        /// The mean step between the timestamps of successive packets: for audio, the packet
        /// duration in clock ticks. A mean, since senders that time from millisecond timestamps
        /// step 1008 and 1056 ticks for 1024-sample AAC frames.
        public var typicalTimestampStep: Double? { stepCount > 0 ? Double(stepTotal) / Double(stepCount) : nil }
    }

    public private(set) var entries: [Key: Entry] = [:]
    public private(set) var order: [Key] = []
    public private(set) var invalidRTP = 0
    public private(set) var rtcp = 0
    /// What came on an interleaved RTCP channel and was not RTCP.
    public private(set) var malformedRTCP = 0
    public static let maxStreams = 4096
    /// The SDP's media lines, for the formats of dynamic payload types.
    private let media: [MediaDescription]

    public init(media: [MediaDescription] = []) {
        self.media = media
    }

    /// `encrypted`: an SRTP packet no key decrypted; its header alone is read. `rtcpOnly`: it came
    /// on an interleaved RTCP channel.
    public mutating func add(datagram: UnsafeRawBufferPointer, source: Endpoint?, destination: Endpoint?, time: Int64,
                             encrypted: Bool = false, rtcpOnly: Bool = false) {
        let isRTCP = RTCP.isPacket(datagram)
        if rtcpOnly || isRTCP {
            rtcp += 1
            if !isRTCP { malformedRTCP += 1 }
            return
        }
        guard let packet = try? RTPPacket(parsing: datagram) else {
            invalidRTP += 1
            return
        }
        let key = Key(source: source, destination: destination, ssrc: packet.ssrc)
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
        entries[key]!.count(packet, time: time)
        let index = entries[key]!.payloadTypes.firstIndex { $0.payloadType == packet.payloadType } ?? {
            var added = PayloadTypeEntry(payloadType: packet.payloadType)
            added.format = format(payloadType: packet.payloadType, port: destination?.port)
            entries[key]!.payloadTypes.append(added)
            return entries[key]!.payloadTypes.count - 1
        }()
        entries[key]!.payloadTypes[index].record(packet, payload: datagram.view(packet.payloadRange), encrypted: encrypted)
    }

    /// Ends the survey: events whose end never came are told.
    public mutating func finish() {
        for key in order {
            for i in entries[key]!.payloadTypes.indices { entries[key]!.payloadTypes[i].finishTelephoneEvents() }
        }
    }

    /// The SDP's format for `payloadType`, on the media line of `port` first; else RFC 3551's.
    private func format(payloadType: UInt8, port: UInt16?) -> MediaDescription.Format? {
        media.namedFormat(payloadType: payloadType, port: port) ?? StaticPayloadType(rawValue: payloadType)?.format
    }
}

extension StreamSurvey.Entry {
    /// The sequence space, whatever the payload type.
    fileprivate mutating func count(_ packet: RTPPacket, time: Int64) {
        packets += 1
        lastTime = time
        if packets > 1, case .accepted(let e)? = sequence?.update(packet.sequenceNumber) {
            firstExtended = min(firstExtended, e)
            highestExtended = max(highestExtended, e)
        }
    }
}

extension StreamSurvey.PayloadTypeEntry {
    fileprivate mutating func record(_ packet: RTPPacket, payload: UnsafeRawBufferPointer, encrypted: Bool) {
        packets += 1
        bytes += payload.count
        // Steps between packets that follow each other: a loss, or another payload type between
        // them (comfort noise over a silence), is not a packet's duration.
        if let last, packet.sequenceNumber == last.sequenceNumber &+ 1 {
            let step = timestampDistance(packet.timestamp, last.timestamp)
            // Forward steps under a minute: reordering and restarts stay out of the mean.
            if step > 0 && step < 60 * 90000 {
                stepTotal += step
                stepCount += 1
            }
        }
        last = (packet.timestamp, packet.sequenceNumber)
        if encrypted {
            encryptedPackets += 1
            return
        }
        recordTelephoneEvent(payload, timestamp: packet.timestamp)
        let named = format.flatMap { VideoCodec(encodingName: $0.encodingName) }
        // Where the payload type may be video: an audio codec's first bytes can be anything.
        if format == nil || named != nil, let first = payload.first {
            if first & 0x80 != 0 { forbiddenBits += 1 }
            let bit = UInt64(1) << UInt64(first & 63)
            switch first >> 6 {
            case 0: firstBytes.0 |= bit
            case 1: firstBytes.1 |= bit
            case 2: firstBytes.2 |= bit
            default: firstBytes.3 |= bit
            }
        }
        if format == nil || named == .h265 { recordH265(payload) }
        // NAL units only where the payload type may be H.264.
        guard format == nil || codec == .h264, let first = payload.first else { return }
        if H264Payload.validate(payload) != nil { invalidH264 += 1 }
        nalTypes |= 1 << nalUnitType(first)
        H264Payload.forEachNALUnit(payload) { type, nal in
            nalTypes |= 1 << type
            if type == NALUnitType.sps, let nal, let parsed = SequenceParameterSet(nal: nal) { sps = parsed }
            // Slices, not data partitions, which H.265 headers pose as.
            if type == NALUnitType.nonIDRSlice || type == NALUnitType.idrSlice, let nal, SliceHeaderPrefix(nal: nal) != nil { slices += 1 }
        }
    }


    /// RFC 4733: the evidence that a payload type no SDP names carries events, and the events.
    fileprivate mutating func recordTelephoneEvent(_ payload: UnsafeRawBufferPointer, timestamp: UInt32) {
        guard let event = TelephoneEvent(payload: payload) else { return }
        eventLike += 1
        if let last = lastEvent, last.timestamp == timestamp, event.duration >= last.duration { eventRepeats += 1 }
        lastEvent = (timestamp, event.duration)
        guard format == nil || isTelephoneEvent else { return }
        var told: [TelephoneEventTracker.Event] = []
        events.add(event, timestamp: timestamp) { told.append($0) }
        telephoneEvents.append(contentsOf: told.prefix(Self.maxEvents - telephoneEvents.count))
    }

    /// The event whose end never came, told at the end of the capture.
    public mutating func finishTelephoneEvents() {
        if let open = events.finish(), telephoneEvents.count < Self.maxEvents { telephoneEvents.append(open) }
    }

    /// H.265 (RFC 7798, without DONL: no SDP says it is there).
    fileprivate mutating func recordH265(_ payload: UnsafeRawBufferPointer) {
        guard H265Payload.validate(payload, decodingOrderNumbers: false) == nil else {
            invalidH265 += 1
            return
        }
        let header = HEVCNALHeader(payload)
        hevcNALTypes |= 1 << header.type
        var rest = payload.view(2..<payload.count)
        var outer = header
        if header.type == H265Payload.paci, let (inner, carried) = H265Payload.unwrapPACI(header, rest: rest) {
            (outer, rest) = (inner, carried)
            hevcNALTypes |= 1 << inner.type
        }
        func unit(_ nal: UnsafeRawBufferPointer) {
            let h = HEVCNALHeader(nal)
            hevcNALTypes |= 1 << h.type
            if h.type == HEVCNALUnitType.sps, let parsed = HEVCSequenceParameterSet(nal: nal) { hevcSPS = parsed }
            if HEVCNALUnitType.isVCL(h.type) && !HEVCNALUnitType.isReserved(h.type) && h.layerId == 0,
               HEVCSliceSegmentHeaderPrefix(type: h.type, body: nal.view(2..<nal.count)) != nil { hevcSlices += 1 }
        }
        switch outer.type {
        case H265Payload.aggregationPacket:
            var units = H265AggregationUnits(rest, decodingOrderNumbers: false)
            while let u = units.next() { unit(u.nal) }
        case H265Payload.fragmentationUnit:
            if rest[0] & 0x80 != 0 { hevcNALTypes |= 1 << (rest[0] & 0x3F) }
        default:
            if outer.type != header.type {
                withUnsafeBytes(of: (outer.byte0, outer.byte1)) { head in
                    var nal = Array(head)
                    nal.append(contentsOf: rest)
                    nal.withUnsafeBytes { unit($0) }
                }
            } else {
                unit(payload)
            }
        }
    }
}
