import SystemIO

/// `--segment-index FILE`: one JSON line per recording file closed whole (a segment, or the one
/// file), appended with a single write(2) to a file opened for appending, so that lines of earlier
/// runs stay and a reader never sees half a line. A file open when the process died has no line.
final class SegmentIndex {
    /// What became of one recording file.
    struct Entry {
        var path: String
        var container: Container
        /// UTC (Unix nanoseconds) of its first and last frame: the wall clock live, the capture's
        /// packet times in a replay.
        var startUTC: Int64
        var endUTC: Int64
        /// Its first frame's and its end's time on the session timeline, in nanoseconds.
        var startTime: Int64
        var endTime: Int64
        var frames: Int
        var keyframes: Int
        var audioFrames: Int
        var bytes: Int
        /// libavcodec's names of its tracks' codecs.
        var codecs: [String]

        /// A frame that ends at `time` on the timeline was written at `utc`.
        mutating func extend(to time: Int64, at utc: Int64) {
            endTime = max(endTime, time)
            endUTC = utc
        }

        var json: JSON {
            .object([("path", .string(path)), ("container", .string(container.rawValue)),
                     ("start_utc", .string(OutputTemplate.basicUTC(startUTC))), ("end_utc", .string(OutputTemplate.basicUTC(endUTC))),
                     ("start_ms", .int(Int(startTime / 1_000_000))), ("end_ms", .int(Int(endTime / 1_000_000))),
                     ("duration_ms", .int(Int((endTime &- startTime) / 1_000_000))), ("frames", .int(frames)),
                     ("keyframes", .int(keyframes)), ("audio_frames", .int(audioFrames)), ("bytes", .int(bytes)),
                     ("codecs", .array(codecs.map { .string($0) }))])
        }
    }

    private(set) var file: OutputFile
    private let synchronizes: Bool
    private(set) var entries = 0

    /// `synchronizes`: each line is made durable (fsync) once written, as `--fsync` asks of files.
    init(file: OutputFile, synchronizes: Bool) {
        self.file = file
        self.synchronizes = synchronizes
    }

    func append(_ entry: Entry) throws {
        try file.write(entry.json.serialized + "\n")
        if synchronizes { try file.synchronize(directory: entries == 0) }
        entries += 1
    }

    /// A line saying a file listed before is gone (retention), so that the lines read in order
    /// end where the directory is.
    func appendDeletion(of path: String, reason: String, at utc: Int64) throws {
        let line = JSON.object([("path", .string(path)), ("deleted_utc", .string(OutputTemplate.basicUTC(utc))),
                                ("reason", .string(reason))])
        try file.write(line.serialized + "\n")
    }

    func close() throws {
        try file.close()
    }
}
