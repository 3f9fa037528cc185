import CFFmpeg

/// What a recording file holds, read back through libavformat's demuxer: for a file a crash left
/// without its index line (its frames, keyframes, audio frames, codecs, and the span of its times).
public struct RecordingContents {
    public var frames = 0
    public var keyframes = 0
    public var audioFrames = 0
    /// Its first packet's time and its last one's end, in nanoseconds of the file's own timeline.
    public var start: Int64 = 0
    public var end: Int64 = 0
    /// libavcodec's names of its tracks' codecs.
    public var codecs: [String] = []

    /// Nothing: an empty file's contents.
    public init() {}

    public static func read(_ path: String) throws(FFmpegError) -> RecordingContents {
        // A file cut short is expected to be: what the demuxer finds wrong in it (a track with no
        // frame yet, a damaged last fragment) is no warning for the user.
        try FFmpegError.loadFormat()
        rtprecv_av_log_silence(1)
        defer { rtprecv_av_log_silence(0) }
        let file = try DemuxedFile(path)
        // Its context is used through `input`: the file stays open to the end of the scope.
        defer { withExtendedLifetime(file) {} }
        let input = file.context
        var contents = RecordingContents()
        let streams = file.streams
        contents.codecs = streams.map { String(cString: avcodec_get_name($0.pointee.codecpar.pointee.codec_id)) }
        guard let packet = av_packet_alloc() else { throw FFmpegError("av_packet_alloc", rtprecv_averror(ENOMEM)) }
        defer { var p: UnsafeMutablePointer<AVPacket>? = packet; av_packet_free(&p) }
        var first = Int64.max
        // A file cut by a crash ends in a damaged fragment: what reads before it counts.
        while av_read_frame(input, packet) >= 0 {
            defer { av_packet_unref(packet) }
            let i = Int(packet.pointee.stream_index)
            guard i < streams.count else { continue }
            if streams[i].pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
                contents.frames += 1
                contents.keyframes += packet.pointee.flags & AV_PKT_FLAG_KEY != 0 ? 1 : 0
            } else if streams[i].pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO {
                contents.audioFrames += 1
            }
            let time = packet.pointee.pts != rtprecv_nopts() ? packet.pointee.pts : packet.pointee.dts
            guard time != rtprecv_nopts() else { continue }
            let base = streams[i].pointee.time_base
            let nanoseconds = AVRational(num: 1, den: 1_000_000_000)
            first = min(first, av_rescale_q_rnd(time, base, nanoseconds, AV_ROUND_NEAR_INF))
            contents.end = max(contents.end, av_rescale_q_rnd(time &+ max(0, packet.pointee.duration), base, nanoseconds, AV_ROUND_NEAR_INF))
        }
        contents.start = first == .max ? 0 : first
        return contents
    }
}
