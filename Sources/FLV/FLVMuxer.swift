import RTPCore

/// Writes a session's video and audio as an FLV stream (Adobe FLV v10.1): header, onMetaData, video
/// and AAC sequence headers, one tag per frame, and an end-of-sequence tag. H.264 goes as AVC (codec
/// id 7); H.265 as Enhanced RTMP's 'hvc1' (ExVideoTagHeader, FourCC), or with `hevcLegacy` as codec
/// id 12 in AVC's tag layout, which some servers and players expect instead.
///
/// Times come from the session timeline (`AccessUnit.time`, `AudioFrame.time`), or from the RTP
/// timestamps of units made by hand. RTP gives the presentation time, so `DecodeTimestamps` derives
/// video decode times with a look-ahead of the SPS's reorder depth; the composition time is the
/// difference. Tags of both tracks go out in non-decreasing decode time: a tag waits for the other
/// track to catch up, but at most `maxInterleaveWaitMilliseconds` after it arrived (on the packet
/// clock, so a sender's bursts do not count as waiting), so a silent track never holds the other
/// back for long. One that comes later than that is written at the last time given out, and counted.
///
/// A video frame too large for a tag (DataSize is 24 bits: 16 MiB) is dropped and counted, and the
/// frames that refer to it with it, up to the next keyframe, unless `keepAfterLoss`.
public final class FLVMuxer {
    public struct Configuration: Sendable {
        public var clockRate = 90000
        /// After a loss, write the frames before the next keyframe anyway (players smear them).
        public var keepAfterLoss = false
        /// A presentation-time step larger than this (either way) is a sender restart or a jump:
        /// the timeline continues from the last frame instead.
        public var maxTimestampJumpMilliseconds: Int64 = 5000
        /// The tracks the session will have: the header waits (boundedly) for the first frame of each.
        public var expectsVideo = true
        public var expectsAudio = false
        /// How long one track's tags wait for the other's, from their arrival on the packet clock.
        public var maxInterleaveWaitMilliseconds: Int64 = 500
        /// H.265 as codec id 12 (the pre-Enhanced-RTMP convention) rather than 'hvc1'.
        public var hevcLegacy = false

        public init() {}
    }

    public struct Statistics: Sendable {
        public var framesWritten = 0
        public var keyframesWritten = 0
        public var sequenceHeaders = 0
        public var droppedAfterLoss = 0
        public var droppedBeforeKeyframe = 0
        /// Frames larger than a tag can carry, dropped.
        public var droppedTooLarge = 0
        public var timestampJumps = 0
        /// Frames FLV cannot carry here: of another codec than the first, which an FLV file cannot
        /// change to, or of a codec FLV has no code for.
        public var droppedOtherCodec = 0
        public var audioFramesWritten = 0
        public var audioSequenceHeaders = 0
        /// Audio frames of a codec FLV has no code for (Opus, G.722), or of a second codec.
        public var audioFramesNotCarried = 0
        /// Tags that came after the wait for them was over, written at the last time given out.
        public var tagsRetimed = 0
        /// Frames whose time would have repeated their track's last one, written 1 ms after it.
        public var framesMadeLater = 0
        public var bytesWritten = 0
        public var width = 0
        public var height = 0
        /// Of every file, when segments cut the output.
        public var durationMilliseconds: Int64 = 0
        public var audioSoundFormat: FLVSoundFormat?

        /// Every count of the file, declared once: the report, the JSON and the metrics read this.
        public var counts: [Count] {
            [Count(name: "frames_written", help: "video frames written", value: framesWritten),
             Count(name: "keyframes_written", help: "keyframes written", value: keyframesWritten),
             Count(name: "sequence_headers", help: "video sequence headers written", value: sequenceHeaders),
             Count(name: "dropped_after_loss", help: "frames dropped after a loss until a keyframe", value: droppedAfterLoss),
             Count(name: "dropped_before_keyframe", help: "frames dropped before the first keyframe", value: droppedBeforeKeyframe),
             Count(name: "dropped_too_large", help: "frames too large for a tag (16 MiB) dropped", value: droppedTooLarge),
             Count(name: "dropped_other_codec", help: "frames of a codec FLV cannot carry (none of its own, or other than the file's first) dropped",
                   value: droppedOtherCodec),
             Count(name: "timestamp_jumps", help: "timestamp jumps bridged", value: timestampJumps),
             Count(name: "bytes", help: "bytes written", value: bytesWritten),
             Count(name: "audio_frames_written", help: "audio frames written", value: audioFramesWritten),
             Count(name: "audio_frames_not_carried", help: "audio frames of a codec FLV cannot carry, left out", value: audioFramesNotCarried),
             Count(name: "audio_sequence_headers", help: "audio sequence headers written", value: audioSequenceHeaders),
             Count(name: "tags_retimed", help: "tags later than --interleave-ms, written at the last time", value: tagsRetimed),
             Count(name: "frames_made_later", help: "frames written 1 ms after the one before, whose time they shared", value: framesMadeLater),
             Count(name: "duration_ms", help: "media written, of every file", value: Int(clamping: durationMilliseconds))]
        }
    }

    /// A metadata value to rewrite once the file is complete, at a byte offset from its start.
    public struct Patch {
        public var offset: Int
        public var bytes: [UInt8]
    }

    public let configuration: Configuration
    public private(set) var statistics = Statistics()

    private struct Pending {
        var payload: [UInt8]
        var pts: Int64
        var keyframe: Bool
        var arrival: Int64
        /// The keyframe a segment starts at (`cutBeforeNextKeyframe`).
        var startsFile = false
    }

    /// A tag ready but for its turn. A sequence header takes the time of the frame after it.
    private struct Tag {
        enum Kind { case videoSequenceHeader, video(keyframe: Bool), audioSequenceHeader, audio }
        var kind: Kind
        var dts: Int64
        var pts: Int64
        var body: [UInt8]
        /// When the packet that completed it arrived, on the packet clock.
        var arrival: Int64

        /// A segment starts here: at the keyframe it was cut before, or the sequence header in front of it.
        var startsFile = false

        var isSequenceHeader: Bool {
            switch kind {
            case .videoSequenceHeader, .audioSequenceHeader: true
            default: false
            }
        }
    }

    private var writer = ByteWriter()
    private var queue: [Pending] = []
    private var freeBuffers: [[UInt8]] = []
    private var timestamps = DecodeTimestamps(reorderDepth: 0)
    private var record: VideoConfiguration?
    /// The codec of the first access unit: the file's.
    private var codec: VideoCodec?
    private var videoStarted = false
    private var metadataOffsets: [String: Int] = [:]
    private var framerate: Double = 0
    // The video timeline, in nanoseconds: presentation times of units without a session time (made
    // by hand) shifted past jumps, as the session timeline does for the others.
    private var presentation: ContinuousTimeline
    private var lastDTS: Int64 = Int64.min
    /// A frame was dropped for its size: the ones that refer to it go too, up to a keyframe.
    private var awaitingKeyframe = false
    private var gathered: [UInt8] = []

    // The audio track: its first frame's header byte, and the AAC config in force.
    private var audioHeader: FLVAudioHeader?
    private var audioConfig: [UInt8]?
    private var audioTrack: AudioTrack?

    // Interleaving and the file: tags of each track in decode order, the header once both are known.
    private var videoTags: [Tag] = []
    private var audioTags: [Tag] = []
    private var headerWritten = false
    private var headerFlags: UInt8 = 0
    private var base: Int64 = 0
    private var lastTagTime: Int64 = Int64.min
    /// The time, in milliseconds of the file, of each track's last frame: the next is later, since
    /// muxers and players refuse a repeated time (frames in a burst after a reconnect, or tags
    /// retimed together, would otherwise share one).
    private var lastFrameMilliseconds = (video: Int64.min, audio: Int64.min)
    private var maxPTSMilliseconds: Int64 = 0
    /// The latest arrival of any unit: the clock the waits run on.
    private var now: Int64 = Int64.min
    private var maxWait: Int64 { configuration.maxInterleaveWaitMilliseconds * 1_000_000 }

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        presentation = ContinuousTimeline(limitMilliseconds: configuration.maxTimestampJumpMilliseconds)
        writer.bytes.reserveCapacity(1 << 20)
    }

    // MARK: Video

    /// Whether FLV has code for `codec`: AVC (codec id 7), and HEVC (Enhanced RTMP's 'hvc1', or the
    /// legacy id 12). Other codecs are for the other outputs.
    public static func carries(_ codec: VideoCodec) -> Bool { codec == .h264 || codec == .h265 }

    /// Adds one access unit; `emit` receives the bytes of every tag that became ready.
    public func write(_ accessUnit: AccessUnit, emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        let pts = timeline(accessUnit.time ?? ClockTicks.nanoseconds(accessUnit.pts, clockRate: configuration.clockRate),
                           bridging: accessUnit.time == nil)
        now = max(now, accessUnit.arrival)
        if codec == nil && Self.carries(accessUnit.codec) { codec = accessUnit.codec }
        guard accessUnit.codec == codec else {
            statistics.droppedOtherCodec += 1
            return
        }
        if accessUnit.followsLoss && !configuration.keepAfterLoss {
            statistics.droppedAfterLoss += 1
            return
        }
        var payload = freeBuffers.popLast() ?? []
        payload.removeAll(keepingCapacity: true)
        let parameterSets = lengthPrefixed(accessUnit, into: &payload)
        let newRecord = accessUnit.isKeyframe ? Self.configuration(hevc: accessUnit.codec == .h265, parameterSets) : nil
        // A segment cut before this keyframe starts at it, or at its new sequence header.
        var startsFile = cutPending && accessUnit.isKeyframe && videoStarted
        if startsFile { cutPending = false }
        if let newRecord, newRecord != record {
            // Frames queued for their decode times belong to the old sequence: out with them first.
            flushQueue()
            startSequence(newRecord, arrival: accessUnit.arrival)
            videoTags[videoTags.count - 1].startsFile = startsFile
            startsFile = false
        }
        guard videoStarted else {
            statistics.droppedBeforeKeyframe += 1
            freeBuffers.append(payload)
            return
        }
        timestamps.add(pts: pts)
        queue.append(Pending(payload: payload, pts: pts, keyframe: accessUnit.isKeyframe, arrival: accessUnit.arrival,
                             startsFile: startsFile))
        if queue.count > timestamps.lookAhead { emitOldest() }
        try interleave(emit, finishing: false)
    }

    /// The unit's NAL units into `payload`, each behind its 32-bit length, but its parameter sets,
    /// which go into the sequence header and are returned (VPS, SPS, PPS by kind), and its delimiters.
    private func lengthPrefixed(_ accessUnit: AccessUnit, into payload: inout [UInt8]) -> [[[UInt8]]] {
        var parameterSets: [[[UInt8]]] = [[], [], []]
        let hevc = accessUnit.codec == .h265
        accessUnit.forEachNALUnit(scratch: &gathered) { nal in
            if hevc, nal.count >= 2 {
                let type = HEVCNALHeader(nal).type
                if let kind = HEVCParameterSetCache.Kind.of(type: type) { return parameterSets[kind.rawValue].append(Array(nal)) }
                if type == HEVCNALUnitType.accessUnitDelimiter { return }
            } else if !hevc {
                switch nalUnitType(nal[0]) {
                case NALUnitType.sps: return parameterSets[1].append(Array(nal))
                case NALUnitType.pps: return parameterSets[2].append(Array(nal))
                case NALUnitType.accessUnitDelimiter: return
                default: break
                }
            }
            let n = UInt32(nal.count)
            payload.append(contentsOf: [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)])
            payload.append(contentsOf: nal)
        }
        return parameterSets
    }

    /// A keyframe's decoder configuration record from its parameter sets, when they make one that fits a tag.
    private static func configuration(hevc: Bool, _ parameterSets: [[[UInt8]]]) -> VideoConfiguration? {
        hevc
            ? HEVCDecoderConfigurationRecord(vps: parameterSets[0], sps: parameterSets[1], pps: parameterSets[2]).flatMap {
                $0.bytes(arrayCompleteness: true).count + FLVLayout.avcVideoHeaderSize <= FLVLayout.maxDataSize ? .hevc($0) : nil
            }
            : AVCDecoderConfigurationRecord(sps: parameterSets[1], pps: parameterSets[2]).flatMap {
                $0.bytes.count + FLVLayout.avcVideoHeaderSize <= FLVLayout.maxDataSize ? .avc($0) : nil
            }
    }

    private func timeline(_ input: Int64, bridging: Bool) -> Int64 {
        defer { statistics.timestampJumps = presentation.jumps }
        return presentation.place(input, bridging: bridging)
    }

    private func startSequence(_ newRecord: VideoConfiguration, arrival: Int64) {
        // With the reorder depth the SPS gives, decode times can be derived.
        let depth: Int, size: (Int, Int), rate: Double?
        switch newRecord {
        case .avc(let avc):
            let sps = avc.sequenceParameterSets[0].withUnsafeBytes { SequenceParameterSet(nal: $0) }!
            depth = sps.reorderDepth
            (size, rate) = ((sps.width, sps.height), sps.frameRate)
        case .hevc(let hevc):
            let fps = hevc.sps.frameRateFraction.map { Double($0.numerator) / Double($0.denominator) }
            (depth, size, rate) = (Int(hevc.sps.maxNumReorderPics), (hevc.sps.width, hevc.sps.height), fps)
        }
        timestamps = DecodeTimestamps(reorderDepth: depth)
        if !videoStarted {
            videoStarted = true
            framerate = rate ?? 0
            (statistics.width, statistics.height) = size
        }
        record = newRecord
        videoTags.append(sequenceHeader(newRecord, arrival: arrival))
        statistics.sequenceHeaders += 1
    }

    /// A sequence header tag. Queued, it takes the time of the tag after it (`writeHead`); `dts` is
    /// for one written at once.
    private func sequenceHeader(_ record: VideoConfiguration, dts: Int64 = 0, arrival: Int64) -> Tag {
        var body = ByteWriter()
        writeVideoHeader(into: &body, keyframe: true, packet: .sequenceHeader, compositionTime: 0)
        switch record {
        case .avc(let avc): body.append(avc.bytes)
        // array_completeness 1: 'hvc1', every set is here.
        case .hevc(let hevc): body.append(hevc.bytes(arrayCompleteness: true))
        }
        return Tag(kind: .videoSequenceHeader, dts: dts, pts: 0, body: body.bytes, arrival: arrival)
    }

    private func audioSequenceHeader(_ header: FLVAudioHeader, _ config: [UInt8], dts: Int64 = 0, arrival: Int64) -> Tag {
        Tag(kind: .audioSequenceHeader, dts: dts, pts: 0, body: [header.byte, AACPacketType.sequenceHeader.rawValue] + config,
            arrival: arrival)
    }

    private func emitOldest() {
        let frame = queue.removeFirst()
        var dts = timestamps.next(pts: frame.pts)
        if dts < lastDTS { dts = lastDTS }
        lastDTS = dts
        if frame.keyframe { awaitingKeyframe = false }
        guard videoHeaderSize(.nalu, compositionTime: 1) + frame.payload.count <= FLVLayout.maxDataSize else {
            statistics.droppedTooLarge += 1
            awaitingKeyframe = !configuration.keepAfterLoss
            freeBuffers.append(frame.payload)
            return
        }
        if awaitingKeyframe {
            statistics.droppedAfterLoss += 1
            freeBuffers.append(frame.payload)
            return
        }
        videoTags.append(Tag(kind: .video(keyframe: frame.keyframe), dts: dts, pts: frame.pts, body: frame.payload,
                             arrival: frame.arrival, startsFile: frame.startsFile))
    }

    private func flushQueue() {
        while !queue.isEmpty { emitOldest() }
    }

    // MARK: Audio

    /// Adds one audio frame. A codec FLV has no code for (Opus, G.722) is counted and left out.
    public func write(audio frame: AudioFrame, emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let header = FLVAudioHeader(frame.track), audioHeader.map({ $0.soundFormat == header.soundFormat }) ?? true,
              frame.bytes.count + 2 <= FLVLayout.maxDataSize else {
            statistics.audioFramesNotCarried += 1
            return
        }
        if audioHeader == nil {
            audioHeader = header
            audioTrack = frame.track
            statistics.audioSoundFormat = header.soundFormat
        }
        let time = frame.time ?? ClockTicks.nanoseconds(frame.pts, clockRate: frame.track.clockRate)
        now = max(now, frame.arrival)
        var body = freeBuffers.popLast() ?? []
        body.removeAll(keepingCapacity: true)
        body.append(header.byte)
        if case .aac(let config) = frame.track.codec {
            if config.bytes != audioConfig {
                audioConfig = config.bytes
                audioTags.append(audioSequenceHeader(header, config.bytes, arrival: frame.arrival))
                statistics.audioSequenceHeaders += 1
            }
            body.append(AACPacketType.raw.rawValue)
        }
        body.append(contentsOf: frame.bytes)
        audioTags.append(Tag(kind: .audio, dts: time, pts: time, body: body, arrival: frame.arrival))
        try interleave(emit, finishing: false)
    }

    // MARK: Interleaving

    /// When a queue's head may go: its decode time, a sequence header taking its follower's.
    private func headTime(_ tags: [Tag]) -> Int64? {
        guard let head = tags.first else { return nil }
        if head.isSequenceHeader { return tags.count > 1 ? tags[1].dts : nil }
        return head.dts
    }

    /// Whether a queue's head has waited as long as it may for the other track.
    private func hasWaited(_ tags: [Tag]) -> Bool {
        guard let head = tags.first, headTime(tags) != nil else { return false }
        return now &- head.arrival >= maxWait
    }

    private func interleave(_ emit: (UnsafeRawBufferPointer) throws -> Void, finishing: Bool) throws {
        let audioMayCome = configuration.expectsAudio || audioHeader != nil
        let videoMayCome = configuration.expectsVideo || videoStarted
        while true {
            let video = headTime(videoTags), audio = headTime(audioTags)
            let waited = finishing || hasWaited(videoTags) || hasWaited(audioTags)
            if !headerWritten {
                let ready = (video != nil || !videoMayCome) && (audio != nil || !audioMayCome) && (video != nil || audio != nil)
                guard ready || (waited && (video != nil || audio != nil)) else { return }
                base = min(video ?? Int64.max, audio ?? Int64.max)
                try writeHeaderAndMetadata(emit)
            }
            let takeVideo: Bool
            if let video, let audio {
                takeVideo = video <= audio
            } else if video != nil {
                guard !audioMayCome || finishing || hasWaited(videoTags) else { return }
                takeVideo = true
            } else if audio != nil {
                guard !videoMayCome || finishing || hasWaited(audioTags) else { return }
                takeVideo = false
            } else {
                if finishing { try flushSequenceHeaders(emit) }
                return
            }
            try writeHead(of: takeVideo, emit)
        }
    }

    /// At the end, a sequence header with no frame after it still goes out.
    private func flushSequenceHeaders(_ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        for video in [true, false] where !(video ? videoTags : audioTags).isEmpty {
            try writeHead(of: video, emit)
        }
    }

    private func writeHead(of video: Bool, _ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        var tag = video ? videoTags.removeFirst() : audioTags.removeFirst()
        if tag.isSequenceHeader { tag.dts = headTime(video ? videoTags : audioTags) ?? max(lastTagTime, base) }
        if tag.startsFile && headerWritten { try startNextFile(at: tag, emit) }
        try write(tag, video: video, emit)
    }

    private func write(_ tag: Tag, video: Bool, _ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        var tag = tag
        if tag.dts < lastTagTime {
            if !tag.isSequenceHeader { statistics.tagsRetimed += 1 }
            tag.dts = lastTagTime
        }
        if !tag.isSequenceHeader {
            let last = video ? lastFrameMilliseconds.video : lastFrameMilliseconds.audio
            if last != Int64.min && milliseconds(tag.dts) <= last {
                tag.dts = base + (last + 1) * 1_000_000
                statistics.framesMadeLater += 1
            }
            if video { lastFrameMilliseconds.video = milliseconds(tag.dts) } else { lastFrameMilliseconds.audio = milliseconds(tag.dts) }
        }
        lastTagTime = max(lastTagTime, tag.dts)
        let time = UInt32(truncatingIfNeeded: max(0, milliseconds(tag.dts)))
        writer.bytes.removeAll(keepingCapacity: true)
        switch tag.kind {
        case .videoSequenceHeader, .audioSequenceHeader:
            writeTagHeader(video ? .video : .audio, dataSize: tag.body.count, time: time)
            writer.append(tag.body)
        case .video(let keyframe):
            let ptsMilliseconds = milliseconds(tag.pts)
            maxPTSMilliseconds = max(maxPTSMilliseconds, ptsMilliseconds)
            // Composition time: signed 24 bits, never negative here since DTS <= PTS.
            let cts = UInt32(clamping: min(max(ptsMilliseconds - milliseconds(tag.dts), 0), 0x7FFFFF))
            writeTagHeader(.video, dataSize: videoHeaderSize(.nalu, compositionTime: cts) + tag.body.count, time: time)
            writeVideoHeader(into: &writer, keyframe: keyframe, packet: .nalu, compositionTime: cts)
            writer.append(tag.body)
            statistics.framesWritten += 1
            if keyframe { statistics.keyframesWritten += 1 }
        case .audio:
            maxPTSMilliseconds = max(maxPTSMilliseconds, milliseconds(tag.pts))
            writeTagHeader(.audio, dataSize: tag.body.count, time: time)
            writer.append(tag.body)
            statistics.audioFramesWritten += 1
        }
        try finishTag(emit)
        if !tag.isSequenceHeader { freeBuffers.append(tag.body) }
    }

    /// Flushes the frames held for their decode times and writes the end-of-sequence tag.
    public func finish(emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        flushQueue()
        try interleave(emit, finishing: true)
        guard headerWritten else { return }
        try endFile(emit)
    }

    private func endFile(_ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        if videoStarted {
            writer.bytes.removeAll(keepingCapacity: true)
            writeTagHeader(.video, dataSize: videoHeaderSize(.endOfSequence, compositionTime: 0),
                           time: UInt32(truncatingIfNeeded: max(0, milliseconds(lastTagTime))))
            writeVideoHeader(into: &writer, keyframe: true, packet: .endOfSequence, compositionTime: 0)
            try finishTag(emit)
        }
        file.durationMilliseconds = maxPTSMilliseconds + (videoStarted ? presentation.frameDuration / 1_000_000 : 0)
        statistics.durationMilliseconds += file.durationMilliseconds
    }

    // MARK: Files

    /// Segments: the file ends before the next keyframe handed in, with everything before it in
    /// decode order and the audio before it in time, and another begins that plays by itself: a
    /// header, onMetaData and the sequence headers in force, its times from 0. `onFileEnd` is
    /// called between the two, with the patches the ended file is due; from then on `emit` writes
    /// to the next.
    public func cutBeforeNextKeyframe() { cutPending = true }
    public var onFileEnd: (([Patch]) throws -> Void)?
    private var cutPending = false

    private func startNextFile(at tag: Tag, _ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        try endFile(emit)
        try onFileEnd?(metadataPatches())
        file = FileState(start: statistics.bytesWritten, framesBefore: statistics.framesWritten)
        (base, lastTagTime, maxPTSMilliseconds, metadataOffsets) = (tag.dts, Int64.min, 0, [:])
        lastFrameMilliseconds = (Int64.min, Int64.min)
        try writeHeaderAndMetadata(emit)
        // A new sequence header about to go out is the file's; else the one in force.
        if case .video = tag.kind, let record { try write(sequenceHeader(record, dts: tag.dts, arrival: tag.arrival), video: true, emit) }
        if let audioHeader, let audioConfig {
            try write(audioSequenceHeader(audioHeader, audioConfig, dts: tag.dts, arrival: tag.arrival), video: false, emit)
        }
    }

    /// The file being written: where it starts in the bytes written, and its duration once ended.
    private struct FileState {
        var start = 0
        var framesBefore = 0
        var durationMilliseconds: Int64 = 0
    }
    private var file = FileState()

    /// The header flags and onMetaData values only known at the end of the file: rewrite them, at
    /// offsets from its start, where the output can seek.
    public func metadataPatches() -> [Patch] {
        let seconds = Double(file.durationMilliseconds) / 1000
        let size = Double(statistics.bytesWritten - file.start)
        var values: [String: Double] = ["duration": seconds, "filesize": size]
        if seconds > 0 {
            if framerate == 0 { values["framerate"] = Double(statistics.framesWritten - file.framesBefore) / seconds }
            values["videodatarate"] = size * 8 / seconds / 1000
        }
        var patches = values.compactMap { key, value -> Patch? in
            guard let offset = metadataOffsets[key] else { return nil }
            var w = ByteWriter()
            AMF0.numberBits(value, into: &w)
            return Patch(offset: offset, bytes: w.bytes)
        }
        let flags = (videoStarted ? FLVHeaderFlags.video : 0) | (audioHeader != nil ? FLVHeaderFlags.audio : 0)
        if headerWritten && flags != headerFlags { patches.append(Patch(offset: 4, bytes: [flags])) }
        return patches
    }

    // MARK: Tags

    /// Enhanced RTMP: FourCC 'hvc1' instead of a codec id, for H.265 unless `hevcLegacy`.
    private var enhanced: Bool { codec == .h265 && !configuration.hevcLegacy }

    /// onMetaData's videocodecid: the codec id, or Enhanced RTMP's FourCC as a number.
    private var videoCodecIdInMetadata: Double {
        guard codec == .h265 else { return Double(FLVVideoCodecID.avc) }
        return enhanced ? Double(FLVFourCC.hvc1) : Double(FLVVideoCodecID.hevcLegacy)
    }

    /// The bytes of VIDEODATA before the payload: AVC's frame type/codec id, AVCPacketType and
    /// composition time (5), or the ExVideoTagHeader (1), FourCC (4) and, for coded frames with a
    /// composition time, its 3 (CodedFramesX otherwise).
    private func videoHeaderSize(_ packet: AVCPacketType, compositionTime: UInt32) -> Int {
        guard enhanced else { return FLVLayout.avcVideoHeaderSize }
        return packet == .nalu && compositionTime != 0 ? 8 : 5
    }

    private func writeVideoHeader(into w: inout ByteWriter, keyframe: Bool, packet: AVCPacketType, compositionTime: UInt32) {
        let frameType = (keyframe ? FLVVideoFrameType.keyframe : .interFrame).rawValue
        guard enhanced else {
            w.u8(frameType << 4 | (codec == .h265 ? FLVVideoCodecID.hevcLegacy : FLVVideoCodecID.avc))
            w.u8(packet.rawValue)
            w.u24(compositionTime)
            return
        }
        let exPacket: FLVExVideoPacketType = switch packet {
        case .sequenceHeader: .sequenceStart
        case .endOfSequence: .sequenceEnd
        case .nalu: compositionTime != 0 ? .codedFrames : .codedFramesX
        }
        w.u8(FLVExVideoPacketType.isExHeader | frameType << 4 | exPacket.rawValue)
        w.u32(FLVFourCC.hvc1)
        if exPacket == .codedFrames { w.u24(compositionTime) }
    }

    private func milliseconds(_ time: Int64) -> Int64 { (time - base) / 1_000_000 }

    private func writeHeaderAndMetadata(_ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        headerWritten = true
        headerFlags = (videoStarted ? FLVHeaderFlags.video : 0) | (audioHeader != nil ? FLVHeaderFlags.audio : 0)
        writer.bytes.removeAll(keepingCapacity: true)
        writer.append(Array("FLV".utf8))
        writer.u8(1)
        writer.u8(headerFlags)
        writer.u32(UInt32(FLVLayout.headerSize))
        writer.u32(0)  // PreviousTagSize0
        try emitWriter(emit)

        writer.bytes.removeAll(keepingCapacity: true)
        writeTagHeader(.script, dataSize: 0, time: 0)
        AMF0.string("onMetaData", into: &writer)
        var fields: [(String, AMF0.Value)] = [("duration", .number(0))]
        if videoStarted {
            fields += [("width", .number(Double(statistics.width))), ("height", .number(Double(statistics.height))),
                       ("framerate", .number(framerate)), ("videocodecid", .number(videoCodecIdInMetadata)),
                       ("videodatarate", .number(0))]
        }
        if let audioHeader, let track = audioTrack {
            fields += [("audiocodecid", .number(Double(audioHeader.soundFormat.rawValue))),
                       ("audiosamplerate", .number(Double(track.sampleRate))), ("audiosamplesize", .number(16)),
                       ("stereo", .boolean(track.channels > 1))]
        }
        fields.append(("filesize", .number(0)))
        writer.u8(AMF0Marker.ecmaArray)
        writer.u32(UInt32(fields.count))
        for (key, value) in fields {
            AMF0.shortString(key, into: &writer)
            switch value {
            case .number(let number):
                writer.u8(AMF0Marker.number)
                metadataOffsets[key] = statistics.bytesWritten - file.start + writer.bytes.count
                AMF0.numberBits(number, into: &writer)
            case .boolean(let flag):
                writer.u8(AMF0Marker.boolean)
                writer.u8(flag ? 1 : 0)
            }
        }
        writer.append(AMF0Marker.objectEnd)
        writer.put24(UInt32(writer.bytes.count - FLVLayout.tagHeaderSize), at: 1)
        try finishTag(emit)
    }

    private func writeTagHeader(_ type: FLVTagType, dataSize: Int, time: UInt32) {
        precondition(dataSize <= FLVLayout.maxDataSize, "a tag's DataSize is 24 bits")
        writer.u8(type.rawValue)
        writer.u24(UInt32(dataSize))
        writer.u24(time & 0xFF_FFFF)
        writer.u8(UInt8(time >> 24 & 0xFF))  // TimestampExtended: the high 8 bits
        writer.u24(0)  // StreamID
    }

    /// Appends PreviousTagSize and hands the tag on.
    private func finishTag(_ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        writer.u32(UInt32(writer.bytes.count))
        try emitWriter(emit)
    }

    private func emitWriter(_ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        try writer.bytes.withUnsafeBytes { try emit($0) }
        statistics.bytesWritten += writer.bytes.count
    }
}
/// A video sequence header's record, by codec.
enum VideoConfiguration: Equatable {
    case avc(AVCDecoderConfigurationRecord)
    case hevc(HEVCDecoderConfigurationRecord)
}
