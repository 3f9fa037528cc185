import FFmpeg
import RTPCore

/// `--report`: what the run's streams did over time, gathered frame by frame for the HTML report.
/// All on one axis, the arrival clock from the run's first frame. Memory stays bounded however long
/// the run: buckets double their width past `maxBuckets`, frame sizes merge in pairs past
/// `maxFrames`, drops and repairs past `maxMarkers` are only counted, and keyframes kept for
/// pictures are thinned to `maxPictures`, one every `pictureSeconds` at least.
final class ReportTimeline {
    struct Limits {
        var maxBuckets = 1200
        var maxFrames = 6000
        var maxMarkers = 5000
        var maxPictures = 16
        var pictureSeconds = 2
        var pictureWidth = 320
    }

    /// One interval of a stream.
    struct Bucket {
        var bytes = 0
        var packets = 0
        var lost = 0
        /// The highest interarrival jitter seen in it.
        var jitterMilliseconds = 0.0
        /// Audio: the decoded samples' sum of squares (full scale 1), and their count.
        var squares = 0.0
        var samples = 0
    }

    /// A frame's size; past `maxFrames`, the largest of a run of frames.
    struct FrameSize {
        var time: Int64
        var bytes: Int
        var keyframe: Bool
    }

    /// A frame dropped or repaired, as its ledger line says.
    struct Marker {
        var time: Int64
        var record: FrameRecord
    }

    /// A keyframe kept for its picture, which `pictures` makes.
    struct Picture {
        var id: Int
        var time: Int64
        var record: FrameRecord
    }

    /// An audio gap: lost frames or a silence, before the frame at `time`.
    struct Gap {
        var time: Int64
        var milliseconds: Int64
    }

    final class Track {
        let ssrc: UInt32
        let isAudio: Bool
        fileprivate(set) var buckets: [Bucket] = []
        fileprivate(set) var frames: [FrameSize] = []
        fileprivate(set) var markers: [Marker] = []
        fileprivate(set) var markersLeftOut = 0
        fileprivate(set) var pictures: [Picture] = []
        fileprivate(set) var gaps: [Gap] = []
        fileprivate(set) var gapsLeftOut = 0
        fileprivate var lostSoFar = 0
        /// The last frame written: its presentation time (ms) and its time on the axis. A frame
        /// dropped has no arrival of its own, and is placed by its presentation time from here.
        fileprivate var anchor: (presentationMilliseconds: Int64, time: Int64)?
        fileprivate var pictureSpacing: Int64
        fileprivate var audioDecoder: AudioDecoder?
        fileprivate var audioUndecodable = false

        init(ssrc: UInt32, isAudio: Bool, pictureSpacing: Int64) {
            (self.ssrc, self.isAudio, self.pictureSpacing) = (ssrc, isAudio, pictureSpacing)
        }

        /// The last arrival accounted for: where its axis ends.
        fileprivate(set) var end: Int64 = 0
    }

    let limits: Limits
    private(set) var tracks: [Track] = []
    /// On the arrival clock: where the axis begins.
    private(set) var origin: Int64?
    private(set) var bucketNanoseconds: Int64 = 100_000_000
    private let pictures: PictureWorker
    private var picturesTaken = 0
    /// The pictures made, once the report asks for them.
    private var decoded: [Int: [UInt8]]?

    init(limits: Limits = Limits()) {
        self.limits = limits
        pictures = PictureWorker(width: limits.pictureWidth)
    }

    /// The frame just written (`write`), whose record comes next, and when it arrived.
    private var written: (ssrc: UInt32, timestamp: UInt32, audio: Bool, arrival: Int64)?

    /// Every frame record, as the ledger takes it: the stream's jitter and loss so far are sampled.
    func account(_ record: FrameRecord, of receiver: Receiver?) {
        guard let state = record.isAudio ? receiver?.audio.map({ ($0.firstArrival, $0.progress) })
                : receiver?.selected.map({ ($0.firstArrival, $0.progress) }) else { return }
        let track = self.track(record.ssrc, audio: record.isAudio)
        let time: Int64
        if let w = written, w.ssrc == record.ssrc, w.timestamp == record.timestamp, w.audio == record.isAudio {
            time = self.time(w.arrival)
            track.anchor = (record.presentationMilliseconds, time)
        } else if let anchor = track.anchor {
            time = max(0, anchor.time.addingSaturated(record.presentationMilliseconds.subtractingSaturated(anchor.presentationMilliseconds)
                .multipliedSaturated(by: 1_000_000)))
        } else {
            time = self.time(state.0)
        }
        written = nil
        track.end = max(track.end, time)
        let i = bucket(time, of: track)
        track.buckets[i].bytes += record.bytes
        track.buckets[i].packets += record.packets
        track.buckets[i].lost += state.1.lost - track.lostSoFar
        track.lostSoFar = state.1.lost
        track.buckets[i].jitterMilliseconds = max(track.buckets[i].jitterMilliseconds, state.1.jitterMilliseconds)
        if record.bytes > 0 && !record.isAudio { add(FrameSize(time: time, bytes: record.bytes, keyframe: record.isKeyframe), to: track) }
        if record.status != .written {
            if track.markers.count < limits.maxMarkers {
                track.markers.append(Marker(time: time, record: record))
            } else {
                track.markersLeftOut += 1
            }
        }
    }

    /// A written keyframe is kept for its picture when it comes far enough after the last one kept.
    func write(_ accessUnit: AccessUnit) {
        written = (accessUnit.record.ssrc, accessUnit.timestamp, false, accessUnit.arrival)
        guard accessUnit.isKeyframe else { return }
        let track = self.track(accessUnit.record.ssrc, audio: false)
        let time = self.time(accessUnit.arrival)
        if let last = track.pictures.last, time - last.time < track.pictureSpacing { return }
        pictures.submit(id: picturesTaken, codec: accessUnit.codec, keyframe: accessUnit.copiedBytes())
        track.pictures.append(Picture(id: picturesTaken, time: time, record: accessUnit.record))
        picturesTaken += 1
        if track.pictures.count > limits.maxPictures { thin(track) }
    }

    /// Audio: its level, decoded, and its gaps.
    func write(audio frame: AudioFrame) {
        written = (frame.record.ssrc, frame.record.timestamp, true, frame.arrival)
        let track = self.track(frame.record.ssrc, audio: true)
        let time = self.time(frame.arrival)
        if frame.gapBefore > 0 {
            if track.gaps.count < limits.maxMarkers {
                let milliseconds = ClockTicks.nanoseconds(frame.gapBefore, clockRate: frame.track.clockRate) / 1_000_000
                track.gaps.append(Gap(time: time, milliseconds: milliseconds))
            } else {
                track.gapsLeftOut += 1
            }
        }
        if track.audioDecoder == nil && !track.audioUndecodable {
            track.audioDecoder = try? AudioWAV.decoder(for: frame.track)
            track.audioUndecodable = track.audioDecoder == nil
        }
        let i = bucket(time, of: track)
        try? track.audioDecoder?.decode(frame.bytes) { samples, _, _ in
            var squares = 0.0
            for s in samples { squares += Double(s) * Double(s) }
            track.buckets[i].squares += squares / (32768.0 * 32768.0)
            track.buckets[i].samples += samples.count
        }
    }

    /// The pictures of a video track's keyframes kept, as JPEG; those that would not decode left out.
    func decodedPictures(of track: Track) -> [(Picture, jpeg: [UInt8])] {
        if decoded == nil { decoded = pictures.finish() }
        return track.pictures.compactMap { p in decoded?[p.id].map { (p, $0) } }
    }

    /// Nanoseconds from the axis' origin.
    private func time(_ arrival: Int64) -> Int64 {
        if origin == nil { origin = arrival }
        return max(0, arrival &- origin!)
    }

    /// A stream's track, by SSRC and media (a fan-out's runs share one timeline).
    private var byStream: [UInt64: Track] = [:]

    private func track(_ ssrc: UInt32, audio: Bool) -> Track {
        let key = UInt64(ssrc) << 1 | (audio ? 1 : 0)
        if let t = byStream[key] { return t }
        let t = Track(ssrc: ssrc, isAudio: audio, pictureSpacing: Int64(limits.pictureSeconds) * 1_000_000_000)
        tracks.append(t)
        byStream[key] = t
        return t
    }

    /// The index of the bucket of `time` in `track`, which has it from then on. Past `maxBuckets`
    /// every track's buckets are widened first (bucket i of every track spans the same time).
    private func bucket(_ time: Int64, of track: Track) -> Int {
        while time / bucketNanoseconds >= Int64(limits.maxBuckets) {
            bucketNanoseconds *= 2
            for t in tracks { t.buckets = Self.mergedInPairs(t.buckets) }
        }
        let i = Int(time / bucketNanoseconds)
        if track.buckets.count <= i { track.buckets += Array(repeating: Bucket(), count: i + 1 - track.buckets.count) }
        return i
    }

    private static func mergedInPairs(_ buckets: [Bucket]) -> [Bucket] {
        stride(from: 0, to: buckets.count, by: 2).map { i in
            var b = buckets[i]
            guard i + 1 < buckets.count else { return b }
            let c = buckets[i + 1]
            b.bytes += c.bytes
            b.packets += c.packets
            b.lost += c.lost
            b.jitterMilliseconds = max(b.jitterMilliseconds, c.jitterMilliseconds)
            b.squares += c.squares
            b.samples += c.samples
            return b
        }
    }

    private func add(_ frame: FrameSize, to track: Track) {
        track.frames.append(frame)
        guard track.frames.count > limits.maxFrames else { return }
        track.frames = stride(from: 0, to: track.frames.count, by: 2).map { i in
            guard i + 1 < track.frames.count else { return track.frames[i] }
            let (a, b) = (track.frames[i], track.frames[i + 1])
            return FrameSize(time: a.time, bytes: max(a.bytes, b.bytes), keyframe: a.keyframe || b.keyframe)
        }
    }

    /// Past `maxPictures`: the spacing doubles, and the pictures closer than it to the one kept
    /// before them go.
    private func thin(_ track: Track) {
        track.pictureSpacing *= 2
        var kept: [Picture] = []
        for p in track.pictures {
            if kept.last.map({ p.time - $0.time >= track.pictureSpacing }) ?? true { kept.append(p) } else { pictures.withdraw(id: p.id) }
        }
        track.pictures = kept
    }
}
