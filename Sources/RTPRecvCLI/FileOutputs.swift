/// An output that a path names. The checks, the names given per stream and per session, and the
/// guard against overwriting read them from `Options.fileOutputs`, so an output added there is
/// checked everywhere.
struct FileOutput {
    enum Media {
        /// Written from the video stream.
        case video
        /// Written from the audio stream.
        case audio
        /// The run's statistics: one file may take every stream's.
        case statistics
    }

    let flag: String
    let path: WritableKeyPath<Options, String?>
    /// The extension of such a file, for examples in messages: ".h264".
    let suffix: String
    let media: Media
    /// It can be cut into segments (`--segment-seconds`).
    var segments = false
}

extension Options {
    static var fileOutputs: [FileOutput] {
        [
            FileOutput(flag: "--out", path: \.out, suffix: ".h264", media: .video, segments: true),
            FileOutput(flag: "--flv", path: \.flv, suffix: ".flv", media: .video, segments: true),
            FileOutput(flag: "--mp4", path: \.mp4, suffix: ".mp4", media: .video, segments: true),
            FileOutput(flag: "--mkv", path: \.mkv, suffix: ".mkv", media: .video, segments: true),
            FileOutput(flag: "--ts", path: \.ts, suffix: ".ts", media: .video, segments: true),
            FileOutput(flag: "--yuv", path: \.yuv, suffix: ".yuv", media: .video),
            FileOutput(flag: "--y4m", path: \.y4m, suffix: ".y4m", media: .video),
            FileOutput(flag: "--frame-md5", path: \.frameMD5, suffix: ".md5", media: .video),
            FileOutput(flag: "--audio", path: \.audio, suffix: ".wav", media: .audio),
            FileOutput(flag: "--wav", path: \.wav, suffix: ".wav", media: .audio),
            FileOutput(flag: "--stats-json", path: \.statsJSON, suffix: ".json", media: .statistics),
            FileOutput(flag: "--frames-json", path: \.framesJSON, suffix: ".jsonl", media: .video),
            FileOutput(flag: "--report", path: \.report, suffix: ".html", media: .statistics),
            FileOutput(flag: "--segment-index", path: \.segmentIndex, suffix: ".jsonl", media: .video),
        ]
    }

    /// The file outputs given, with their paths, in the table's order.
    var givenFileOutputs: [(output: FileOutput, path: String)] {
        Self.fileOutputs.compactMap { output in self[keyPath: output.path].map { (output, $0) } }
    }
}
