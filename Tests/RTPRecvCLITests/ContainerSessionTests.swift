import Foundation
import XCTest

/// The recordings of captured sessions with audio and RTCP: both tracks where the container carries
/// them, the audio bit-exact, and the source's flashes and beeps together as in the FLV.
final class ContainerSessionTests: XCTestCase {
    private func capture(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    /// `name`'s capture and SDP recorded into every container (and `extra` outputs).
    private func record(_ name: String, _ extra: [String] = []) throws -> (files: [String: URL], stderr: String) {
        var files: [String: URL] = [:]
        var args = ["--pcap", capture(name + ".pcap").path, "--sdp", capture(name + ".sdp").path] + extra
        for container in ["mp4", "mkv", "ts"] {
            let file = Harness.temporaryFile("session-\(name).\(container)")
            try? FileManager.default.removeItem(at: file)
            files[container] = file
            args += ["--\(container)", file.path]
        }
        let result = try Harness.rtprecv(args)
        XCTAssertEqual(result.status, 0, result.stderr)
        return (files, result.stderr)
    }

    private func codecs(_ file: URL) throws -> Set<Substring> {
        Set(try SyncProbe.lines("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", file.path]))
    }

    /// Every audio codec in every container that carries it (MP4 and MPEG-TS have no G.711: it is
    /// encoded to AAC, and said), decoding cleanly, decode times never going back.
    func testBothTracksWhereTheContainerCarriesThem() throws {
        let cases: [(name: String, codec: Substring, carriedBy: Set<String>)] = [
            ("gst-h264-aac", "aac", ["mp4", "mkv", "ts"]), ("gst-h264-latm", "aac", ["mp4", "mkv", "ts"]),
            ("ffmpeg-h264-mp3", "mp3", ["mp4", "mkv", "ts"]), ("gst-h264-pcmu", "pcm_mulaw", ["mkv"]),
            ("ffmpeg-h264-pcma", "pcm_alaw", ["mkv"]),
        ]
        for c in cases {
            let (files, stderr) = try record(c.name)
            for (container, file) in files {
                let what = "\(c.name).\(container)"
                XCTAssertEqual(try codecs(file), c.carriedBy.contains(container) ? ["h264", c.codec] : ["h264", "aac"], what)
                if !c.carriedBy.contains(container) { XCTAssertTrue(stderr.contains("G.711"), "\(what): \(stderr)") }
                let decode = try Harness.run("ffmpeg", ["-v", "error", "-xerror", "-i", file.path, "-f", "null", "-"])
                XCTAssertEqual(decode.status, 0, "\(what): \(decode.stderr)")
                let dts = try SyncProbe.lines("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=dts",
                                                          "-of", "csv=p=0", file.path]).compactMap { Int($0.trimmingCharacters(in: [","])) }
                XCTAssertEqual(dts.count, 120, what)
                XCTAssertEqual(dts, dts.sorted(), "\(what): a decode time went back")
            }
        }
    }

    /// The AAC frames are the source's, bit for bit, from the file's first keyframe on (what came
    /// before it is not in the file), and the video's flashes meet the audio's beeps as in the FLV
    /// of the same run (within 5 ms), which the session's sender reports time.
    func testAACIsTheSourceAndInSyncAsInTheFLV() throws {
        let source = try Harness.packetMD5(capture("sync-source.mkv"))
        for name in ["gst-h264-aac", "ffmpeg-h264-aac"] {
            let flv = Harness.temporaryFile("session-\(name)-beside.flv")
            let (files, _) = try record(name, ["--flv", flv.path])
            let flvOffsets = try SyncProbe.offsets(flv, name).map(\.offset)
            for (container, file) in files {
                let what = "\(name).\(container)"
                // MPEG-TS carries AAC as ADTS.
                let frames = try Harness.packetMD5(file, adts: container == "ts")
                XCTAssertGreaterThan(frames.count, source.count * 9 / 10, what)
                let start = (0..<10).first { source.dropFirst($0).prefix(frames.count).elementsEqual(frames) }
                XCTAssertNotNil(start, "\(what): not a run of the source's frames from its first few")
                try SyncProbe.assertInSync(file, what)
                let offsets = try SyncProbe.offsets(file, what).map(\.offset)
                XCTAssertEqual(offsets.count, flvOffsets.count, what)
                for (offset, flvOffset) in zip(offsets, flvOffsets) {
                    XCTAssertEqual(offset, flvOffset, accuracy: 0.005, "\(what): A/V offset \(offset) s, the FLV's \(flvOffset) s")
                }
            }
        }
    }

    /// Segments lose no audio at their cuts: the AAC frames of every segment together are those of
    /// one file of the same run (the senders' audio arrives after their video of the same time).
    func testSegmentsTogetherHoldEveryAudioFrame() throws {
        for name in ["ffmpeg-h264-aac", "gst-h264-aac"] {
            let directory = try Harness.emptyDirectory("audio-cuts-\(name)")
            let whole = directory.appendingPathComponent("whole.mp4")
            let input = ["--pcap", capture(name + ".pcap").path, "--sdp", capture(name + ".sdp").path, "-q"]
            XCTAssertEqual(try Harness.rtprecv(input + ["--mp4", whole.path]).status, 0)
            XCTAssertEqual(try Harness.rtprecv(input + ["--mp4", directory.path + "/part-{n}.mp4", "--segment-seconds", "1"]).status, 0)
            let parts = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("part-") }
                .sorted { $0.count == $1.count ? $0 < $1 : $0.count < $1.count }
            XCTAssertGreaterThanOrEqual(parts.count, 3, name)
            let frames = try parts.flatMap { try Harness.packetMD5(directory.appendingPathComponent($0)) }
            XCTAssertEqual(frames, try Harness.packetMD5(whole), "\(name): every audio frame once, in order")
        }
    }

    /// G.711 made AAC for MP4 and MPEG-TS: as long as the source's audio, its beeps meeting the
    /// video's flashes as in the FLV of the same run (which carries G.711 as it came), within 5 ms.
    /// With --no-audio-transcode it is left out, and said.
    func testG711IsEncodedToAACInSyncAsInTheFLV() throws {
        for name in ["ffmpeg-h264-pcma", "gst-h264-pcmu"] {
            let flv = Harness.temporaryFile("session-\(name)-beside.flv")
            let (files, stderr) = try record(name, ["--flv", flv.path])
            let flvOffsets = try SyncProbe.offsets(flv, name).map(\.offset)
            XCTAssertGreaterThanOrEqual(flvOffsets.count, 3, name)
            for container in ["mp4", "ts"] {
                let file = files[container]!, what = "\(name).\(container)"
                XCTAssertTrue(stderr.contains("it is encoded to AAC"), "\(what): \(stderr)")
                let audio = try SyncProbe.lines("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries",
                                                            "stream=codec_name,sample_rate", "-of", "csv=p=0", file.path])
                XCTAssertEqual(Set(audio), ["aac,8000"], what)  // MPEG-TS's is listed under its program too
                let offsets = try SyncProbe.offsets(file, what).map(\.offset)
                XCTAssertEqual(offsets.count, flvOffsets.count, what)
                for (offset, flvOffset) in zip(offsets, flvOffsets) {
                    XCTAssertEqual(offset, flvOffset, accuracy: 0.005, "\(what): A/V offset \(offset) s, the FLV's \(flvOffset) s")
                }
                let seconds = { (stream: String) in
                    Double(try SyncProbe.lines("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "stream=duration",
                                                           "-of", "csv=p=0", file.path]).first ?? "") ?? 0
                }
                XCTAssertEqual(try seconds("a"), try seconds("v"), accuracy: 0.15, "\(what): the audio lasts as the video does")
            }
        }
        let (left, stderr) = try record("ffmpeg-h264-pcma", ["--no-audio-transcode"])
        XCTAssertEqual(try codecs(left["mp4"]!), ["h264"])
        XCTAssertEqual(try codecs(left["mkv"]!), ["h264", "pcm_alaw"])
        XCTAssertTrue(stderr.contains("does not carry G.711 A-law; it is left out"), stderr)
    }

    /// An outage of 7 s 1.5 s into a session (the flash and beep of 1 s before it, those of 2 s
    /// and 3 s after it), its senders' clocks running on as RFC 3550's do (a link down, a call on
    /// hold): the recordings keep it in time rather than bridging it as a sender's restart. Each
    /// track lasts 7 s longer than the capture's, the flashes meet the beeps after it as they did,
    /// Matroska's G.711 resumes 7 s on, the WAV fills it with silence, and the statistics count it
    /// as a silence the sender left (its sequence numbers run on unbroken), neither a loss nor a jump.
    func testAnOutageIsKeptInTime() throws {
        let name = "ffmpeg-h264-pcma", sdp = capture(name + ".sdp").path
        let outage = try Self.withOutage(capture(name + ".pcap"), at: 1.5, seconds: 7, name: "\(name)-outage")
        var runs: [(files: [String: URL], wav: URL)] = []
        for (pcap, tag) in [(capture(name + ".pcap"), "whole"), (outage, "outage")] {
            var files: [String: URL] = [:], args = ["--pcap", pcap.path, "--sdp", sdp, "-q"]
            for container in ["mp4", "mkv", "wav", "flv", "json"] {
                files[container] = Harness.temporaryFile("\(tag)-\(name).\(container)")
                args += [container == "json" ? "--stats-json" : "--\(container)", files[container]!.path]
            }
            let result = try Harness.rtprecv(args)
            XCTAssertEqual(result.status, 0, result.stderr)
            runs.append((files, files["wav"]!))
        }
        let duration = { (file: URL, stream: String) in
            Double(try SyncProbe.lines("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries",
                                                   "stream=duration", "-of", "csv=p=0", file.path]).first ?? "") ?? 0
        }
        let lastAudio = { (file: URL) in
            Double(try SyncProbe.lines("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "packet=pts_time",
                                                   "-of", "csv=p=0", file.path]).last ?? "") ?? 0
        }
        let (whole, cut) = (runs[0].files, runs[1].files)
        XCTAssertEqual(try duration(cut["mp4"]!, "v") - duration(whole["mp4"]!, "v"), 7, accuracy: 0.1)
        XCTAssertEqual(try duration(cut["mp4"]!, "a"), try duration(cut["mp4"]!, "v"), accuracy: 0.15, "the audio lasts as the video")
        XCTAssertEqual(try lastAudio(cut["mkv"]!) - lastAudio(whole["mkv"]!), 7, accuracy: 0.05)
        let wavSeconds = { (file: URL) in
            Double(try SyncProbe.lines("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file.path]).first ?? "") ?? 0
        }
        XCTAssertEqual(try wavSeconds(runs[1].wav) - wavSeconds(runs[0].wav), 7, accuracy: 0.01)
        XCTAssertEqual(try wavSeconds(cut["flv"]!) - wavSeconds(whole["flv"]!), 7, accuracy: 0.05)
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: cut["json"]!)) as? [String: Any]
        let audio = try XCTUnwrap((stats?["audio_streams"] as? [[String: Any]])?.first)
        XCTAssertEqual(audio["timestamp_jumps"] as? Int, 0)
        XCTAssertEqual(audio["gap_ms"] as? Int, 0)
        XCTAssertEqual(audio["silence_ms"] as? Int, 7000)
        let (before, after) = (try SyncProbe.offsets(whole["mp4"]!, "whole"), try SyncProbe.offsets(cut["mp4"]!, "outage"))
        XCTAssertEqual(after.count, before.count)
        for (b, a) in zip(before, after) {
            XCTAssertEqual(a.flash - b.flash, b.flash < 1.5 ? 0 : 7, accuracy: 0.05, "flash at \(b.flash) s")
            XCTAssertEqual(a.offset, b.offset, accuracy: 0.005, "A/V offset at the flash at \(a.flash) s")
        }
    }

    /// `pcap` with the RTP packets of each stream from `at` seconds of its media on (by its RTP
    /// time: port 5160's at 90 kHz, the other's at 8 kHz) moved `seconds` later, in RTP time and
    /// in capture time, then put in order. Its RTCP comes first, and is left as it is.
    private static func withOutage(_ pcap: URL, at: Double, seconds: Double, name: String) throws -> URL {
        var first: [Int: UInt32] = [:]
        let moved = try TestPcap.records(of: pcap).map { record -> (nanoseconds: UInt64, frame: [UInt8]) in
            var frame = record.frame
            let udp = 14 + Int(frame[14] & 0x0F) * 4, port = Int(frame[udp + 2]) << 8 | Int(frame[udp + 3])
            guard port % 2 == 0 else { return (record.microseconds * 1000, frame) }
            let rtp = udp + 8, rate: Double = port == 5160 ? 90000 : 8000
            let ts = frame[rtp + 4..<rtp + 8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard Double(ts &- first[port, default: ts]) / rate >= at else {
                first[port] = first[port] ?? ts
                return (record.microseconds * 1000, frame)
            }
            let later = ts &+ UInt32(seconds * rate)
            for i in 0..<4 { frame[rtp + 4 + i] = UInt8(later >> (24 - 8 * i) & 0xFF) }
            return ((record.microseconds + UInt64(seconds * 1e6)) * 1000, frame)
        }
        let url = Harness.temporaryFile(name + ".pcap")
        try TestPcap.data(linkType: 1, records: moved.sorted { $0.nanoseconds < $1.nanoseconds }).write(to: url)
        return url
    }

    /// A session of audio alone (FFmpeg's Opus, as a call would have): the file starts at its first
    /// frame, and each packet is an RTP payload of the capture, as tshark reads them, in order.
    func testOpusAloneIsRecorded() throws {
        let payloads = try Harness.rtpPayloadMD5(capture("ffmpeg-opus.pcap"), port: 5180, payloadType: 97)
        XCTAssertGreaterThan(payloads.count, 100)
        let (files, _) = try record("ffmpeg-opus")
        for (container, file) in files {
            XCTAssertEqual(try codecs(file), ["opus"], container)
            XCTAssertEqual(try Harness.packetMD5(file), payloads, container)
        }
    }

    /// `--segment-index`: a JSON line per file closed, each as ffprobe reads the file (its size, its
    /// video packets, its codecs, its duration within two frames), and one for every file written.
    func testTheSegmentIndexListsEveryFileAsFFprobeSeesIt() throws {
        let directory = try Harness.emptyDirectory("segment-index")
        let index = directory.appendingPathComponent("index.jsonl")
        let result = try Harness.rtprecv(["--pcap", capture("gst-h264-aac.pcap").path, "--sdp", capture("gst-h264-aac.sdp").path,
                                          "--segment-seconds", "1", "--mp4", directory.path + "/part-{n}.mp4",
                                          "--mkv", directory.path + "/part-{n}.mkv", "--segment-index", index.path, "-q"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = try String(contentsOf: index, encoding: .utf8).split(separator: "\n")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("part-") }
        XCTAssertEqual(lines.count, files.count)
        XCTAssertGreaterThanOrEqual(files.count, 6)
        for line in lines {
            let entry = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let path = try XCTUnwrap(entry["path"] as? String)
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
            XCTAssertEqual(entry["bytes"] as? Int, size, path)
            XCTAssertEqual(Set(try XCTUnwrap(entry["codecs"] as? [String]).map { Substring($0) }), try codecs(URL(fileURLWithPath: path)), path)
            let packets = try SyncProbe.lines("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                                                          "stream=nb_read_packets", "-of", "csv=p=0", path]).first
            XCTAssertEqual(entry["frames"] as? Int, packets.flatMap { Int($0) }, path)
            let duration = try XCTUnwrap(Double(try SyncProbe.lines("ffprobe", ["-v", "error", "-show_entries", "format=duration",
                                                                                "-of", "csv=p=0", path]).first ?? ""))
            XCTAssertEqual(Double(try XCTUnwrap(entry["duration_ms"] as? Int)) / 1000, duration, accuracy: 0.067, path)
        }
    }

    /// `--retain-size`: the oldest segments go (an earlier run's of the same name first), the newest
    /// stays, files of other names are not touched, the directory ends within the bound, and the
    /// index, read in order, lists exactly the segments left. The run numbers its segments past the
    /// earlier run's, so it never writes over one.
    func testRetentionKeepsTheDirectoryWithinItsSizeAndTheIndexFollows() throws {
        let directory = try Harness.emptyDirectory("retention")
        let earlier = directory.appendingPathComponent("part-99.mp4"), other = directory.appendingPathComponent("notes.txt")
        try Data(repeating: 1, count: 60_000).write(to: earlier)
        try Data(repeating: 2, count: 200_000).write(to: other)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -86400)], ofItemAtPath: earlier.path)
        let index = directory.appendingPathComponent("index.jsonl")
        let result = try Harness.rtprecv(["--pcap", capture("gst-h264-aac.pcap").path, "--sdp", capture("gst-h264-aac.sdp").path,
                                          "--segment-seconds", "1", "--mp4", directory.path + "/part-{n}.mp4",
                                          "--retain-size", "100K", "--segment-index", index.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("deleted \(earlier.path)"), result.stderr)
        XCTAssertTrue(result.stderr.contains("segments numbered to 99 are there from an earlier run: this run's begin at {n} = 100"),
                      result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: other.path))
        let parts = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("part-") }.sorted()
        XCTAssertTrue(parts.contains("part-103.mp4"), "\(parts)")
        XCTAssertLessThan(parts.count, 4, "\(parts)")
        let total = try parts.reduce(0) { $0 + (try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent($1).path)[.size] as! Int) }
        XCTAssertLessThanOrEqual(total, 100 * 1024)
        for part in parts { XCTAssertEqual(try Harness.decodeErrors(directory.appendingPathComponent(part)), "", part) }
        var listed: Set<String> = []
        for line in try String(contentsOf: index, encoding: .utf8).split(separator: "\n") {
            let entry = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let name = URL(fileURLWithPath: try XCTUnwrap(entry["path"] as? String)).lastPathComponent
            if entry["deleted_utc"] != nil { listed.remove(name) } else { listed.insert(name) }
        }
        XCTAssertEqual(listed, Set(parts))
    }

    /// A segment open when the process was killed (kill -9) has no index line; the next start with
    /// the same recording and index finds it, reads it back, and lists it with closed_cleanly false:
    /// its frames as ffprobe counts them up to its last whole fragment, its size and codecs.
    func testASegmentLeftOpenByACrashIsListedAtTheNextStart() throws {
        let (mkv, sdp) = try Harness.liveSource("left-open", seconds: 6, extra: ["-g", "25"])
        let directory = try Harness.emptyDirectory("left-open")
        let index = directory.appendingPathComponent("index.jsonl"), template = directory.path + "/cam-{start}.mp4"
        let recording = ["--mp4", template, "--segment-seconds", "600", "--segment-index", index.path, "--fragment-ms", "500"]
        let port = 42000 + Int(getpid() % 400) * 2
        let receiver = Process()
        receiver.executableURL = Harness.binary
        receiver.arguments = ["--port", "\(port)", "--sdp", sdp.path, "-q"] + recording
        receiver.standardError = FileHandle.nullDevice
        try receiver.run()
        usleep(500_000)
        let sender = try Harness.sendRealtime(mkv, to: port)
        defer { sender.terminate() }
        sleep(3)
        kill(receiver.processIdentifier, SIGKILL)
        receiver.waitUntilExit()
        let killed = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: directory.path).first { $0.hasPrefix("cam-") })
        XCTAssertEqual(try String(contentsOf: index, encoding: .utf8), "", "nothing closed before the kill")
        let r = try Harness.rtprecv(["--pcap", capture("gst-h264-aac.pcap").path, "--sdp", capture("gst-h264-aac.sdp").path] + recording)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("cam-") && r.stderr.contains("was left open by a process that ended"), r.stderr)
        let lines = try String(contentsOf: index, encoding: .utf8).split(separator: "\n")
            .map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        XCTAssertEqual(lines.count, 2, "the killed file's line, then the replay's own")
        let left = try XCTUnwrap(lines.first)
        let path = directory.path + "/" + killed
        XCTAssertEqual(left["path"] as? String, path)
        XCTAssertEqual(left["closed_cleanly"] as? Bool, false)
        XCTAssertEqual(lines.last?["closed_cleanly"] as? Bool, true)
        let packets = try SyncProbe.lines("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                                                      "stream=nb_read_packets", "-of", "csv=p=0", path]).first.flatMap { Int($0) }
        XCTAssertEqual(left["frames"] as? Int, packets)
        XCTAssertGreaterThan(packets ?? 0, 25, "about 3 s at 25 frames/s were sent")
        XCTAssertEqual(left["bytes"] as? Int, try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        XCTAssertEqual(left["codecs"] as? [String], ["h264"])
    }

    /// A live GStreamer sender on `port`: 320x240 H.264 at 30 frames/s for 10 s, a keyframe every
    /// `keyframeInterval` frames, beside G.711 for `audioSeconds` (made AAC in MP4).
    private func liveSession(to port: UInt16, keyframeInterval: Int, audioSeconds: Int) throws -> Process {
        let to = ["udpsink", "host=127.0.0.1", "port=\(port)"]
        let sender = Process()
        sender.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sender.arguments = ["gst-launch-1.0", "-q", "videotestsrc", "is-live=true", "num-buffers=300", "!",
                            "video/x-raw,width=320,height=240,framerate=30/1", "!", "x264enc", "tune=zerolatency",
                            "key-int-max=\(keyframeInterval)", "!", "rtph264pay", "pt=96", "config-interval=-1", "!"] + to
            + ["audiotestsrc", "is-live=true", "num-buffers=\(audioSeconds * 50)", "samplesperbuffer=160", "!",
               "audio/x-raw,rate=8000,channels=1", "!", "mulawenc", "!", "rtppcmupay", "!"] + to
        sender.standardError = FileHandle.nullDevice
        try sender.run()
        return sender
    }

    /// The codecs and the video's size ffprobe reads in `file`, which fails where it cannot open it.
    private func streams(_ file: URL) throws -> [Substring] {
        try SyncProbe.lines("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", file.path])
    }

    /// An MP4 and a Matroska file killed before their first fragment or cluster is cut
    /// (--fragment-ms 5000, a keyframe every 10 s) still open, with both tracks: the muxers are
    /// flushed as soon as each track has a frame (MP4's header goes out, Matroska's first cluster),
    /// where the files held nothing a player opens until the first fragment.
    func testARecordingKilledBeforeItsFirstFragmentOpens() throws {
        let mp4 = Harness.temporaryFile("header-early.mp4"), mkv = Harness.temporaryFile("header-early.mkv")
        for file in [mp4, mkv] { try? FileManager.default.removeItem(at: file) }
        let listener = try LiveTests.Listener(["--port", "0", "--fragment-ms", "5000", "--mp4", mp4.path, "--mkv", mkv.path],
                                              name: "header-early")
        let sender = try liveSession(to: listener.port, keyframeInterval: 300, audioSeconds: 10)
        defer { sender.terminate() }
        let deadline = Date().addingTimeInterval(4)
        func size(_ file: URL) -> Int { ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int) ?? 0 }
        while size(mp4) == 0 && Date() < deadline { usleep(50_000) }
        usleep(200_000)
        kill(listener.process.processIdentifier, SIGKILL)
        listener.process.waitUntilExit()
        let bytes = try Data(contentsOf: mp4)
        XCTAssertGreaterThan(bytes.count, 0, "the header is written within 4 s, before the first fragment")
        XCTAssertNil(bytes.range(of: Data("moof".utf8)), "killed before its first fragment")
        XCTAssertEqual(Set(try streams(mp4)), ["h264,320,240", "aac"])
        XCTAssertEqual(Set(try streams(mkv)), ["h264,320,240", "pcm_mulaw"])
    }

    /// A segment killed between its header and its first fragment (an MP4 of a moov alone) is
    /// found at the next start and removed, holding no frame, and libavformat's complaints about
    /// its empty tracks are not printed ("Could not find codec parameters", twice a file).
    func testAnMP4LeftWithItsHeaderAloneIsRemovedWithoutLibavformatsWarnings() throws {
        let directory = try Harness.emptyDirectory("header-alone")
        let index = directory.appendingPathComponent("index.jsonl"), left = directory.appendingPathComponent("cam-0.mp4")
        let pcap = ["--pcap", capture("gst-h264-aac.pcap").path, "--sdp", capture("gst-h264-aac.sdp").path]
        let whole = Harness.temporaryFile("header-alone-whole.mp4")
        XCTAssertEqual(try Harness.rtprecv(pcap + ["--mp4", whole.path, "-q"]).status, 0)
        let bytes = try Data(contentsOf: whole)
        let moof = try XCTUnwrap(bytes.range(of: Data("moof".utf8))).lowerBound - 4
        // The index first: a file older than it is none that a process it lists left open.
        try Data().write(to: index)
        try bytes.prefix(moof).write(to: left)
        let recording = ["--mp4", directory.path + "/cam-{n}.mp4", "--segment-seconds", "600", "--segment-index", index.path]
        let r = try Harness.rtprecv(pcap + recording)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains(left.path + ", left open by a process that ended, holds no frame: removed"), r.stderr)
        XCTAssertFalse(r.stderr.contains("codec parameters") || r.stderr.contains("[mov"), r.stderr)
        let lines = try String(contentsOf: index, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 1, "the replay's own file (its number free again) alone: \(lines)")
    }

    /// A recording (or an FLV) killed before its first keyframe leaves no file (it left empty ones,
    /// which no player opens); a path that cannot be written is still refused at start-up.
    func testARecordingKilledBeforeItsFirstKeyframeLeavesNoFile() throws {
        let directory = try Harness.emptyDirectory("killed-before-keyframe")
        let paths = ["mp4", "mkv", "ts", "flv"].map { directory.appendingPathComponent("camera.\($0)").path }
        let listener = try LiveTests.Listener(["--port", "0", "--mp4", paths[0], "--mkv", paths[1], "--ts", paths[2], "--flv", paths[3]],
                                              name: "killed-before-keyframe", writesOut: false)
        usleep(300_000)
        kill(listener.process.processIdentifier, SIGKILL)
        listener.process.waitUntilExit()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])

        let plain = Harness.temporaryFile("not-a-directory")
        try Data("x".utf8).write(to: plain)
        let refused = try Harness.rtprecv(["--pcap", capture("ffmpeg-h264-pcma.pcap").path, "--mp4", plain.path + "/camera.mp4"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("cannot open output") && refused.stderr.contains(plain.path + "/camera.mp4"), refused.stderr)
    }

    /// A segment whose audio track is declared (the session had audio) but gets no frame, the audio
    /// having stopped: its header waits for the audio no longer than a fragment, so a kill -9 1.3 s
    /// into it leaves a file that opens, where it left one with nothing a player opens.
    func testAnMP4WhoseAudioStoppedStillGetsItsHeader() throws {
        let directory = try Harness.emptyDirectory("audio-stopped")
        let listener = try LiveTests.Listener(["--port", "0", "--fragment-ms", "500", "--segment-seconds", "2",
                                               "--mp4", directory.path + "/part-{n}.mp4"], name: "audio-stopped",
                                              writesOut: false)
        let sender = try liveSession(to: listener.port, keyframeInterval: 30, audioSeconds: 1)
        defer { sender.terminate() }
        let second = directory.appendingPathComponent("part-1.mp4")
        let deadline = Date().addingTimeInterval(8)
        while !FileManager.default.fileExists(atPath: second.path) && Date() < deadline { usleep(50_000) }
        usleep(1_300_000)
        kill(listener.process.processIdentifier, SIGKILL)
        listener.process.waitUntilExit()
        let third = directory.appendingPathComponent("part-2.mp4").path
        XCTAssertFalse(FileManager.default.fileExists(atPath: third), "the second segment was still open at the kill")
        XCTAssertEqual(Set(try streams(directory.appendingPathComponent("part-0.mp4"))), ["h264,320,240", "aac"])
        XCTAssertEqual(Set(try streams(second)), ["h264,320,240", "aac"], "the second segment, its audio track silent")
    }

}
