import FFmpeg
import RTPCore
import SystemIO

/// `--mp4`, `--mkv`, `--ts`: the video and the session's audio as libavformat's muxer writes them
/// into a file the output owns, a file at a time.
///
/// A file starts at a keyframe, from which the video track is declared (`VideoTrack`), or at the
/// audio before it. When the session has audio whose track is not known yet, the header waits for
/// its first frame, at most `audioWaitMilliseconds` of arrival time, the video held meanwhile;
/// audio that comes later goes into the next file. Audio waits up to 10 s for the first keyframe
/// (senders start their audio first, by their video encoder's latency), then starts a file of its
/// own, as a session of audio alone, or whose video the container cannot carry, does.
///
/// RTP gives presentation times only: video decode times are derived with the look-ahead of the
/// stream's reorder depth (`DecodeTimestamps`), frames waiting for theirs copied aside. Each file
/// starts at time 0; a sender's jump continues the timeline.
final class ContainerOutput {
    struct Statistics {
        var framesWritten = 0
        var keyframesWritten = 0
        var droppedBeforeKeyframe = 0
        /// Frames of a codec the container cannot carry, or of a track other than the file's.
        var framesNotCarried = 0
        var timestampJumps = 0
        /// Keyframes whose picture size differs from the one the file's header declares.
        var pictureSizeChanges = 0
        var audioFramesWritten = 0
        /// Opus: how long the packets asking the player to conceal losses and silences last.
        var audioConcealedNanoseconds: Int64 = 0
        /// Audio frames of a codec the container cannot carry, before the file began, or after it
        /// began without them.
        var audioFramesNotCarried = 0
        /// Frames whose decode time repeated their track's last one, written a tick after it.
        var framesRetimed = 0
        var files = 0
        /// Files and fragments made durable (`--fsync`).
        var synchronizations = 0

        /// Every count of the recording, declared once: the report, the JSON and the metrics read this.
        var counts: [Count] {
            [Count(name: "frames_written", help: "video frames written", value: framesWritten),
             Count(name: "keyframes_written", help: "keyframes written", value: keyframesWritten),
             Count(name: "files", help: "files begun", value: files),
             Count(name: "dropped_before_keyframe", help: "frames before a file's first keyframe, not written",
                   value: droppedBeforeKeyframe),
             Count(name: "frames_not_carried", help: "video frames of a codec or track the file cannot carry",
                   value: framesNotCarried),
             Count(name: "timestamp_jumps", help: "timestamp jumps that ended a segment", value: timestampJumps),
             Count(name: "picture_size_changes", help: "keyframes of a picture size other than the one the file declares",
                   value: pictureSizeChanges),
             Count(name: "audio_frames_written", help: "audio frames written", value: audioFramesWritten),
             Count(name: "audio_concealed_ms", help: "Opus concealment written for losses and silences",
                   value: Int(clamping: audioConcealedNanoseconds / 1_000_000)),
             Count(name: "audio_frames_not_carried", help: "audio frames the file could not carry, or that came before it began",
                   value: audioFramesNotCarried),
             Count(name: "frames_retimed", help: "frames whose decode time repeated the one before, written a tick later",
                   value: framesRetimed),
             Count(name: "fsyncs", help: "files and fragments made durable (--fsync)", value: synchronizations)]
        }
    }

    struct Configuration {
        var fragmentMilliseconds: Int
        /// The same on the timeline's scale.
        var fragmentNanoseconds: Int64 { Int64(fragmentMilliseconds) * 1_000_000 }
        /// The session has video: without, a file starts at the first audio frame.
        var expectsVideo: Bool
        /// The session has an audio stream: a file's header waits this long for its track.
        var expectsAudio: Bool
        var audioWaitMilliseconds: Int64
        var fsync: FsyncPolicy
        /// --faststart: each finished MP4 written again with its index in front.
        var faststart: Bool
        /// G.711, G.722 and linear PCM encoded to AAC where the container carries none (not --no-audio-transcode).
        var transcodesAudio: Bool
        /// Live: a file's UTC times are the wall clock's; in a replay, the capture's packet times.
        var live: Bool
        var quiet: Bool

        /// The options' settings, with the tracks the session will have.
        init(_ options: Options, expectsVideo: Bool, expectsAudio: Bool) {
            (fragmentMilliseconds, self.expectsVideo, self.expectsAudio) = (options.fragmentMilliseconds, expectsVideo, expectsAudio)
            (audioWaitMilliseconds, fsync, faststart) = (Int64(options.interleaveMilliseconds), options.fsync, options.faststart)
            (live, quiet, transcodesAudio) = (options.isLive, options.quiet, !options.noAudioTranscode)
        }
    }

    /// How long audio waits for the first keyframe, held, before a file starts without video.
    static let videoWaitNanoseconds: Int64 = 10_000_000_000

    let container: Container
    private(set) var file: OutputFile
    private(set) var statistics = Statistics()
    /// `--segment-index`: told of each file closed whole.
    var index: SegmentIndex?
    /// A fleet's events: told of each file closed whole, as the index is.
    var announce: ((SegmentIndex.Entry) -> Void)?
    /// The file open now, for its index line: counts, and the first and latest frame's UTC and
    /// timeline times.
    private var entry: SegmentIndex.Entry?
    private var latestArrival: Int64 = 0
    private let configuration: Configuration
    private var muxer: MediaMuxer?
    private var track: VideoTrack?
    /// The session's audio, from its first frame; and its index in the file, when the file has it.
    private var audioTrack: AudioTrack?
    private var audioIndex: Int?
    /// The session's audio made AAC, where the container carries the audio's own codec not.
    private var transcoder: AudioTranscoder?
    /// Opus as it came: what the stream did not carry, to conceal.
    private var opusGaps = OpusGapFiller()
    /// Where the audio written last ends: a next file begins there rather than at its keyframe
    /// when that is at most `audioCarryOverNanoseconds` earlier, so that audio of the time before
    /// the keyframe that arrives after it (senders' audio often comes later than their video of
    /// the same time) goes into it rather than into neither file.
    private var audioEnd: Int64?
    static let audioCarryOverNanoseconds: Int64 = 2_000_000_000
    private var videoIndex: Int?
    /// Whether the container carries the file's video codec, and that it does not carry the audio's.
    private var videoCarried = false
    private var audioNotCarried = false
    /// The file's first presentation time, which is its 0.
    private var origin: Int64 = 0
    /// For units without a session time (made by hand): the session timeline bridged the others' jumps.
    private var timeline = ContinuousTimeline(limitMilliseconds: 5000)
    private var audioTimeline = ContinuousTimeline(limitMilliseconds: 5000)
    private var timestamps = DecodeTimestamps(reorderDepth: 0)
    /// The file's frames are NAL units copied with their lengths in place of start codes, the
    /// track's `decoderConfigurationRecord` its configuration (`Container.keepsNALUnitLengths`).
    private var lengthPrefixed = false
    /// Video frames waiting for the header (`held`) or for their decode time (`waiting`), with
    /// times on the timeline and from the file's start; buffers to reuse.
    private var held: [(bytes: [UInt8], time: Int64, keyframe: Bool)] = []
    private var heldSince: Int64 = 0
    private var heldAudio: [(bytes: [UInt8], time: Int64, duration: Int64, concealing: Bool)] = []
    private var waiting: [(bytes: [UInt8], pts: Int64, keyframe: Bool)] = []
    private var spare: [[UInt8]] = []
    private var scratch: [UInt8] = []
    private var lastDTS: Int64?
    private var firstFrame: (bytes: [UInt8], pts: Int64, dts: Int64, keyframe: Bool)?
    private var said: Set<String> = []
    /// The file's size and media time when it was last made durable.
    private var synchronized: (size: Int, time: Int64) = (0, 0)

    init(_ container: Container, file: OutputFile, configuration: Configuration, codec: VideoCodec?) throws {
        self.container = container
        self.file = file
        self.configuration = configuration
        if let codec, try !container.carries(codec.libavcodecName) { warnNotCarried(codec.name) }
    }

    /// `keyframeTrack`: a keyframe's track (`VideoTrack.of`), read by the caller once for every
    /// recording.
    func write(_ unit: AccessUnit, keyframeTrack: VideoTrack?) throws {
        latestArrival = unit.arrival
        let time = unit.time ?? timeline.place(ClockTicks.nanoseconds(unit.pts, clockRate: 90000))
        // Jumps the session timeline bridged, or, for units timed by their RTP timestamps alone, this one.
        statistics.timestampJumps = max(statistics.timestampJumps, unit.discontinuities + timeline.jumps)
        if unit.isKeyframe { try declare(keyframeTrack, at: unit.arrival) }
        guard let track, unit.codec == track.codec, videoCarried else {
            if track == nil { statistics.droppedBeforeKeyframe += 1 } else { statistics.framesNotCarried += 1 }
            return
        }
        if muxer == nil {
            hold(unit, at: time)
            let waited = unit.arrival &- heldSince >= configuration.audioWaitMilliseconds * 1_000_000
            if audioTrack != nil || !configuration.expectsAudio || waited {
                try begin(at: min(held[0].time, heldAudio.first?.time ?? .max))
            }
            return
        }
        try put(unit, pts: time &- origin)
    }

    func write(audio frame: AudioFrame) throws {
        latestArrival = frame.arrival
        let time = frame.time ?? audioTimeline.place(ClockTicks.nanoseconds(frame.pts, clockRate: frame.track.clockRate))
        if audioTrack == nil && !audioNotCarried { try chooseAudioTrack(frame.track) }
        let duration = ClockTicks.nanoseconds(frame.duration, clockRate: frame.track.clockRate)
        guard frame.track.codec == (transcoder?.source ?? audioTrack?.codec) else {
            statistics.audioFramesNotCarried += 1
            return
        }
        let concealsGaps = transcoder == nil && frame.track.codec == .opus
        if muxer == nil && track == nil && configuration.expectsVideo {
            if concealsGaps { conceal(before: frame, at: time) { heldAudio.append((Array($0), $1, $2, true)) } }
            heldAudio.append((Array(frame.bytes), time, duration, false))
            // Video later than that: the file starts with the audio alone.
            if time &- heldAudio[0].time > Self.videoWaitNanoseconds { try begin(at: heldAudio[0].time) }
            return
        }
        let withoutVideo = !configuration.expectsVideo || (track != nil && !videoCarried)
        if muxer == nil && (!held.isEmpty || withoutVideo) {
            try begin(at: min(held.first?.time ?? time, heldAudio.first?.time ?? time, time))
        }
        if concealsGaps { try conceal(before: frame, at: time) { try writeAudioFrame($0, at: $1, duration: $2, concealing: true) } }
        try writeAudio(frame.bytes, at: time, duration: duration)
    }

    /// Opus: packets asking the player to conceal what the stream did not carry before `frame`,
    /// ending at `time` where it begins (`OpusGapFiller`), each to `put` with its time and duration.
    private func conceal(before frame: AudioFrame, at time: Int64,
                         _ put: (UnsafeRawBufferPointer, Int64, Int64) throws -> Void) rethrows {
        guard let gap = opusGaps.gap(before: frame) else { return }
        var at = time &- ClockTicks.nanoseconds(Int64(gap.samples), clockRate: 48000)
        try OpusGapPackets.forEach(lasting: gap.samples, after: gap.after) { packet, samples in
            let duration = ClockTicks.nanoseconds(Int64(samples), clockRate: 48000)
            try put(packet, at, duration)
            at &+= duration
        }
    }

    /// The file's audio track: the session's own where the container carries it, else AAC made
    /// from G.711, G.722 or linear PCM (said once), else none (said once).
    private func chooseAudioTrack(_ input: AudioTrack) throws {
        if try container.carries(input.libavcodecName) {
            audioTrack = input
        } else if configuration.transcodesAudio && AudioTranscoder.transcodes(input), let made = transcoder(for: input) {
            (transcoder, audioTrack) = (made, made.track)
            if !configuration.quiet {
                let asItCame = container != .mkv && (try? Container.mkv.carries(input.libavcodecName)) == true
                Terminal.printError("\(file.displayName): \(container.name) does not carry \(input.codec.name): it is encoded to AAC "
                                    + "(--no-audio-transcode leaves it out" + (asItCame ? ", --mkv carries it as it came" : "") + ")\n")
            }
        } else {
            audioNotCarried = true
            warnNotCarried(input.codec.name)
        }
    }

    /// An encoder to AAC for `input`; none (said once, the audio left out) when libavcodec cannot make one.
    private func transcoder(for input: AudioTrack) -> AudioTranscoder? {
        do {
            return try AudioTranscoder(from: input)
        } catch {
            if !configuration.quiet { Terminal.printError("warning: \(file.displayName): \(input.codec.name) cannot be encoded to AAC (\(error))\n") }
            return nil
        }
    }

    /// A frame of the session's audio, made AAC first where the file needs that.
    private func writeAudio(_ bytes: UnsafeRawBufferPointer, at time: Int64, duration: Int64) throws {
        guard let transcoder else { return try writeAudioFrame(bytes, at: time, duration: duration) }
        try transcoder.transcode(bytes, at: time) { try writeAudioFrame($0, at: $1, duration: $2) }
    }

    /// `concealing`: a packet that stands in for what the stream did not carry, counted apart.
    private func writeAudioFrame(_ bytes: UnsafeRawBufferPointer, at time: Int64, duration: Int64, concealing: Bool = false) throws {
        if audioTrack?.codec == .opus, let carried = container.opusPacketAsCarried(bytes) {
            return try carried.withUnsafeBytes { try writeAudioFrame($0, at: time, duration: duration, concealing: concealing) }
        }
        guard let muxer, let audioIndex, time >= origin else {
            if !concealing { statistics.audioFramesNotCarried += 1 }
            return
        }
        try muxer.write(audioIndex, bytes, pts: time &- origin, dts: time &- origin, duration: duration, keyframe: true)
        audioEnd = time &+ duration
        if concealing {
            statistics.audioConcealedNanoseconds &+= duration
        } else {
            statistics.audioFramesWritten += 1
        }
        entry?.audioFrames += 1
        entry?.extend(to: time &+ duration, at: utc())
        try synchronizeIfDue(at: time &- origin)
    }

    /// The next file, from the next keyframe on (a segment, or a file reopened after SIGHUP). It is
    /// made only once the last one's index line is written: a file older than the index's last line
    /// is not one that a process that died left open (`SegmentIndex.listLeftOpen`).
    func startNextFile(_ next: @autoclosure () throws -> OutputFile) throws {
        try finishFile()
        file = try next()
        track = nil
    }

    func finish() throws {
        try finishFile()
    }

    /// Whether a keyframe of track `next` begins a picture size or a codec other than the file's
    /// (and one the container carries): its header would say what the pictures are not, which
    /// players that size their view from it get wrong, so it begins a new file (`Outputs`).
    func changesTrack(to next: VideoTrack) throws -> Bool {
        guard let track else { return false }
        if next.codec != track.codec { return try container.carries(next.codec.libavcodecName) }
        return (next.width, next.height) != (track.width, track.height)
    }

    /// The file's track, from its first keyframe. A later keyframe's picture size that differs is
    /// counted (it begins a new file, `changesTrack`).
    private func declare(_ keyframeTrack: VideoTrack?, at arrival: Int64) throws {
        guard let keyframeTrack else { return }
        guard let track else {
            track = keyframeTrack
            heldSince = arrival
            lengthPrefixed = container.keepsNALUnitLengths && keyframeTrack.decoderConfigurationRecord != nil
            videoCarried = try container.carries(keyframeTrack.codec.libavcodecName)
            if !videoCarried { warnNotCarried(keyframeTrack.codec.name) }
            return
        }
        if keyframeTrack.codec == track.codec && (keyframeTrack.width, keyframeTrack.height) != (track.width, track.height) {
            statistics.pictureSizeChanges += 1
        }
    }

    /// Writes the header, with the video track and the audio track as far as they are known, then
    /// the video held; `start` is the file's 0 on the timeline.
    private func begin(at first: Int64) throws {
        let start = audioEnd.map { $0 < first && first &- $0 <= Self.audioCarryOverNanoseconds ? $0 : first } ?? first
        let file = self.file
        let muxer = try MediaMuxer(format: try muxerName(), seekable: file.isSeekable,
                                   append: { try file.write($0) },
                                   overwrite: { bytes, offset in try file.write(Array(bytes), at: offset) })
        if let track, videoCarried {
            let parameters = track.parameters
            let extradata = (lengthPrefixed ? track.decoderConfigurationRecord : nil) ?? track.configuration
            var video = MediaMuxer.Track(video: track.codec.libavcodecName, width: track.width, height: track.height,
                                         extradata: extradata, clockRate: 1_000_000_000)
            video.tag = container.tag(for: track.codec.libavcodecName)
            (video.profile, video.bitDepth, video.chromaFormat) = (parameters.profileIdc, parameters.bitDepthLuma,
                                                                   parameters.chromaFormatIdc)
            videoIndex = try muxer.add(video)
        }
        // AAC's frame from its configuration; Opus's frames vary in length: WebRTC's 20 ms.
        let frame = audioTrack.flatMap { audio in
            audio.config.map { (samples: $0.samplesPerFrame, rate: $0.samplingFrequency) }
                ?? (audio.codec == .opus ? (samples: 960, rate: 48000) : nil)
        }
        audioIndex = try audioTrack.map { audio in
            var declared = MediaMuxer.Track(audio: audio.libavcodecName, sampleRate: audio.sampleRate, channels: audio.channels,
                                            extradata: audio.configuration)
            declared.clockRate = 1_000_000_000
            declared.frameSize = frame?.samples ?? 0
            return try muxer.add(declared)
        }
        let aloneFrame = videoIndex == nil ? frame.map { ClockTicks.nanoseconds(Int64($0.samples), clockRate: $0.rate) } : nil
        try muxer.begin(options: container.options(fragmentMilliseconds: configuration.fragmentMilliseconds,
                                                   audioAloneFrameNanoseconds: aloneFrame),
                        firstFlushWithin: container.opensOnlyWithAFragment ? configuration.fragmentNanoseconds : nil)
        (self.muxer, origin, lastDTS) = (muxer, start, nil)
        var codecs: [String] = []
        if let track, videoIndex != nil { codecs.append(track.codec.libavcodecName) }
        if let audioTrack, audioIndex != nil { codecs.append(audioTrack.libavcodecName) }
        let now = utc()
        entry = SegmentIndex.Entry(path: file.path, container: container, startUTC: now, endUTC: now, startTime: start, endTime: start,
                                   frames: 0, keyframes: 0, audioFrames: 0, bytes: 0, codecs: codecs)
        timestamps = DecodeTimestamps(reorderDepth: track?.reorderDepth ?? 0)
        statistics.files += 1
        let (frames, sounds) = (held, heldAudio)
        (held, heldAudio) = ([], [])
        for sound in sounds {
            try sound.bytes.withUnsafeBytes {
                if sound.concealing { return try writeAudioFrame($0, at: sound.time, duration: sound.duration, concealing: true) }
                try writeAudio($0, at: sound.time, duration: sound.duration)
            }
        }
        for frame in frames { try enqueue(frame.bytes, pts: frame.time &- origin, keyframe: frame.keyframe) }
    }

    private func hold(_ unit: AccessUnit, at time: Int64) {
        held.append((copy(unit), time, unit.isKeyframe))
    }

    private func copy(_ unit: AccessUnit) -> [UInt8] {
        var bytes = spare.popLast() ?? []
        copy(unit, into: &bytes)
        return bytes
    }

    /// The unit's bytes in the file's form.
    private func copy(_ unit: AccessUnit, into bytes: inout [UInt8]) {
        if lengthPrefixed { return unit.copyLengthPrefixed(into: &bytes) }
        bytes.removeAll(keepingCapacity: true)
        for piece in unit.pieces { bytes.append(contentsOf: piece) }
    }

    /// A frame for its decode time: at once when no reordering is possible, else once the
    /// look-ahead has seen enough frames after it.
    private func put(_ unit: AccessUnit, pts: Int64) throws {
        guard waiting.isEmpty && track?.reorderDepth == 0 else { return try enqueue(copy(unit), pts: pts, keyframe: unit.isKeyframe) }
        timestamps.add(pts: pts)
        guard lengthPrefixed else {
            return try unit.withContiguousBytes(scratch: &scratch) { try emit($0, pts: pts, keyframe: unit.isKeyframe) }
        }
        unit.copyLengthPrefixed(into: &scratch)
        try scratch.withUnsafeBytes { try emit($0, pts: pts, keyframe: unit.isKeyframe) }
    }

    private func enqueue(_ bytes: [UInt8], pts: Int64, keyframe: Bool) throws {
        timestamps.add(pts: pts)
        waiting.append((bytes, pts, keyframe))
        if waiting.count > timestamps.lookAhead { try emitOldest() }
    }

    private func emitOldest() throws {
        let frame = waiting.removeFirst()
        try frame.bytes.withUnsafeBytes { try emit($0, pts: frame.pts, keyframe: frame.keyframe) }
        spare.append(frame.bytes)
    }

    /// A frame lasts until the next one's decode time, not known yet: the last step stands in,
    /// which the MP4 muxer needs for a fragment's last frame (the next fragment starts where it
    /// ends). A file's first frame has no step before it, so it waits for the second's decode time.
    private func emit(_ bytes: UnsafeRawBufferPointer, pts: Int64, keyframe: Bool) throws {
        let dts = timestamps.next(pts: pts)
        guard let last = lastDTS else {
            lastDTS = dts
            var kept = spare.popLast() ?? []
            kept.removeAll(keepingCapacity: true)
            kept.append(contentsOf: bytes)
            firstFrame = (kept, pts, dts, keyframe)
            return
        }
        lastDTS = dts
        try writeFirstFrame(lasting: dts &- last)
        try writeVideo(bytes, pts: pts, dts: dts, duration: dts &- last, keyframe: keyframe)
    }

    private func writeFirstFrame(lasting duration: Int64) throws {
        guard let first = firstFrame else { return }
        firstFrame = nil
        try first.bytes.withUnsafeBytes { try writeVideo($0, pts: first.pts, dts: first.dts, duration: duration, keyframe: first.keyframe) }
        spare.append(first.bytes)
    }

    private func writeVideo(_ bytes: UnsafeRawBufferPointer, pts: Int64, dts: Int64, duration: Int64, keyframe: Bool) throws {
        guard let videoIndex else {
            statistics.framesNotCarried += 1
            return
        }
        try muxer?.write(videoIndex, bytes, pts: pts, dts: dts, duration: duration, keyframe: keyframe)
        statistics.framesWritten += 1
        if keyframe { statistics.keyframesWritten += 1 }
        entry?.frames += 1
        entry?.keyframes += keyframe ? 1 : 0
        entry?.extend(to: origin &+ pts &+ duration, at: utc())
        try synchronizeIfDue(at: pts)
    }

    /// Writes the frames still held or waiting and the trailer, and closes the file. One whose
    /// track never began (no keyframe, or a codec it cannot carry) was never made: a file is made
    /// at its first bytes (`OutputFile`'s `createdOnFirstWrite`), its header's.
    private func finishFile() throws {
        if muxer == nil, let start = [held.first?.time, heldAudio.first?.time].compactMap({ $0 }).min() { try begin(at: start) }
        while !waiting.isEmpty { try emitOldest() }
        try writeFirstFrame(lasting: 0)
        // The encoder's last frames end this file; the next file's audio is encoded anew.
        try transcoder?.finish { try writeAudioFrame($0, at: $1, duration: $2) }
        try muxer?.finish()
        statistics.framesRetimed += muxer?.retimed ?? 0
        let began = muxer != nil
        if began && configuration.fsync != .none {
            try file.synchronize(directory: true)
            statistics.synchronizations += 1
        }
        if var finished = entry, let muxer {
            finished.bytes = muxer.size
            try index?.append(finished)
            announce?(finished)
        }
        (entry, synchronized) = (nil, (0, 0))
        (muxer, audioIndex, videoIndex) = (nil, nil, nil)
        // Its path may name another file by now (moved away for log rotation, and a new one made).
        let stillAtItsPath = file.path != "-" && file.isAtItsPath
        try file.close()
        if began && stillAtItsPath && configuration.faststart && container == .mp4 { try moveIndexToFront(file) }
    }

    /// --faststart: the finished file copied with its index in front, then put in its place (a
    /// rename: the file is whole at its path either way).
    private func moveIndexToFront(_ finished: OutputFile) throws {
        let copy = finished.path + ".faststart"
        do {
            try Faststart.copy(finished.path, to: copy)
            let moved = try OutputFile(path: copy, appending: true)
            try moved.rename(to: finished.path)
            if configuration.fsync != .none { try moved.synchronize(directory: true) }
            try moved.close()
        } catch {
            try? Directory.remove(copy)
            throw RunError(description: "--faststart \(finished.displayName): \(error)")
        }
    }

    /// The container's muxer, or for a Matroska file named .webm whose tracks WebM takes (VP8, VP9,
    /// AV1, Opus), WebM's: the DocType browsers ask for. Other tracks make it Matroska, said once.
    private func muxerName() throws -> String {
        guard container == .mkv, file.path.lowercased().hasSuffix(".webm") else { return container.muxer }
        let codecs = [videoCarried ? track?.codec.libavcodecName : nil, audioTrack?.libavcodecName].compactMap { $0 }
        if try codecs.allSatisfy({ try MediaMuxer.carries(format: "webm", codecName: $0) == true }) { return "webm" }
        if said.insert("webm").inserted && !configuration.quiet {
            Terminal.printError("warning: \(file.displayName): WebM carries VP8, VP9, AV1 and Opus; this stream is written as Matroska\n")
        }
        return container.muxer
    }

    /// `--fsync fragment`: what the muxer handed over is made durable, at most once per fragment's
    /// length of media; the file's first time, its name in the directory too.
    private func synchronizeIfDue(at time: Int64) throws {
        guard configuration.fsync == .fragment, let size = muxer?.size, size > synchronized.size,
              time &- synchronized.time >= configuration.fragmentNanoseconds else { return }
        try file.synchronize(directory: synchronized.size == 0)
        synchronized = (size, time)
        statistics.synchronizations += 1
    }

    /// Now in UTC: the wall clock live, the latest frame's capture time in a replay.
    private func utc() -> Int64 { configuration.live ? Terminal.wallclockNanoseconds() : latestArrival }

    private func warnNotCarried(_ codec: String) {
        guard said.insert(codec).inserted, !configuration.quiet else { return }
        Terminal.printError("warning: \(file.displayName): \(container.name) (\(container.flag)) does not carry \(codec); "
                            + "it is left out\(container == .mkv ? "" : " (--mkv carries every codec rtprecv takes)")\n")
    }
}
