import FFmpeg
import RTPCore
import SystemIO

/// The containers a recording is written in, through libavformat's muxers.
enum Container: String, CaseIterable {
    case mp4, mkv, ts

    var flag: String { "--\(rawValue)" }
    /// Where the options keep its path.
    var path: WritableKeyPath<Options, String?> {
        switch self {
        case .mp4: \.mp4
        case .mkv: \.mkv
        case .ts: \.ts
        }
    }
    var name: String {
        switch self {
        case .mp4: "MP4"
        case .mkv: "Matroska"
        case .ts: "MPEG-TS"
        }
    }

    /// libavformat's muxer.
    var muxer: String {
        switch self {
        case .mp4: "mp4"
        case .mkv: "matroska"
        case .ts: "mpegts"
        }
    }

    /// The muxer's options that make a file readable up to its last fragment when the writing
    /// stops at any moment: MP4 fragmented (an empty moov, then a moof and mdat at every keyframe
    /// and at least every `fragmentMilliseconds`), Matroska clusters of that length at most.
    /// MPEG-TS is readable anywhere as it is.
    func options(fragmentMilliseconds: Int) -> [(String, String)] {
        switch self {
        case .mp4: [("movflags", "+frag_keyframe+empty_moov+delay_moov+default_base_moof"), ("frag_duration", String(fragmentMilliseconds * 1000))]
        case .mkv: [("cluster_time_limit", String(fragmentMilliseconds))]
        case .ts: []
        }
    }

    /// Whether it carries `codec`: as libavformat says, or, for MPEG-TS, whose muxer cannot say,
    /// the codecs its stream types (ISO/IEC 13818-1) name.
    func carries(_ codec: VideoCodec) throws -> Bool {
        try MediaMuxer.carries(format: muxer, codecName: codec.libavcodecName) ?? ["h264", "hevc"].contains(codec.libavcodecName)
    }

    /// The FourCC MP4 names the codec by, where it has a choice: 'hvc1' (parameter sets in the
    /// header), which browsers and Apple's players take, rather than 'hev1'.
    func tag(for codecName: String) -> String? { self == .mp4 && codecName == "hevc" ? "hvc1" : nil }
}

/// `--mp4`, `--mkv`, `--ts`: the video as libavformat's muxer writes it into a file the output
/// owns. The track is declared from the first keyframe (`VideoTrack`); frames before it are left
/// out. RTP gives presentation times only: decode times are derived with the look-ahead of the
/// stream's reorder depth (`DecodeTimestamps`), frames waiting for theirs copied aside. Each file
/// starts at time 0; a sender's jump continues the timeline rather than break the file.
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
        var files = 0

        /// Every count by its name, for the report and the JSON alike.
        var fields: [(name: String, value: Int)] {
            [("frames_written", framesWritten), ("keyframes_written", keyframesWritten), ("files", files),
             ("dropped_before_keyframe", droppedBeforeKeyframe), ("frames_not_carried", framesNotCarried),
             ("timestamp_jumps", timestampJumps), ("picture_size_changes", pictureSizeChanges)]
        }
    }

    let container: Container
    private(set) var file: OutputFile
    private(set) var statistics = Statistics()
    private let fragmentMilliseconds: Int
    private let quiet: Bool
    private var muxer: MediaMuxer?
    private var track: VideoTrack?
    /// The first presentation time of the file, which starts at 0.
    private var origin: Int64 = 0
    private var timeline = ContinuousTimeline(limitMilliseconds: 5000)
    private var timestamps = DecodeTimestamps(reorderDepth: 0)
    /// Frames waiting for their decode time, and buffers to reuse.
    private var waiting: [(bytes: [UInt8], pts: Int64, keyframe: Bool)] = []
    private var spare: [[UInt8]] = []
    private var scratch: [UInt8] = []
    private var saidNotCarried = false
    private var lastDTS: Int64?

    init(_ container: Container, file: OutputFile, fragmentMilliseconds: Int, quiet: Bool, codec: VideoCodec?) throws {
        self.container = container
        self.file = file
        self.fragmentMilliseconds = fragmentMilliseconds
        self.quiet = quiet
        if let codec, try !container.carries(codec) { warnNotCarried(codec) }
    }

    func write(_ unit: AccessUnit) throws {
        let time = timeline.place(unit.time ?? unit.pts.multipliedSaturated(by: 100_000) / 9)
        statistics.timestampJumps = timeline.jumps
        if unit.isKeyframe { try declare(VideoTrack.of(unit), at: time) }
        guard muxer != nil, unit.codec == track?.codec else {
            if track == nil { statistics.droppedBeforeKeyframe += 1 } else { statistics.framesNotCarried += 1 }
            return
        }
        let pts = time &- origin
        timestamps.add(pts: pts)
        if waiting.isEmpty && timestamps.lookAhead == 0 {
            try unit.withContiguousBytes(scratch: &scratch) { try put($0, pts: pts, keyframe: unit.isKeyframe) }
        } else {
            var bytes = spare.popLast() ?? []
            bytes.removeAll(keepingCapacity: true)
            for piece in unit.pieces { bytes.append(contentsOf: piece) }
            waiting.append((bytes, pts, unit.isKeyframe))
            if waiting.count > timestamps.lookAhead { try putOldest() }
        }
    }

    /// The next file, from the next keyframe on (a segment, or a file reopened after SIGHUP).
    func startNextFile(_ next: OutputFile) throws {
        try finishFile()
        file = next
        track = nil
    }

    func finish() throws {
        try finishFile()
    }

    /// The file's track, from its first keyframe. A later keyframe's picture size that differs is
    /// counted: its parameter sets travel in the frames, which decoders follow, but a player that
    /// sizes its view from the header alone does not.
    private func declare(_ keyframeTrack: VideoTrack?, at time: Int64) throws {
        guard let keyframeTrack else { return }
        guard let track else { return try begin(keyframeTrack, at: time) }
        if keyframeTrack.codec == track.codec && (keyframeTrack.width, keyframeTrack.height) != (track.width, track.height) {
            statistics.pictureSizeChanges += 1
        }
    }

    private func begin(_ newTrack: VideoTrack, at time: Int64) throws {
        track = newTrack
        let codecName = newTrack.codec.libavcodecName
        guard try container.carries(newTrack.codec) else { return warnNotCarried(newTrack.codec) }
        let file = self.file
        let muxer = try MediaMuxer(format: container.muxer, seekable: file.isSeekable,
                                   append: { try file.write($0) },
                                   overwrite: { bytes, offset in try file.write(Array(bytes), at: offset) })
        var declared = MediaMuxer.Track(video: codecName, width: newTrack.width, height: newTrack.height,
                                        extradata: newTrack.configuration, clockRate: 1_000_000_000)
        declared.tag = container.tag(for: codecName)
        (declared.profile, declared.bitDepth, declared.chromaFormat) = (newTrack.parameters.profileIdc, newTrack.parameters.bitDepthLuma,
                                                                        newTrack.parameters.chromaFormatIdc)
        try muxer.add(declared)
        try muxer.begin(options: container.options(fragmentMilliseconds: fragmentMilliseconds))
        (self.muxer, origin, lastDTS) = (muxer, time, nil)
        timestamps = DecodeTimestamps(reorderDepth: newTrack.reorderDepth)
        statistics.files += 1
    }

    private func put(_ bytes: UnsafeRawBufferPointer, pts: Int64, keyframe: Bool) throws {
        let dts = timestamps.next(pts: pts)
        // A frame lasts until the next one's decode time, not known yet: the last step stands in,
        // which the MP4 muxer needs for a fragment's last frame.
        let duration = lastDTS.map { dts &- $0 } ?? 0
        lastDTS = dts
        try muxer?.write(0, bytes, pts: pts, dts: dts, duration: duration, keyframe: keyframe)
        statistics.framesWritten += 1
        if keyframe { statistics.keyframesWritten += 1 }
    }

    private func putOldest() throws {
        let frame = waiting.removeFirst()
        try frame.bytes.withUnsafeBytes { try put($0, pts: frame.pts, keyframe: frame.keyframe) }
        spare.append(frame.bytes)
    }

    /// Writes the frames still waiting and the trailer, and closes the file.
    private func finishFile() throws {
        while !waiting.isEmpty { try putOldest() }
        try muxer?.finish()
        muxer = nil
        try file.close()
        // A file whose track never began (no keyframe, or a codec it cannot carry) is no file of its kind.
        if file.path != "-" { Terminal.removeIfEmpty(file.path) }
    }

    private func warnNotCarried(_ codec: VideoCodec) {
        guard !saidNotCarried else { return }
        saidNotCarried = true
        if !quiet {
            Terminal.printError("warning: \(file.displayName): \(container.name) (\(container.flag)) does not carry \(codec.name); "
                                + "its frames are left out\(container == .mkv ? "" : " (--mkv carries every codec rtprecv takes)")\n")
        }
    }
}
