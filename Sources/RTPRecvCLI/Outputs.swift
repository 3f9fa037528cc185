import FLV
import RTMPOutput
import RTPCore
import SystemIO

/// Every output of one pass: the elementary stream (Annex-B or IVF), the decoder with its files,
/// the FLV and the frame ledger, up to `--frames`.
final class Outputs: AccessUnitSink {
    private let elementary: ElementaryStreamOutput?
    /// `--segment-seconds`: the elementary stream and the FLV are cut together, at one keyframe.
    private let segments: Segments?
    private var segmentStart: Int64?
    /// The stream's timestamp jumps when the segment began (`AccessUnit.discontinuities`).
    private var segmentDiscontinuities = 0
    private(set) var segmentCount = 0
    /// {n} of this run's first segment: past an earlier run's segments.
    private let firstSegment: Int
    /// SIGHUP came: at the next keyframe the elementary stream and the FLV are reopened (the next
    /// segment, with segments), so that a new file starts with one.
    private var reopenAtKeyframe = false
    private(set) var reopens = 0
    let decoding: DecodingOutput?
    let flv: FLVOutput?
    /// --mp4, --mkv, --ts.
    let containers: [ContainerOutput]
    /// --segment-index: the recordings' closed files.
    let index: SegmentIndex?
    /// --retain-hours, --retain-size: the recordings' oldest segments removed.
    let retention: Retention?
    let rtmp: RTMPPublisher?
    let ledger: FrameLedger?
    /// --report: what the streams did over time, for the page written at the end.
    let timeline: ReportTimeline?
    /// The receiver this is the sink of, whose streams the timeline samples (it owns the outputs).
    unowned var receiver: Receiver?
    /// --metrics: the last keyframe, for the live page's picture.
    let snapshot: KeyframeSnapshot?
    let audio: AudioFileOutput?
    let wav: WAVOutput?
    /// Live only: arrival times are on the monotonic clock, so write latency means something.
    private let measuresLatency: Bool
    private let quiet: Bool
    private(set) var latency = LatencyHistogram()
    private(set) var bytesWritten = 0
    private(set) var accessUnitsWritten = 0

    /// `sdp`: the session's media lines tell the FLV which tracks to wait for.
    /// `timeline`: a fan-out's for --report, shared by its runs; else the run's own when asked for.
    init(options: Options, sdp: SessionDescription?, timeline: ReportTimeline? = nil) throws {
        let segments = options.segmentSeconds.map { Segments(seconds: $0, wallclock: options.segmentWallclock, live: options.isLive) }
        self.segments = segments
        let started = Terminal.wallclockNanoseconds()
        if segments != nil { try Self.listLeftOpen(options, now: started) }
        let patterns = [options.out, options.flv].compactMap { $0 } + Container.allCases.compactMap { options[keyPath: $0.path] }
        let firstFree = segments == nil ? 0 : Retention.firstFreeNumber(patterns)
        firstSegment = firstFree
        if firstFree > 0 && !options.quiet {
            Terminal.printError("segments numbered to \(firstFree - 1) are there from an earlier run: this run's begin at {n} = \(firstFree)\n")
        }
        /// A segmented output's first file, or the output's one.
        func first(_ path: String) -> String {
            segments == nil ? path : OutputTemplate(pattern: path).path(n: firstFree, unixNanoseconds: started)
        }
        elementary = try options.out.map { try ElementaryStreamOutput(file: open(first($0)), quiet: options.quiet) }
        segmentCount = segments == nil ? 0 : 1
        decoding = options.decode ? try DecodingOutput(options: options) : nil
        let muxing = Self.flvConfiguration(options, sdp: sdp)
        flv = try options.flv.map {
            try FLVOutput(file: open(first($0), createdOnFirstWrite: true), configuration: muxing, quiet: options.quiet,
                          codec: sdp?.codec ?? options.codec)
        }
        let recording = ContainerOutput.Configuration(options, expectsVideo: muxing.expectsVideo, expectsAudio: muxing.expectsAudio)
        containers = try Container.allCases.compactMap { container in
            try options[keyPath: container.path].map {
                try ContainerOutput(container, file: open(first($0), createdOnFirstWrite: true), configuration: recording,
                                    codec: sdp?.codec ?? options.codec)
            }
        }
        index = try options.segmentIndex.map { SegmentIndex(file: try open($0, appending: true), synchronizes: options.fsync != .none) }
        for container in containers {
            container.index = index
            if let announce = options.supervised?.announce { container.announce = { announce("segment", $0.fields) } }
        }
        retention = Retention(options)
        templates = (options.out.map(OutputTemplate.init), options.flv.map(OutputTemplate.init),
                     Container.allCases.compactMap { options[keyPath: $0.path].map(OutputTemplate.init) })
        rtmp = try options.rtmp.map { try Self.publisher($0, options, muxing: muxing) }
        ledger = try options.framesJSON.map { try FrameLedger(file: open($0), flushEachLine: options.isLive) }
        self.timeline = timeline ?? options.report.map { _ in ReportTimeline() }
        snapshot = options.servesLivePage ? KeyframeSnapshot() : nil
        audio = try options.audio.map { try AudioFileOutput(file: open($0), quiet: options.quiet) }
        wav = try options.wav.map { try WAVOutput(file: open($0), quiet: options.quiet) }
        measuresLatency = options.isLive
        self.quiet = options.quiet
        codecPending = files.contains { $0.path.contains(OutputTemplate.codecField) }
        try enforceRetention()
    }

    /// The segments of the index that an earlier process left open (it died), listed and
    /// announced now, so that each file has its one line and its one event.
    private static func listLeftOpen(_ options: Options, now started: Int64) throws {
        guard let index = options.segmentIndex else { return }
        // Taken from a member whose claim expired: its files may share this index and names.
        let gone = options.supervised?.expiredWriter
        let leftOpen = try SegmentIndex.listLeftOpen(index: index, templates: SegmentIndex.templates(options),
                                                     synchronizes: options.fsync != .none, quiet: options.quiet,
                                                     idleSince: gone.map { started &- $0.idle } ?? .max)
        // A fleet member restarted: the segments its killed process left get their events now.
        for entry in leftOpen { options.supervised?.announce?("segment", entry.fields) }
        if let gone, gone.index != index { listLeftOpen(by: gone, options) }
    }

    /// The FLV muxer's settings, for --flv and --rtmp alike; the session's media lines tell it
    /// which tracks to wait for.
    private static func flvConfiguration(_ options: Options, sdp: SessionDescription?) -> FLVMuxer.Configuration {
        var muxing = FLVMuxer.Configuration()
        muxing.keepAfterLoss = options.flvKeepAfterLoss
        muxing.hevcLegacy = options.flvHEVCLegacy
        muxing.expectsVideo = sdp.map { $0.video != nil } ?? true
        muxing.expectsAudio = !options.noAudio && (sdp.map { $0.media.contains { $0.media == "audio" } } ?? true)
        muxing.maxInterleaveWaitMilliseconds = Int64(options.interleaveMilliseconds)
        return muxing
    }

    /// --rtmp: the same tags as --flv's, from a muxer of its own, so that the file keeps every
    /// frame the server may not.
    private static func publisher(_ url: String, _ options: Options, muxing: FLVMuxer.Configuration) throws -> RTMPPublisher {
        let quiet = options.quiet
        let say: @Sendable (String) -> Void = { text in if !quiet { Terminal.printError(text) } }
        let realtime = !options.isLive && (options.realtime ?? true)
        return try RTMPPublisher(configuration: .init(url: url, queueMilliseconds: options.rtmpQueueMilliseconds,
                                                      reconnect: options.reconnect, realtime: realtime,
                                                      blocksWhenFull: !options.isLive, measuresLatency: options.isLive),
                                 muxer: FLVMuxer(configuration: muxing), say: say)
    }

    /// A fleet member took this source after `gone`'s claim expired: the segments it left open
    /// (it died) are listed in its index and announced from here, as it would have at a restart,
    /// so that each file still has its one event. A file written within the idle bound is left
    /// alone: its member may be alive and cut off from NATS, and will close it itself.
    private static func listLeftOpen(by gone: Options.ExpiredWriter, _ options: Options) {
        do {
            let entries = try SegmentIndex.listLeftOpen(index: gone.index, templates: gone.templates, synchronizes: options.fsync != .none,
                                                        quiet: options.quiet, writer: "member '\(gone.member)', whose claim expired",
                                                        idleSince: Terminal.wallclockNanoseconds() &- gone.idle)
            for entry in entries { options.supervised?.announce?("segment", entry.fields + [("left_by", .string(gone.member))]) }
        } catch {
            Terminal.printError("warning: the segments member '\(gone.member)' left open are not listed: \(error)\n")
        }
    }

    /// The recordings' directories within --retain-hours and --retain-size: at the start (an
    /// earlier run's segments count) and as each segment begins.
    private func enforceRetention() throws {
        guard let retention else { return }
        do {
            try retention.enforce(templates.containers.map(\.pattern), keeping: Set(containers.map(\.file.path)),
                                  now: Terminal.wallclockNanoseconds()) { path, reason in
                if !quiet { Terminal.printError("deleted \(path), the oldest recording beyond --\(reason)\n") }
                try index?.appendDeletion(of: path, reason: reason, at: Terminal.wallclockNanoseconds())
            }
        } catch let error as SystemError {
            throw RunError(description: "cannot keep the recordings within their bounds: \(error)")
        }
    }

    /// Memory that outlives the run (a capture mapped whole): the elementary stream's writes of it
    /// wait and go out together (`OutputFile.gather`), its next files' too.
    func gatherWrites(within memory: UnsafeRawBufferPointer) {
        elementary?.gathered = memory
    }

    func write(_ accessUnit: AccessUnit) throws {
        if codecPending { try name(after: accessUnit.codec) }
        // A keyframe's track, read once for every recording (none without one).
        let keyframeTrack = accessUnit.isKeyframe && !containers.isEmpty ? VideoTrack.of(accessUnit) : nil
        if accessUnit.isKeyframe {
            if reopenAtKeyframe { try reopenOutputs(at: accessUnit) }
            if let segments { try cut(at: accessUnit, segments, keyframeTrack) } else { try startParts(at: keyframeTrack) }
            snapshot?.keep(accessUnit)
        }
        try elementary?.write(accessUnit)
        try decoding?.decode(accessUnit)
        try flv?.write(accessUnit)
        for container in containers { try container.write(accessUnit, keyframeTrack: keyframeTrack) }
        try rtmp?.write(accessUnit)
        timeline?.write(accessUnit)
        if measuresLatency { latency.record(nanoseconds: Terminal.monotonicNanoseconds() - accessUnit.arrival) }
        bytesWritten += accessUnit.byteCount
        accessUnitsWritten += 1
    }

    /// SIGHUP: the ledger is reopened now, the elementary stream and the FLV at the next keyframe
    /// (with segments, the next segment of both).
    func reopen() throws {
        try ledger?.reopen()
        reopenAtKeyframe = elementary != nil || flv != nil || !containers.isEmpty
    }

    /// The paths of the elementary stream, the FLV and the containers, segments named from them.
    private var templates: (elementary: OutputTemplate?, flv: OutputTemplate?, containers: [OutputTemplate])

    /// Paths with `{codec}` that the SDP and --codec left open: at the first access unit, the
    /// stream has proved its codec, and the files opened so far take their names.
    private var codecPending = false

    /// The files open now (a segment's, once named), standard output aside.
    var files: [OutputFile] {
        ([elementary?.file, flv?.file, ledger?.file, index?.file].compactMap { $0 } + containers.map(\.file) + (decoding?.files ?? []))
            .filter { $0.path != "-" }
    }

    private func name(after codec: VideoCodec) throws {
        codecPending = false
        for file in files where file.path.contains(OutputTemplate.codecField) {
            do {
                try file.rename(to: OutputTemplate.codec(file.path, codec))
            } catch let error as SystemError {
                throw RunError(description: "cannot name output \(error)")
            }
        }
        let filled = { (template: OutputTemplate?) in template.map { OutputTemplate(pattern: OutputTemplate.codec($0.pattern, codec)) } }
        templates = (filled(templates.elementary), filled(templates.flv), templates.containers.map { filled($0)! })
    }

    private func reopenOutputs(at accessUnit: AccessUnit) throws {
        reopenAtKeyframe = false
        reopens += 1
        if segments != nil {
            try startSegment(at: segments?.time(of: accessUnit))
            return
        }
        try elementary?.reopen { path, appending in try open(path, appending: appending) }
        // An FLV cannot be appended to: one moved away is finished, and a whole new one begins at
        // its path; one still there is written on.
        if let flv, flv.latestFile.path != "-", !flv.latestFile.isAtItsPath {
            try flv.startNextFile(open(flv.latestFile.path, createdOnFirstWrite: true))
        }
        // A container's file is finished whole, with its index, when it was moved away.
        for container in containers where container.file.path != "-" && !container.file.isAtItsPath {
            try container.startNextFile(open(container.file.path, createdOnFirstWrite: true))
        }
    }

    /// At a keyframe past the segment's end, the next segment: it starts with this keyframe, which
    /// carries its SPS and PPS, so it plays by itself.
    private func cut(at accessUnit: AccessUnit, _ segments: Segments, _ keyframeTrack: VideoTrack?) throws {
        guard let start = segmentStart else {
            (segmentStart, segmentDiscontinuities) = (segments.time(of: accessUnit), accessUnit.discontinuities)
            return
        }
        let time = segments.time(of: accessUnit)
        // A jump of the sender's timestamps since the segment began ends it too: what follows is
        // timed anew, and a segment never spans two of the sender's clocks.
        if accessUnit.discontinuities != segmentDiscontinuities {
            segmentDiscontinuities = accessUnit.discontinuities
            if !quiet {
                Terminal.printError("warning: the stream's timestamps jumped (a sender restarted, or its clock stepped): "
                                    + "a new segment begins at the keyframe after it\n")
            }
            return try startSegment(at: time)
        }
        if let keyframeTrack, try containers.contains(where: { try $0.changesTrack(to: keyframeTrack) }) {
            if !quiet { Terminal.printError("warning: the picture size or codec changed: a new segment begins at this keyframe\n") }
            return try startSegment(at: time)
        }
        if segments.ends(startedAt: start, by: time) { try startSegment(at: time) }
    }

    /// Without segments: a recording whose picture size or codec changes at a keyframe goes on in a
    /// file of its own, the next part (`cam.mp4`, then `cam.1.mp4`), said once each.
    private func startParts(at keyframeTrack: VideoTrack?) throws {
        guard let keyframeTrack else { return }
        for (i, container) in containers.enumerated() where container.file.path != "-" {
            guard try container.changesTrack(to: keyframeTrack) else { continue }
            parts[i] += 1
            let path = OutputTemplate.part(templates.containers[i].pattern, parts[i])
            if !quiet {
                Terminal.printError("warning: \(container.file.displayName): the picture size or codec changed; the recording goes on in \(path)\n")
            }
            try container.startNextFile(open(path, createdOnFirstWrite: true))
        }
    }

    /// Parts begun of each recording (`startParts`).
    private lazy var parts = [Int](repeating: 0, count: containers.count)

    /// The next segment, begun at `time` (on the segments' clock).
    private func startSegment(at time: Int64?) throws {
        let started = Terminal.wallclockNanoseconds()
        let path = { (template: OutputTemplate) in template.path(n: self.firstSegment + self.segmentCount, unixNanoseconds: started) }
        if let template = templates.elementary {
            try elementary?.startNextFile(open(path(template)))
        }
        if let flv, let template = templates.flv {
            try flv.startNextFile(open(path(template), createdOnFirstWrite: true))
        }
        for (container, template) in zip(containers, templates.containers) {
            try container.startNextFile(open(path(template), createdOnFirstWrite: true))
        }
        try enforceRetention()
        segmentCount += 1
        segmentStart = time
    }

    func account(_ record: FrameRecord) throws {
        try ledger?.append(record)
        timeline?.account(record, of: receiver)
    }

    func write(telephoneEvent: TelephoneEventRecord) throws {
        try ledger?.append(telephoneEvent)
    }

    func write(audio frame: AudioFrame) throws {
        try audio?.write(frame)
        try wav?.write(frame)
        try flv?.write(audio: frame)
        for container in containers { try container.write(audio: frame) }
        try rtmp?.write(audio: frame)
        timeline?.write(audio: frame)
    }

    /// Why the run must stop before its input ends: publishing failed for good.
    var failure: String? { rtmp?.failure }

    /// Drains the decoder and closes the files.
    func finish() throws {
        try audio?.finish()
        try wav?.finish()
        try decoding?.finish()
        try flv?.finish()
        for container in containers { try container.finish() }
        try enforceRetention()
        try index?.close()
        try rtmp?.finish()
        try elementary?.close()
        try ledger?.finish()
    }
}

/// An output file at `path`, in directories made as needed (a config's `{source}/`, a port's
/// `{port}/`, which nobody makes beforehand), its failure said as the run's error.
/// `createdOnFirstWrite`: a recording's (FLV, MP4, Matroska, MPEG-TS), made at its first bytes (`OutputFile`).
func open(_ path: String, appending: Bool = false, createdOnFirstWrite: Bool = false) throws -> OutputFile {
    do {
        do {
            return try OutputFile(path: path, appending: appending, createdOnFirstWrite: createdOnFirstWrite)
        } catch let error as SystemError where error.isNoSuchFile && path != "-" {
            try Directory.makeParents(of: path)
            return try OutputFile(path: path, appending: appending, createdOnFirstWrite: createdOnFirstWrite)
        }
    } catch let error as SystemError {
        throw RunError(description: "cannot open output \(error)")
    }
}
