/// The part of a frame gate that is the same for every codec (H.264's `FrameGate`, H.265's
/// `HEVCFrameGate`): the presentation timeline and its origin at the first keyframe, the keyframe
/// wait, and the verdicts themselves (a frame dropped, a frame written with the parameter sets it
/// needs put in front), with the tally and the dropped timestamps they leave. Whether a frame can be
/// repaired, what it refers to and which parameter sets it needs are the codec's: its gate decides,
/// and this gives the verdict.
final class FrameVerdicts {
    let ssrc: UInt32
    let configuration: VideoFormatConfiguration
    /// Takes the verdict on an access unit, with its bytes when it is to be written; returns whether
    /// the stream's output took it (false when the stream is not the one selected, or output is full).
    var emit: (FrameRecord, AccessUnit?) throws -> Bool = { _, _ in false }
    var onNotice: (StreamNotice) -> Void = { _ in }
    private(set) var tally = FrameTally()
    private(set) var clock: PresentationClock
    /// RTP timestamps of the first damaged access units dropped.
    private(set) var droppedTimestamps: [UInt32] = []
    static let maxDroppedTimestamps = 1000
    private var timestamps = TimestampExtender()
    private var seenKeyframe = false
    /// Output waits for a keyframe: none written yet since the start or a source restart.
    private(set) var waitingForKeyframe = true
    /// A frame was dropped, or written with a reference lost, since the last keyframe written.
    private var referencesDamaged = false
    private var origin: Int64 = 0
    private let splicer = ParameterSetSplicer()

    init(ssrc: UInt32, configuration: VideoFormatConfiguration) {
        self.ssrc = ssrc
        self.configuration = configuration
        clock = PresentationClock(clockRate: configuration.clockRate)
    }

    /// Whether a keyframe would help now: none written yet, or a picture since the last one was lost
    /// or damaged. RTCP asks the sender for one while this holds (PLI, FIR).
    var wantsKeyframe: Bool { !seenKeyframe || referencesDamaged }

    /// The presentation time of the access unit with RTP `timestamp` (see `PresentationClock`); the
    /// first time pictures had to be timed anew, a notice says so.
    func presentationTime(timestamp: UInt32, arrival: Int64, isIDR: Bool, newPicture: Bool,
                          details: () -> (picture: PresentationClock.Picture?, frameRate: (numerator: Int, denominator: Int)?)?) -> Int64 {
        let extended = timestamps.extend(timestamp)
        let wasRetimed = clock.retimed
        let pts = clock.presentationTime(extended: extended, arrival: arrival, isIDR: isIDR, newPicture: newPicture, details: details)
        if wasRetimed == 0 && clock.retimed == 1, let source = clock.source { onNotice(.timestampsNotAdvancing(source: source)) }
        return pts
    }

    /// What a codec's gate knows of an access unit: all `judge` needs.
    struct Facts {
        var timestamp: UInt32
        var packets: PacketSpan
        var bytes: Int
        var isKeyframe: Bool
        /// What it lost; nil when whole.
        var damage: AccessUnitDamage?
        var pts: Int64
        /// The first slice that came begins the picture, and every slice header parsed.
        var slicesBeginPicture: Bool
        /// A slice named a parameter set (else, with no slice header read, only a keyframe needs them).
        var slicesNameParameterSets: Bool
        /// The parameter sets every slice names are known.
        var slicesHaveParameterSets: Bool
        var referencesIntact: Bool
        /// A leading picture whose references precede where output started, or were lost (H.265's
        /// RASL pictures): dropped, and nothing refers to it.
        var skipsLeadingPicture = false
        /// Nothing refers to it (VP8's N bit): dropped, it damages no other frame.
        var isDiscardable = false

        /// Every loss lay before the first slice (the gap held parameter sets, SEI or an AUD), the
        /// slices that came begin the picture, and their parameter sets are known: written with
        /// them, the picture lost nothing.
        var repairable: Bool {
            damage.map { $0.onlyBeforeFirstSlice && slicesBeginPicture && slicesHaveParameterSets } ?? true
        }
    }

    /// What `judge` leaves to the gate.
    enum Judgement {
        /// Not written: before output began, or dropped (and emitted as such). `harmless`: nothing
        /// refers to it.
        case notWritten(harmless: Bool)
        /// To be written (`write`), with its record.
        case toWrite(FrameRecord)
    }

    /// The verdict on an access unit, in the order every codec takes it: before the first keyframe,
    /// not output; damaged beyond repair, dropped; waiting for a keyframe, dropped; a leading picture
    /// that cannot decode, dropped; slices without their parameter sets, dropped; else written.
    func judge(_ f: Facts) throws -> Judgement {
        guard outputHasBegun(atKeyframe: f.isKeyframe, pts: f.pts) else { return .notWritten(harmless: false) }
        let record = record(timestamp: f.timestamp, packets: f.packets, bytes: f.bytes, isKeyframe: f.isKeyframe,
                            damage: f.damage, referencesIntact: f.referencesIntact, pts: f.pts)
        let reason: FrameRecord.Reason
        if !f.repairable, let damage = f.damage {
            noteUnrepairable(timestamp: f.timestamp)
            reason = damage.reason
        } else if waitsForKeyframe(isKeyframe: f.isKeyframe, referencesIntact: f.referencesIntact) {
            reason = .waitingForKeyframe
        } else if f.skipsLeadingPicture {
            reason = .skippedLeadingPicture
        } else if (f.slicesNameParameterSets || f.isKeyframe) && !f.slicesHaveParameterSets {
            reason = .noParameterSets
        } else {
            return .toWrite(record)
        }
        let harmless = reason == .skippedLeadingPicture || f.isDiscardable
        try drop(record, reason, harmless: harmless)
        return .notWritten(harmless: harmless)
    }

    /// Whether output has begun, or begins at this access unit, a keyframe whose time becomes the
    /// timeline's origin. Those before it are counted and never written.
    private func outputHasBegun(atKeyframe isKeyframe: Bool, pts: Int64) -> Bool {
        if seenKeyframe { return true }
        guard isKeyframe else {
            tally.beforeFirstKeyframe += 1
            return false
        }
        seenKeyframe = true
        origin = pts
        return true
    }

    /// The ledger's record of an access unit, its time on the output's timeline.
    private func record(timestamp: UInt32, packets: PacketSpan, bytes: Int, isKeyframe: Bool, damage: AccessUnitDamage?,
                referencesIntact: Bool, pts: Int64) -> FrameRecord {
        FrameRecord(ssrc: ssrc, timestamp: timestamp, packets: packets, bytes: bytes, isKeyframe: isKeyframe, damage: damage,
                    referencesIntact: referencesIntact,
                    presentationMilliseconds: duration(pts.subtractingSaturated(origin), rate: configuration.clockRate, unitsPerSecond: 1000))
    }

    /// A damaged access unit that cannot be repaired: its timestamp is kept, among the first.
    private func noteUnrepairable(timestamp: UInt32) {
        if droppedTimestamps.count < Self.maxDroppedTimestamps { droppedTimestamps.append(timestamp) }
    }

    /// Whether a frame that is no keyframe must wait for one: output waits, or its references were
    /// lost and `waitForKeyframeAfterLoss` wants no damaged frame.
    private func waitsForKeyframe(isKeyframe: Bool, referencesIntact: Bool) -> Bool {
        !isKeyframe && (waitingForKeyframe || (configuration.waitForKeyframeAfterLoss && !referencesIntact))
    }

    /// Drops the frame of `record` for `reason`; unless `harmless` (nothing refers to it), the
    /// references are damaged until the next keyframe.
    private func drop(_ record: FrameRecord, _ reason: FrameRecord.Reason, harmless: Bool = false) throws {
        var record = record
        record.status = .dropped
        record.reason = reason
        if !harmless { referencesDamaged = true }
        if try emit(record, nil) { tally.count(record) }
    }

    /// Hands `accessUnit` on; returns whether the output took it.
    func write(_ accessUnit: inout AccessUnit) throws -> Bool { try emit(accessUnit.record, accessUnit) }

    /// Hands on `accessUnit`, made of NAL units (`units`), with `inserted` (parameter sets it needs)
    /// put in front of its slices at byte `at` of `pieces`; returns whether the output took it.
    func write(_ accessUnit: inout AccessUnit, pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>,
               units: UnsafeBufferPointer<NALUnitRecord>, inserting inserted: [[UInt8]], at: Int) throws -> Bool {
        try splicer.withInserted(inserted, at: at, into: pieces, units: units) { pieces, offsets, added in
            accessUnit.record.bytes += added
            accessUnit.pieces = pieces
            accessUnit.nalUnitOffsets = offsets
            return try emit(accessUnit.record, accessUnit)
        }
    }

    /// The output took the frame of `record`: a keyframe ends the wait and mends the references.
    func wrote(_ record: FrameRecord, isKeyframe: Bool, referencesIntact: Bool) {
        tally.count(record)
        if isKeyframe {
            waitingForKeyframe = false
            referencesDamaged = false
        } else if !referencesIntact {
            referencesDamaged = true
        }
    }

    /// The output took the frame of `record` and then could not write it after all: not counted.
    func withdraw(_ record: FrameRecord) {
        tally.count(record, by: -1)
    }

    /// What the verdicts leave in a stream's statistics.
    func fold(into s: inout StreamStatistics) {
        s.frames = tally
        s.droppedTimestamps = droppedTimestamps
        s.retimedFrames = clock.retimed
    }

    /// The source restarted: output waits for a keyframe again, on a timeline begun anew.
    func restart() {
        waitingForKeyframe = true
        timestamps.reset()
        clock.reset()
    }
}
