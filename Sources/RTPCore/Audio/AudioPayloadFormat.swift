/// An audio stream's payload format: the depacketizer of its RFC, and what all of them share:
/// 64-bit timestamps, the frame ledger's records, and gaps measured on the timeline (a lost
/// G.711 packet leaves nothing to drop, only time missing).
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
    /// Where the next frame should start, after the one before.
    private var expected: Int64?

    public private(set) var tally = FrameTally()
    public private(set) var invalid: [AudioPayloadInvalid: Int] = [:]
    /// Gaps in the timeline (frames wholly lost), and their length in clock ticks.
    public private(set) var gaps = 0
    public private(set) var gapTicks: Int64 = 0
    /// Steps in the timestamps of more than `maxTimestampJump`, either way: a new timeline.
    public private(set) var timestampJumps = 0

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

    public func process(payload: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool, lostBefore: Int,
                        arrival: Int64, borrowing: Bool, sequenceNumber: Int64) throws {
        self.arrival = arrival
        try depacketizer.process(payload: payload, timestamp: timestamps.extend(timestamp), marker: marker,
                                 lostBefore: lostBefore, sequenceNumber: sequenceNumber, into: self)
    }

    public func tick(now: Int64) throws {}

    public func flush() throws { try depacketizer.flush(into: self) }

    public func restart() {
        timestamps.reset()
        expected = nil
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
        audio.timestampJumps = timestampJumps
        s.audio = audio
    }

    // MARK: AudioUnitOutput

    public func unit(_ track: AudioTrack, timestamp: Int64, duration: Int64, bytes: UnsafeRawBufferPointer, firstSequenceNumber: Int64,
                     lastSequenceNumber: Int64) throws {
        self.track = track
        var gap: Int64 = 0
        if let expected {
            let step = timestamp.subtractingSaturated(expected)
            if step.magnitude > UInt64(clockRate) * 5 {
                timestampJumps += 1
            } else if step * 2 >= duration {
                // Less than half a frame is the sender's rounding (FFmpeg's Opus steps 952-968), not a loss.
                gap = step
                gaps += 1
                gapTicks = gapTicks.addingSaturated(step)
            }
        }
        expected = timestamp.addingSaturated(duration)
        let record = self.record(timestamp: timestamp, status: .written, bytes: bytes.count,
                                 first: firstSequenceNumber, last: lastSequenceNumber)
        tally.count(record)
        try output(record, AudioFrame(track: track, record: record, pts: timestamp, duration: duration,
                                      gapBefore: gap, bytes: bytes, arrival: arrival))
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
    public var timestampJumps = 0

    public init(track: AudioTrack) { self.track = track }
}
