import CFFmpeg

/// One of libavformat's muxers (mp4, matroska, mpegts, …) writing a file through callbacks, so that
/// the file stays the caller's: it opens, names, renames and closes it. Bytes at the end go to
/// `append`; a muxer that goes back to fill in a size or an index (Matroska, a finished MP4) uses
/// `overwrite`, when the file is `seekable`.
///
/// Streams are added, then `begin` writes the header; packets carry times in each stream's
/// `clockRate`, rescaled to the time base the muxer chose.
public final class MediaMuxer {
    /// A track as the muxer's header needs it.
    public struct Track {
        /// libavcodec's codec name: "h264", "hevc", "vp9", "av1", "aac", "opus".
        public var codecName: String
        public var isVideo: Bool
        /// The codec's configuration as libavformat takes it: Annex-B parameter sets (H.264, H.265,
        /// which the muxer turns into avcC or hvcC), an AV1 sequence header OBU, an AudioSpecificConfig.
        public var extradata: [UInt8] = []
        public var width = 0
        public var height = 0
        /// The codec's profile number (profile_idc, VP9's and AV1's profile), where known.
        public var profile: Int?
        /// Bits per sample and chroma_format_idc (0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4): the
        /// pixel format MP4's VP9 configuration box is written from.
        public var bitDepth = 8
        public var chromaFormat = 1
        public var sampleRate = 0
        public var channels = 0
        /// Samples per audio frame, where the codec fixes it (AAC's 1024 or 960); 0 where it varies.
        public var frameSize = 0
        /// The ticks per second of the times given to `write`.
        public var clockRate: Int32
        /// The ticks per second the track is asked to keep (the muxer may choose its own).
        public var timeScale: Int32
        /// A FourCC the container should name the codec by ("hvc1" rather than MP4's default "hev1").
        public var tag: String?

        public init(video codecName: String, width: Int, height: Int, extradata: [UInt8], clockRate: Int32) {
            self.codecName = codecName
            isVideo = true
            self.width = width
            self.height = height
            self.extradata = extradata
            self.clockRate = clockRate
            timeScale = 90000
        }

        public init(audio codecName: String, sampleRate: Int, channels: Int, extradata: [UInt8]) {
            self.codecName = codecName
            isVideo = false
            self.sampleRate = sampleRate
            self.channels = channels
            self.extradata = extradata
            clockRate = Int32(clamping: sampleRate)
            timeScale = clockRate
        }
    }

    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let io: IO
    private let packet: UnsafeMutablePointer<AVPacket>
    private var clockRates: [Int32] = []
    /// Each track's last decode time, in its time base: the next is later, as muxers require.
    private var lastDTS: [Int64] = []
    private var begun = false
    /// While the first flush waits for every track's first frame (`begin(options:firstFlushWithin:)`):
    /// the tracks without one yet, how long after the first track's first frame it waits at most,
    /// and that frame's decode time, in nanoseconds.
    private var firstFlush: (tracksWithout: Set<Int>, within: Int64, since: Int64?)?
    /// Decode times moved later to follow the one before (a sender's repeated time).
    public private(set) var retimed = 0
    /// The bytes handed to the file so far: its size.
    public var size: Int { io.held == nil ? io.end : 0 }

    /// `format`: libavformat's muxer name. `bitExact`: the same packets make the same file (no
    /// random identifiers such as Ogg's stream serial number, no library version in the headers).
    public init(format: String, seekable: Bool, bitExact: Bool = false, append: @escaping (UnsafeRawBufferPointer) throws -> Void,
                overwrite: @escaping (UnsafeRawBufferPointer, Int) throws -> Void) throws(FFmpegError) {
        try FFmpegError.loadFormat()
        io = IO(append: append, overwrite: overwrite)
        guard let packet = av_packet_alloc() else { throw FFmpegError("av_packet_alloc", rtprecv_averror(ENOMEM)) }
        self.packet = packet
        var context: UnsafeMutablePointer<AVFormatContext>?
        let status = avformat_alloc_output_context2(&context, nil, format, nil)
        guard status >= 0, let context else { throw FFmpegError("avformat_alloc_output_context2(\(format))", status) }
        self.context = context
        let size = 1 << 16
        guard let buffer = av_malloc(size),
              let pb = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(size), 1,
                                          Unmanaged.passUnretained(io).toOpaque(), nil, IO.writeCallback,
                                          seekable ? IO.seekCallback : nil) else {
            throw FFmpegError("avio_alloc_context", rtprecv_averror(ENOMEM))
        }
        context.pointee.pb = pb
        // MP4 and Matroska build each fragment or cluster in a buffer of their own and hand it over
        // whole: going through AVIO's buffer too would copy every frame once more (a tenth of an
        // MP4 recording's time). MPEG-TS hands over 188 bytes at a time, and needs that buffer.
        // Where nothing can be overwritten (a pipe), MP4 fills in a box's size by going back
        // within that buffer, so the box must still be in it: there, no fragment goes past it.
        if seekable && Self.handsOverWholeFragments.contains(format) { pb.pointee.direct = 1 }
        // What the muxer hands over goes to the file at once: a crash loses only what it still holds.
        context.pointee.flags |= AVFMT_FLAG_FLUSH_PACKETS | AVFMT_FLAG_CUSTOM_IO
        if bitExact { context.pointee.flags |= AVFMT_FLAG_BITEXACT }
    }

    deinit {
        if let context {
            if let pb = context.pointee.pb {
                av_free(pb.pointee.buffer)
                var io: UnsafeMutablePointer<AVIOContext>? = pb
                avio_context_free(&io)
            }
            avformat_free_context(context)
        }
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        av_packet_free(&packet)
    }

    private static let handsOverWholeFragments: Set<String> = ["mp4", "matroska", "webm"]

    /// Loads libavformat now, at start-up, rather than at the first frame: linking it and its
    /// dependencies takes tens of milliseconds, which a live stream should not wait for.
    public static func load() throws(FFmpegError) {
        try FFmpegError.loadFormat()
    }

    /// Whether muxer `format` can carry codec `codecName`: as its specification has it, or, when
    /// `unofficially`, in a way players know without one (Matroska's ACM and VfW tracks); nil where
    /// libavformat cannot say (a muxer without a codec table, such as MPEG-TS's).
    public static func carries(format: String, codecName: String, unofficially: Bool = false) throws(FFmpegError) -> Bool? {
        try FFmpegError.loadFormat()
        guard let muxer = av_guess_format(format, nil, nil), let descriptor = avcodec_descriptor_get_by_name(codecName) else { return false }
        let answer = avformat_query_codec(muxer, descriptor.pointee.id, unofficially ? FF_COMPLIANCE_UNOFFICIAL : FF_COMPLIANCE_NORMAL)
        return answer < 0 ? nil : answer == 1
    }

    /// Adds a track; returns its index for `write`.
    @discardableResult
    public func add(_ track: Track) throws(FFmpegError) -> Int {
        guard let context, !begun else { throw FFmpegError("avformat_new_stream", rtprecv_averror(EINVAL)) }
        guard let descriptor = avcodec_descriptor_get_by_name(track.codecName) else {
            throw FFmpegError("avcodec_descriptor_get_by_name(\(track.codecName))", rtprecv_averror(EINVAL))
        }
        guard let stream = avformat_new_stream(context, nil) else { throw FFmpegError("avformat_new_stream", rtprecv_averror(ENOMEM)) }
        let parameters = stream.pointee.codecpar!
        parameters.pointee.codec_type = track.isVideo ? AVMEDIA_TYPE_VIDEO : AVMEDIA_TYPE_AUDIO
        parameters.pointee.codec_id = descriptor.pointee.id
        if track.isVideo {
            parameters.pointee.width = Int32(clamping: track.width)
            parameters.pointee.height = Int32(clamping: track.height)
            parameters.pointee.format = Self.pixelFormat(bitDepth: track.bitDepth, chromaFormat: track.chromaFormat).rawValue
            if let profile = track.profile { parameters.pointee.profile = Int32(clamping: profile) }
        } else {
            parameters.pointee.sample_rate = Int32(clamping: track.sampleRate)
            parameters.pointee.frame_size = Int32(clamping: track.frameSize)
            av_channel_layout_default(&parameters.pointee.ch_layout, Int32(clamping: track.channels))
        }
        if let tag = track.tag {
            parameters.pointee.codec_tag = tag.utf8.reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }
        if !track.extradata.isEmpty {
            let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)
            guard let bytes = av_mallocz(track.extradata.count + padding) else {
                throw FFmpegError("av_mallocz", rtprecv_averror(ENOMEM))
            }
            track.extradata.withUnsafeBytes { bytes.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            parameters.pointee.extradata = bytes.assumingMemoryBound(to: UInt8.self)
            parameters.pointee.extradata_size = Int32(track.extradata.count)
        }
        stream.pointee.time_base = AVRational(num: 1, den: track.timeScale)
        clockRates.append(track.clockRate)
        lastDTS.append(Int64.min)
        return clockRates.count - 1
    }

    /// libavutil's planar pixel format of that depth and chroma format.
    private static func pixelFormat(bitDepth: Int, chromaFormat: Int) -> AVPixelFormat {
        let base = ["gray", "yuv420p", "yuv422p", "yuv444p"][min(max(chromaFormat, 0), 3)]
        return av_get_pix_fmt(bitDepth > 8 ? "\(base)\(bitDepth)le" : base)
    }

    /// Writes the header, with the muxer's `options` (its private options by name).
    ///
    /// `firstFlushWithin`: for a muxer whose file opens only once its first fragment is out (MP4
    /// with `delay_moov`, so that its edit lists know each track's first times, writes its header
    /// with it; Matroska's readers want a cluster), the muxer is flushed without waiting for that
    /// fragment: as soon as every track has a frame, or this many nanoseconds after the first
    /// track's (the video, which a caller may hold back to order its decode times) first frame
    /// without the others. Until then a file cut short would hold nothing a player opens (a track
    /// that never gets a frame, audio that stopped, would hold MP4's header, and every fragment
    /// after it, back to the end), so what the muxer writes before (Matroska's header) is held
    /// until the flush: the file gets its first bytes with something to play.
    public func begin(options: [(String, String)], firstFlushWithin: Int64? = nil) throws {
        guard let context else { return }
        firstFlush = firstFlushWithin.map { (Set(clockRates.indices), $0, nil) }
        if firstFlush != nil { io.held = [] }
        var dictionary: OpaquePointer?
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        let status = avformat_write_header(context, &dictionary)
        av_dict_free(&dictionary)
        try io.check()
        guard status >= 0 else { throw FFmpegError("avformat_write_header", status) }
        begun = true
    }

    /// One frame of track `index`, its times in the track's clock rate (`duration` 0 where unknown).
    /// `bytes` is read during the call only. With several tracks, libavformat interleaves them by
    /// decode time (holding a copy, at most the `max_interleave_delta` option's time).
    public func write(_ index: Int, _ bytes: UnsafeRawBufferPointer, pts: Int64, dts: Int64, duration: Int64 = 0,
                      keyframe: Bool) throws {
        guard let context, begun, clockRates.indices.contains(index), bytes.count <= Int32.max else { return }
        let stream = context.pointee.streams[index]!
        let from = AVRational(num: 1, den: clockRates[index]), to = stream.pointee.time_base
        var decode = av_rescale_q_rnd(dts, from, to, AV_ROUND_NEAR_INF)
        if decode <= lastDTS[index] {
            decode = lastDTS[index] &+ 1
            retimed += 1
        }
        lastDTS[index] = decode
        packet.pointee.data = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        packet.pointee.size = Int32(bytes.count)
        packet.pointee.stream_index = Int32(index)
        packet.pointee.dts = decode
        packet.pointee.pts = max(av_rescale_q_rnd(pts, from, to, AV_ROUND_NEAR_INF), decode)
        packet.pointee.duration = av_rescale_q_rnd(duration, from, to, AV_ROUND_NEAR_INF)
        packet.pointee.flags = keyframe ? AV_PKT_FLAG_KEY : 0
        let status = clockRates.count > 1 ? av_interleaved_write_frame(context, packet) : av_write_frame(context, packet)
        try io.check()
        guard status >= 0 else { throw FFmpegError("av_write_frame", status) }
        if firstFlush != nil { try flushIfFirstDue(after: index, at: av_rescale_q_rnd(decode, to, Self.nanosecond, AV_ROUND_NEAR_INF)) }
    }

    private static let nanosecond = AVRational(num: 1, den: 1_000_000_000)

    /// `index` had a frame decoded at `time` (nanoseconds): the first flush is made if every track
    /// has one now or the wait is over. The frames the interleaving holds go to their tracks first
    /// (MP4's edit lists start at each track's first), then the flush: MP4's header, Matroska's
    /// first cluster.
    private func flushIfFirstDue(after index: Int, at time: Int64) throws {
        guard var wait = firstFlush, let context else { return }
        wait.tracksWithout.remove(index)
        if index == 0 && wait.since == nil { wait.since = time }
        firstFlush = wait
        let waited = wait.since.map { time &- $0 >= wait.within } ?? false
        guard wait.tracksWithout.isEmpty || waited else { return }
        firstFlush = nil
        var status = clockRates.count > 1 ? av_interleaved_write_frame(context, nil) : 0
        if status >= 0 { status = av_write_frame(context, nil) }
        try io.check()
        guard status >= 0 else { throw FFmpegError("av_write_frame (the first flush)", status) }
        try io.release()
    }

    /// Ends the file: the muxer's trailer (MP4's fragment index, Matroska's cues and sizes).
    public func finish() throws {
        guard let context, begun else { return }
        begun = false
        // A file ended before its first flush: what was held goes first, then the trailer (which
        // may go back into it).
        try io.release()
        let status = av_write_trailer(context)
        try io.check()
        guard status >= 0 else { throw FFmpegError("av_write_trailer", status) }
    }

    /// The callbacks' side: where the muxer's bytes go, and the first error the file gave.
    private final class IO {
        let append: (UnsafeRawBufferPointer) throws -> Void
        let overwrite: (UnsafeRawBufferPointer, Int) throws -> Void
        var position = 0
        var end = 0
        var failure: (any Error)?
        /// Until the first flush: every byte the muxer wrote, from the file's start.
        var held: [UInt8]?

        init(append: @escaping (UnsafeRawBufferPointer) throws -> Void, overwrite: @escaping (UnsafeRawBufferPointer, Int) throws -> Void) {
            self.append = append
            self.overwrite = overwrite
        }

        func check() throws {
            if let failure { throw failure }
        }

        /// `bytes` at `position`: appended, or written over what is there (held, or in the file).
        func put(_ bytes: UnsafeRawBufferPointer) throws {
            guard held != nil else {
                return position == end ? try append(bytes) : try overwrite(bytes, position)
            }
            let over = min(bytes.count, end - position)
            held!.replaceSubrange(position..<position + over, with: bytes.prefix(over))
            held!.append(contentsOf: bytes.dropFirst(over))
        }

        /// What was held goes to the file.
        func release() throws {
            guard let bytes = held else { return }
            held = nil
            try bytes.withUnsafeBytes { try append($0) }
        }

        static let writeCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = { opaque, buffer, size in
            let io = Unmanaged<IO>.fromOpaque(opaque!).takeUnretainedValue()
            guard io.failure == nil else { return rtprecv_averror(EIO) }
            let bytes = UnsafeRawBufferPointer(start: buffer, count: Int(max(size, 0)))
            do {
                try io.put(bytes)
            } catch {
                io.failure = error
                return rtprecv_averror(EIO)
            }
            io.position += bytes.count
            io.end = max(io.end, io.position)
            return size
        }

        static let seekCallback: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = { opaque, offset, whence in
            let io = Unmanaged<IO>.fromOpaque(opaque!).takeUnretainedValue()
            if whence & AVSEEK_SIZE != 0 { return Int64(io.end) }
            let base: Int
            switch whence & ~AVSEEK_FORCE {
            case SEEK_SET: base = 0
            case SEEK_CUR: base = io.position
            case SEEK_END: base = io.end
            default: return Int64(rtprecv_averror(EINVAL))
            }
            // Only within what was written: the muxer goes back to fill in, never past the end.
            let (target, overflow) = Int64(base).addingReportingOverflow(offset)
            guard !overflow, target >= 0, target <= io.end else { return Int64(rtprecv_averror(EINVAL)) }
            io.position = Int(target)
            return target
        }
    }
}
