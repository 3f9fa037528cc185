import CFFmpeg

/// A media file opened by libavformat's demuxer, its streams' parameters read (the audio's frame
/// size among them, which a muxer needs to time a last frame); closed with the object.
final class DemuxedFile {
    let context: UnsafeMutablePointer<AVFormatContext>

    init(_ path: String) throws(FFmpegError) {
        try FFmpegError.loadFormat()
        var input: UnsafeMutablePointer<AVFormatContext>?
        let status = avformat_open_input(&input, path, nil, nil)
        guard status >= 0, let input else { throw FFmpegError("avformat_open_input(\(path))", status) }
        context = input
        let read = avformat_find_stream_info(input, nil)
        guard read >= 0 else { throw FFmpegError("avformat_find_stream_info(\(path))", read) }
    }

    deinit {
        var c: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&c)
    }

    var streams: [UnsafeMutablePointer<AVStream>] { (0..<Int(context.pointee.nb_streams)).compactMap { context.pointee.streams[$0] } }
}
