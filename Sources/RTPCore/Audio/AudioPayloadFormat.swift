/// An audio stream's payload format: the depacketizer of its RFC, and what all of them share:
/// 64-bit timestamps, the frame ledger's records, and gaps measured on the timeline (a lost
/// G.711 packet leaves nothing to drop, only time missing). A gap with no packet missing before
/// it is a silence the sender left (silence suppression, Opus's DTX: RFC 3551 §4.1), not a loss.
/// Beside the audio on its SSRC come comfort noise (RFC 3389), whose span is a silence the sender
/// chose, not a loss either, and telephone events (RFC 4733), each told once.
public final class AudioPayloadFormat: PayloadFormat, AudioUnitOutput {
    public let ssrc: UInt32
    public let clockRate: Int
    /// The track of the last frame (the depacketizer's until one came).
    public private(set) var track: AudioTrack
    public var onNotice: (StreamNotice) -> Void = { _ in }
    /// Every frame's verdict, with the frame when it is whole.
    public var output: (FrameRecord, AudioFrame?) throws -> Void = { _, _ in }

    private var depacketizer: any AudioDepacketizer
    private var timestamps = TimestampExtender()
    private var arrival: Int64 = 0
    private var firstPTS: Int64?
    /// Where the next frame should start, after the one before, and when the one before came.
    private var expected: Int64?
    private var expectedSince: Int64 = 0

    public private(set) var tally = FrameTally()
    public private(set) var invalid: [AudioPayloadInvalid: Int] = [:]
    /// Gaps in the timeline (frames wholly lost), and their length in clock ticks.
    public private(set) var gaps = 0
    public private(set) var gapTicks: Int64 = 0
    /// Gaps with no packet missing (the sender sent nothing, and said so with no comfort noise),
    /// and their length in clock ticks.
    public private(set) var silences = 0
    public private(set) var silenceTicks: Int64 = 0
    /// A packet was missing since the last frame: a gap before the next is a loss.
    private var lossSinceLastFrame = false
    /// Steps in the timestamps that begin a new timeline (`MediaClock.isJump`).
    public private(set) var timestampJumps = 0

    /// What another payload type on the SSRC carries, by the session's SDP; nil leaves it to the
    /// payload (4 bytes that read as an event are one).
    public var companion: (UInt8) -> AudioCompanion? = { _ in nil }
    /// Each telephone event, once, as it ends.
    public var telephoneEventOutput: (TelephoneEventRecord) throws -> Void = { _ in }
    private var events = TelephoneEventTracker()
    /// The comfort noise the sender went silent with: where the silence starts, and its level.
    private var comfortNoise: (timestamp: Int64, level: UInt8)?
    public private(set) var comfortNoiseSpans = 0
    public private(set) var comfortNoiseTicks: Int64 = 0
    /// The events told, in order (at most `maxEventsKept`), and how many there were.
    public private(set) var telephoneEvents: [TelephoneEventTracker.Event] = []
    public private(set) var telephoneEventCount = 0
    public static let maxEventsKept = 256

    public init(ssrc: UInt32, depacketizer: any AudioDepacketizer) {
        self.ssrc = ssrc
        self.depacketizer = depacketizer
        clockRate = depacketizer.track.clockRate
        track = depacketizer.track
    }

    public func accepts(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard !payload.isEmpty else {
            invalid[.empty, default: 0] += 1
            return false
        }
        return true
    }

    public func process(payload: UnsafeRawBufferPointer, headerExtension: UnsafeRawBufferPointer, timestamp: UInt32,
                        marker: Bool, lostBefore: Int, arrival: Int64, borrowing: Bool, sequenceNumber: Int64) throws {
        self.arrival = arrival
        if lostBefore > 0 { lossSinceLastFrame = true }
        try depacketizer.process(payload: payload, timestamp: timestamps.extend(timestamp), marker: marker,
                                 lostBefore: lostBefore, sequenceNumber: sequenceNumber, into: self)
    }

    public func otherPayloadType(_ packet: RTPPacket, payload: UnsafeRawBufferPointer) throws {
        let kind = companion(packet.payloadType) ?? (payload.count == TelephoneEvent.payloadSize ? .telephoneEvent : .other)
        switch kind {
        case .comfortNoise:
            // RFC 3389 §3: the noise level in -dBov, then spectral parameters this does not use.
            guard let level = payload.first.map({ $0 & 0x7F }) else { return }
            comfortNoise = (comfortNoise?.timestamp ?? extendedAside(packet.timestamp), level)
        case .telephoneEvent:
            guard let event = TelephoneEvent(payload: payload) else { return }
            try events.add(event, timestamp: packet.timestamp) { try tell($0) }
        case .other:
            break
        }
    }

    private func tell(_ event: TelephoneEventTracker.Event) throws {
        telephoneEventCount += 1
        if telephoneEvents.count < Self.maxEventsKept { telephoneEvents.append(event) }
        let start = extendedAside(event.timestamp)
        try telephoneEventOutput(TelephoneEventRecord(
            ssrc: ssrc, event: event,
            durationMilliseconds: duration(Int64(truncatingIfNeeded: event.duration), rate: clockRate, unitsPerSecond: 1000),
            presentationMilliseconds: duration(start.subtractingSaturated(firstPTS ?? start), rate: clockRate, unitsPerSecond: 1000)))
    }

    /// A companion's timestamp on the audio's extended timeline, leaving the timeline where the
    /// audio left it: an event's timestamp is its start's, from before the audio of its packets.
    private func extendedAside(_ timestamp: UInt32) -> Int64 {
        var aside = timestamps
        return aside.extend(timestamp)
    }

    public func tick(now: Int64) throws {}

    public func flush() throws {
        try depacketizer.flush(into: self)
        if let open = events.finish() { try tell(open) }
    }

    public func restart() {
        timestamps.reset()
        expected = nil
        lossSinceLastFrame = false
        comfortNoise = nil
        events = TelephoneEventTracker()
    }

    // Audio frames are copied out of the packets they came in before they are kept.
    public func refers(to memory: UnsafeRawBufferPointer) -> Bool { false }
    public func stopReferring(to memory: UnsafeRawBufferPointer) {}

    public func fold(into s: inout StreamStatistics) {
        s.frames = tally
        var audio = AudioStreamStatistics(track: track)
        audio.invalid = invalid
        audio.gaps = gaps
        audio.gapMilliseconds = duration(gapTicks, rate: clockRate, unitsPerSecond: 1000)
        audio.silences = silences
        audio.silenceMilliseconds = duration(silenceTicks, rate: clockRate, unitsPerSecond: 1000)
        audio.timestampJumps = timestampJumps
        audio.comfortNoiseSpans = comfortNoiseSpans
        audio.comfortNoiseMilliseconds = duration(comfortNoiseTicks, rate: clockRate, unitsPerSecond: 1000)
        audio.telephoneEvents = telephoneEvents
        audio.telephoneEventCount = telephoneEventCount
        s.audio = audio
    }

    // MARK: AudioUnitOutput

    public func unit(_ track: AudioTrack, timestamp: Int64, duration: Int64, bytes: UnsafeRawBufferPointer, firstSequenceNumber: Int64,
                     lastSequenceNumber: Int64) throws {
        self.track = track
        var gap: Int64 = 0
        var noiseLevel: UInt8?
        var senderWasSilent = false
        if let expected {
            let step = timestamp.subtractingSaturated(expected)
            // Back before the frame before is a jump too; the session timeline bridges both (MediaClock).
            if step < 0 && step.magnitude > duration.magnitude
                || MediaClock.isJump(step: ClockTicks.nanoseconds(step, clockRate: clockRate),
                                     arrived: arrival.subtractingSaturated(expectedSince), backIsJump: false) {
                timestampJumps += 1
            } else if step * 2 >= duration {
                // Less than half a frame is the sender's rounding (FFmpeg's Opus steps 952-968), not a loss.
                gap = step
                // Comfort noise from where the voice stopped: a silence, not a loss.
                if let noise = comfortNoise, noise.timestamp < timestamp,
                   noise.timestamp.subtractingSaturated(expected).addingSaturated(duration / 2) >= 0 {
                    noiseLevel = noise.level
                    comfortNoiseSpans += 1
                    comfortNoiseTicks = comfortNoiseTicks.addingSaturated(step)
                } else if !lossSinceLastFrame {
                    senderWasSilent = true
                    silences += 1
                    silenceTicks = silenceTicks.addingSaturated(step)
                } else {
                    gaps += 1
                    gapTicks = gapTicks.addingSaturated(step)
                }
            }
        }
        lossSinceLastFrame = false
        if let noise = comfortNoise, noise.timestamp < timestamp { comfortNoise = nil }
        expected = timestamp.addingSaturated(duration)
        expectedSince = arrival
        let record = self.record(timestamp: timestamp, status: .written, bytes: bytes.count,
                                 first: firstSequenceNumber, last: lastSequenceNumber)
        tally.count(record)
        var frame = AudioFrame(track: track, record: record, pts: timestamp, duration: duration, gapBefore: gap,
                               bytes: bytes, arrival: arrival)
        frame.comfortNoiseLevel = noiseLevel
        frame.senderWasSilent = senderWasSilent || noiseLevel != nil
        try output(record, frame)
    }

    public func dropped(timestamp: Int64, reason: FrameRecord.Reason, bytes: Int, firstSequenceNumber: Int64,
                        lastSequenceNumber: Int64, missingPackets: Int) throws {
        var record = self.record(timestamp: timestamp, status: .dropped, bytes: bytes, first: firstSequenceNumber,
                                 last: lastSequenceNumber)
        record.reason = reason
        record.missingPackets = missingPackets
        tally.count(record)
        try output(record, nil)
    }

    public func invalid(_ reason: AudioPayloadInvalid) { invalid[reason, default: 0] += 1 }
    public func notice(_ notice: StreamNotice) { onNotice(notice) }

    private func record(timestamp: Int64, status: FrameRecord.Status, bytes: Int, first: Int64, last: Int64) -> FrameRecord {
        if firstPTS == nil { firstPTS = timestamp }
        var record = FrameRecord(ssrc: ssrc, timestamp: UInt32(truncatingIfNeeded: timestamp),
                                 firstSequenceNumber: UInt16(truncatingIfNeeded: first),
                                 lastSequenceNumber: UInt16(truncatingIfNeeded: last),
                                 packets: Int(last - first + 1), bytes: bytes, isKeyframe: true, status: status,
                                 referencesIntact: true,
                                 presentationMilliseconds: duration(timestamp.subtractingSaturated(firstPTS!), rate: clockRate, unitsPerSecond: 1000))
        record.isAudio = true
        return record
    }
}

/// What an audio stream's statistics add to the RTP ones.
public struct AudioStreamStatistics: Sendable {
    public var track: AudioTrack
    public var invalid: [AudioPayloadInvalid: Int] = [:]
    /// Holes in the timeline where whole frames were lost, and how long they were in all.
    public var gaps = 0
    public var gapMilliseconds: Int64 = 0
    /// Silences the sender left without comfort noise (no packet missing), and how long in all.
    public var silences = 0
    public var silenceMilliseconds: Int64 = 0
    public var timestampJumps = 0
    /// Silences the sender marked with comfort noise (RFC 3389), and how long they were in all.
    public var comfortNoiseSpans = 0
    public var comfortNoiseMilliseconds: Int64 = 0
    /// Telephone events (RFC 4733): the first ones, and how many came.
    public var telephoneEvents: [TelephoneEventTracker.Event] = []
    public var telephoneEventCount = 0

    public init(track: AudioTrack) { self.track = track }

    /// Every count of the audio stream, declared once: the JSON and the metrics read this.
    public var counts: [Count] {
        [Count(name: "gaps", help: "holes in the audio where whole frames were lost", value: gaps),
         Count(name: "gap_ms", help: "audio lost in the holes", value: Int(clamping: gapMilliseconds)),
         Count(name: "silences", help: "silences the sender left, no packet missing (silence suppression, DTX)", value: silences),
         Count(name: "silence_ms", help: "audio the sender left silent", value: Int(clamping: silenceMilliseconds)),
         Count(name: "timestamp_jumps", help: "jumps of the audio's RTP timestamps (beyond 5 s and not in time with the packets' arrival, or back), bridged", value: timestampJumps),
         Count(name: "comfort_noise_spans", help: "silences sent as comfort noise (RFC 3389)", value: comfortNoiseSpans),
         Count(name: "comfort_noise_ms", help: "audio sent as comfort noise", value: Int(clamping: comfortNoiseMilliseconds))]
    }
}
