import CFFmpeg

/// A finished MP4 written again with its index (moov) in front and no fragments, as editors and
/// progressive download want it: every packet copied as it is, by libavformat's mov demuxer and
/// muxer (`movflags +faststart`). The source is read by path and the copy written to `destination`;
/// the caller puts it in the source's place.
public enum Faststart {
    public static func copy(_ source: String, to destination: String) throws(FFmpegError) {
        let file = try DemuxedFile(source)
        // Its context is used through `input`: the file stays open to the end of the scope.
        defer { withExtendedLifetime(file) {} }
        let input = file.context
        var output: UnsafeMutablePointer<AVFormatContext>?
        var status = avformat_alloc_output_context2(&output, nil, "mp4", destination)
        guard status >= 0, let output else { throw FFmpegError("avformat_alloc_output_context2(mp4)", status) }
        defer { avformat_free_context(output) }
        for from in file.streams {
            guard let to = avformat_new_stream(output, nil) else {
                throw FFmpegError("avformat_new_stream", rtprecv_averror(ENOMEM))
            }
            status = avcodec_parameters_copy(to.pointee.codecpar, from.pointee.codecpar)
            guard status >= 0 else { throw FFmpegError("avcodec_parameters_copy", status) }
            to.pointee.time_base = from.pointee.time_base
        }
        status = avio_open2(&output.pointee.pb, destination, AVIO_FLAG_WRITE, nil, nil)
        guard status >= 0 else { throw FFmpegError("avio_open2(\(destination))", status) }
        defer { avio_closep(&output.pointee.pb) }
        var options: OpaquePointer?
        av_dict_set(&options, "movflags", "+faststart", 0)
        defer { av_dict_free(&options) }
        status = avformat_write_header(output, &options)
        guard status >= 0 else { throw FFmpegError("avformat_write_header(mp4)", status) }
        try copyPackets(from: input, to: output)
        status = av_write_trailer(output)
        guard status >= 0 else { throw FFmpegError("av_write_trailer(mp4)", status) }
    }

    private static func copyPackets(from input: UnsafeMutablePointer<AVFormatContext>,
                                    to output: UnsafeMutablePointer<AVFormatContext>) throws(FFmpegError) {
        guard let packet = av_packet_alloc() else { throw FFmpegError("av_packet_alloc", rtprecv_averror(ENOMEM)) }
        defer { var p: UnsafeMutablePointer<AVPacket>? = packet; av_packet_free(&p) }
        while true {
            let read = av_read_frame(input, packet)
            if read == FFmpegError.endOfFile { return }
            guard read >= 0 else { throw FFmpegError("av_read_frame", read) }
            let i = Int(packet.pointee.stream_index)
            av_packet_rescale_ts(packet, input.pointee.streams[i]!.pointee.time_base, output.pointee.streams[i]!.pointee.time_base)
            let status = av_interleaved_write_frame(output, packet)
            guard status >= 0 else { throw FFmpegError("av_interleaved_write_frame", status) }
        }
    }
}
