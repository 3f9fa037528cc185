/// Lists the RTP streams in a capture, as a packet analyser's stream list does: per SSRC and address
/// pair, the packets and the sequence gaps (RFC 3550: the sequence space is the SSRC's, whatever
/// payload types it switches between), and per payload type within it the codec and what it shows
/// (a video stream's `VideoRecognition` summary, such as H.264's NAL unit types and SPS; an audio
/// stream's packet duration; the digits of telephone events).
///
/// The codec comes from the SDP when one is given, from the static payload types of RFC 3551,
/// else from the payloads: a dynamic payload type is taken for a registered video codec only on
/// the evidence its `VideoRecognition` asks for (for H.264 and H.265, an SPS that parses, or slices
/// that do in payloads that are valid for the codec), so that an audio stream never shows NAL types
/// or a resolution read out of its samples.
public struct StreamSurvey {
    public struct Key: Hashable, Sendable {
        public var source: Endpoint?
        public var destination: Endpoint?
        public var ssrc: UInt32
    }

    public enum Codec: Equatable, Sendable {
        /// A registered video codec: named by the SDP, or shown by the payloads.
        case video(VideoCodec)
        /// Named by an rtpmap or a static payload type.
        case named(encodingName: String, clockRate: Int, channels: Int?)
        /// RFC 4733 events that no SDP names, known by their payloads.
        case telephoneEvent
        /// A dynamic payload type with no SDP to name it, and no sign of a registered video codec.
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
        public let format: MediaDescription.Format?
        /// What the payloads show of each video codec the payload type may carry: every registered
        /// one without a format, the named one with a format that names it, none else.
        public private(set) var recognitions: [(codec: VideoCodec, recognition: any VideoRecognition)]
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
        /// Payloads whose first byte has the top bit set: H.264's and H.265's forbidden bit, which
        /// ciphertext sets in half of them.
        fileprivate var forbiddenBits = 0
        /// The timestamp and sequence number of its previous packet.
        fileprivate var last: (timestamp: UInt32, sequenceNumber: UInt16)?
        /// The forward steps between successive packets' timestamps, summed, and their number.
        fileprivate var stepTotal: Int64 = 0
        fileprivate var stepCount = 0
        /// The payload bytes of each packet over the step to the next, while that is one whole
        /// number for them all (nil before the first step, 0 once they differ).
        fileprivate var bytesPerTick: Int?
        fileprivate var lastPayloadBytes = 0
        /// Payloads that begin as RFC 2250 §3.5 carries MPEG audio: two bytes of zero, then an
        /// offset of 0 and a frame header, or the offset into a frame fragmented across packets.
        fileprivate var mpegAudioLike = 0
        /// For a codec of constant rate, SRTP's tag seen on its payloads (the stream is encrypted).
        fileprivate var tagTrail: AuthenticationTagTrail?
        public var authenticationTagBytes: Int? { tagTrail?.tagBytes }

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
                if let codec = recognitions.first?.codec, codec.encodingName == format.encodingName.uppercased() {
                    return .video(codec)
                }
                return .named(encodingName: format.encodingName, clockRate: format.clockRate, channels: format.channels)
            }
            if StaticPayloadType.isStaticRange(payloadType) { return .unknown }
            if looksLikeTelephoneEvents { return .telephoneEvent }
            // Slices whose headers parse can be read out of another codec's payloads; a keyframe is
            // the stronger evidence, and decides between two that prove.
            let proving = recognitions.filter { $0.recognition.proves(packets: packets) }
            if let shown = proving.first(where: { $0.recognition.sawKeyframe }) ?? proving.first { return .video(shown.codec) }
            return .unknown
        }

        /// What the payloads showed of `codec`.
        public func recognition(of codec: VideoCodec) -> (any VideoRecognition)? {
            recognitions.first { $0.codec == codec }?.recognition
        }

        /// Whether a keyframe of its video codec began in it (an IDR slice of H.264, an IRAP
        /// picture of H.265).
        public var sawKeyframe: Bool {
            guard case .video(let codec) = codec else { return false }
            return recognition(of: codec)?.sawKeyframe ?? false
        }

        /// `formats`: the video payload formats it may be recognised as.
        init(payloadType: UInt8, format: MediaDescription.Format?, formats: [VideoPayloadFormatRegistration]) {
            self.payloadType = payloadType
            self.format = format
            let named = format.map { name in formats.first { $0.codec.encodingName == name.encodingName.uppercased() }?.codec }
            recognitions = formats.filter { named == nil || named == $0.codec }.map { ($0.codec, $0.recognition) }
            tagTrail = format.flatMap { try? AudioFormats.depacketizer(for: $0) as? SampleAudioPayload }.map { AuthenticationTagTrail(unit: $0.unit) }
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

        /// Bytes a tick of the clock, where every packet (of ten steps or more) holds as many
        /// bytes a tick, as linear PCM's do (L16 two a channel, L24 three), and a compressed
        /// codec's, whose sizes vary, do not.
        public var constantBytesPerTick: Int? {
            guard stepCount >= 10, let bytesPerTick, bytesPerTick > 0 else { return nil }
            return bytesPerTick
        }

        /// Whether nine payloads in ten (of five or more) read as MPEG audio in RFC 2250's
        /// payload format: a frame header's sync word and valid fields behind zeros, which no
        /// other codec's payloads begin with.
        public var looksLikeMPEGAudio: Bool { packets >= 5 && mpegAudioLike * 10 >= packets * 9 }
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
    /// The video payload formats a payload type may be recognised as: the registry's.
    private let formats: [VideoPayloadFormatRegistration]

    public init(media: [MediaDescription] = [], formats: [VideoPayloadFormatRegistration] = VideoPayloadFormats.registered) {
        self.media = media
        self.formats = formats
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
            let format = format(payloadType: packet.payloadType, port: destination?.port)
            entries[key]!.payloadTypes.append(PayloadTypeEntry(payloadType: packet.payloadType, format: format, formats: formats))
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
                noteBytes(lastPayloadBytes, over: Int(step))  // bounded: under a minute of ticks
            }
        }
        last = (packet.timestamp, packet.sequenceNumber)
        lastPayloadBytes = payload.count
        // bounded: 32- and 16-bit fields widened
        tagTrail?.add(bytes: payload.count, timestamp: Int64(packet.timestamp), sequenceNumber: Int64(packet.sequenceNumber))
        if encrypted {
            encryptedPackets += 1
            return
        }
        recordTelephoneEvent(payload, timestamp: packet.timestamp)
        if payload.count >= 8, payload[0] == 0, payload[1] == 0,
           payload[2] != 0 || payload[3] != 0 || MPEGAudioFrameHeader(payload.view(4..<8)) != nil {
            mpegAudioLike += 1
        }
        // Where the payload type may be video: an audio codec's first bytes can be anything.
        if !recognitions.isEmpty, let first = payload.first {
            if first & 0x80 != 0 { forbiddenBits += 1 }
            let bit = UInt64(1) << UInt64(first & 63)
            switch first >> 6 {
            case 0: firstBytes.0 |= bit
            case 1: firstBytes.1 |= bit
            case 2: firstBytes.2 |= bit
            default: firstBytes.3 |= bit
            }
        }
        for i in recognitions.indices { recognitions[i].recognition.record(payload) }
    }

    /// A packet's `bytes` over the `ticks` it lasted: the same whole number for every packet, or 0.
    private mutating func noteBytes(_ bytes: Int, over ticks: Int) {
        let perTick = bytes % ticks == 0 ? bytes / ticks : 0
        bytesPerTick = bytesPerTick.map { $0 == perTick ? $0 : 0 } ?? perTick
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
}
