import FFmpeg
import SystemIO

/// `--segment-index FILE`: one JSON line per recording file closed whole (a segment, or the one
/// file), appended with a single write(2) to a file opened for appending, so that lines of earlier
/// runs stay and a reader never sees half a line. A file open when the process died gets its line
/// at the next start (`listLeftOpen`), read back from the file, with `closed_cleanly` false.
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
        /// False for a file a process left open when it died, listed at the next start.
        var closedCleanly = true

        /// A frame that ends at `time` on the timeline was written at `utc`.
        mutating func extend(to time: Int64, at utc: Int64) {
            endTime = max(endTime, time)
            endUTC = utc
        }

        var json: JSON { .object(fields) }

        var fields: [(String, JSON)] {
            [("path", .string(path)), ("container", .string(container.rawValue)),
                     ("start_utc", .string(OutputTemplate.basicUTC(startUTC))), ("end_utc", .string(OutputTemplate.basicUTC(endUTC))),
                     ("start_ms", .int(Int(startTime / 1_000_000))), ("end_ms", .int(Int(endTime / 1_000_000))),
                     ("duration_ms", .int(Int((endTime &- startTime) / 1_000_000))), ("frames", .int(frames)),
                     ("keyframes", .int(keyframes)), ("audio_frames", .int(audioFrames)), ("bytes", .int(bytes)),
                     ("codecs", .array(codecs.map { .string($0) })), ("closed_cleanly", .bool(closedCleanly))]
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

    /// The recording templates of `options`, for `listLeftOpen`.
    static func templates(_ options: Options) -> [(container: Container, pattern: String)] {
        Container.allCases.compactMap { c in options[keyPath: c.path].map { (c, $0) } }
    }

    /// Segment files of `templates` (paths with {n} or {start}) written since the index's last line
    /// and not listed in it: open when a process died (`writer`). Each is read back (up to its last
    /// whole fragment) and listed with `closed_cleanly` false. Called before the run opens its own
    /// files, one of which may take such a name again. Without an index yet, nothing is listed:
    /// files older than the index were never its to list. With `idleSince` (wall clock), another
    /// process may write these files (a fleet member cut off from NATS): a file written since is
    /// left alone, and none is removed. The entries listed.
    static func listLeftOpen(index path: String, templates: [(container: Container, pattern: String)], synchronizes: Bool,
                             quiet: Bool, writer: String = "a process that ended", idleSince: Int64 = .max) throws -> [Entry] {
        guard let indexFile = Directory.regularFile(path), let text = try? Terminal.readFile(path) else { return [] }
        var found: [Entry] = []
        for (container, pattern) in templates where OutputTemplate.isTemplate(pattern) {
            let (directory, name) = Retention.split(pattern)
            for file in (try? Directory.entries(directory)) ?? [] where Retention.matches(file, name) {
                let filePath = directory == "." ? file : directory + "/" + file
                guard let info = Directory.regularFile(filePath), info.modified >= indexFile.modified, info.modified < idleSince,
                      !text.contains("\"path\":" + JSON.string(filePath).serialized) else { continue }
                if let entry = readBack(filePath, container, info, writer: writer, removesEmpty: idleSince == .max, quiet: quiet) {
                    found.append(entry)
                }
            }
        }
        guard !found.isEmpty else { return [] }
        let index = SegmentIndex(file: try OutputFile(path: path, appending: true), synchronizes: synchronizes)
        for entry in found {
            try index.append(entry)
            if !quiet {
                Terminal.printError("\(entry.path) was left open by \(writer): listed in \(path) with its "
                                    + "\(entry.frames) frames, closed_cleanly false\n")
            }
        }
        try index.close()
        return found
    }

    /// A file left open, read back up to its last whole fragment. One that holds no frame (the
    /// process died before its first fragment) is no recording, and no player opens it: removed
    /// when `removesEmpty` (no other process can be writing it), else listed with no frames.
    private static func readBack(_ path: String, _ container: Container, _ info: (size: Int64, modified: Int64), writer: String,
                                 removesEmpty: Bool, quiet: Bool) -> Entry? {
        let contents = info.size == 0 ? RecordingContents() : try? RecordingContents.read(path)
        if removesEmpty && contents?.frames == 0 && contents?.audioFrames == 0, (try? Directory.remove(path)) != nil {
            if !quiet { Terminal.printError("\(path), left open by \(writer), holds no frame: removed\n") }
            return nil
        }
        guard let contents else {
            if !quiet { Terminal.printError("warning: \(path), left open by \(writer), does not read back\n") }
            return nil
        }
        let duration = contents.end &- contents.start
        return Entry(path: path, container: container, startUTC: info.modified &- duration, endUTC: info.modified,
                     startTime: contents.start, endTime: contents.end, frames: contents.frames, keyframes: contents.keyframes,
                     audioFrames: contents.audioFrames, bytes: Int(info.size), codecs: contents.codecs, closedCleanly: false)
    }
}
