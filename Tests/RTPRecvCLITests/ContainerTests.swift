import Foundation
import XCTest

/// `--mp4`, `--mkv` and `--ts`: read back by ffprobe and decoded by ffmpeg, frame for frame against
/// the encoder's own file.
final class ContainerTests: XCTestCase {
    private func capture(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    /// ffprobe's fields of the first video stream: "codec_name=h264", "width=320".
    private func videoStream(_ file: URL) throws -> [String: String] {
        let result = try Harness.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                 "stream=codec_name,codec_tag_string,width,height", "-of", "default=noprint_wrappers=1",
                                                 file.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        var fields: [String: String] = [:]
        for line in String(decoding: result.stdout, as: UTF8.self).split(separator: "\n") {
            let pair = line.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
        }
        return fields
    }

    /// H.264 with B-frames (FFmpeg's sender, decode order unlike display order) and H.265 with its
    /// parameter sets in band: each container holds every frame, decoded as the source decodes, in
    /// display order, with no decoder complaint.
    func testEveryContainerHoldsEveryFrameOfTheSource() throws {
        let cases = [("ffmpeg-bframes", "ffmpeg-bframes.h264", "h264"), ("ffmpeg-h265-inband", "ffmpeg-h265-inband.h265", "hevc")]
        for (name, source, codec) in cases {
            let expected = try Harness.frameMD5(capture(source))
            XCTAssertGreaterThan(expected.count, 30)
            let files = ["mp4", "mkv", "ts"].map { Harness.temporaryFile("\(name).\($0)") }
            let result = try Harness.rtprecv(["--pcap", capture(name + ".pcap").path, "--sdp", capture(name + ".sdp").path,
                                              "--mp4", files[0].path, "--mkv", files[1].path, "--ts", files[2].path])
            XCTAssertEqual(result.status, 0, result.stderr)
            for file in files {
                let stream = try videoStream(file)
                XCTAssertEqual(stream["codec_name"], codec, file.lastPathComponent)
                XCTAssertEqual(stream["width"], "320", file.lastPathComponent)
                XCTAssertEqual(try Harness.frameMD5(file), expected, file.lastPathComponent)
                XCTAssertEqual(try Harness.decodeErrors(file), "", file.lastPathComponent)
            }
            // MP4's H.265 as browsers and Apple's players take it: 'hvc1', parameter sets in the header.
            XCTAssertEqual(try videoStream(files[0])["codec_tag_string"], codec == "hevc" ? "hvc1" : "avc1")
        }
    }

    /// To standard output, a pipe nothing is written back into: each container is read from the
    /// pipe by ffmpeg, every frame and audio packet as in the file of the same capture.
    func testEveryContainerPlaysFromAPipe() throws {
        let input = ["--pcap", capture("gst-h264-aac.pcap").path, "--sdp", capture("gst-h264-aac.sdp").path, "-q"]
        for container in ["mp4", "mkv", "ts"] {
            let file = Harness.temporaryFile("piped.\(container)")
            XCTAssertEqual(try Harness.rtprecv(input + ["--\(container)", file.path]).status, 0)
            let command = ([Harness.binary.path] + input + ["--\(container)", "-"]).map { "'\($0)'" }.joined(separator: " ")
            let piped = try Harness.run("bash", ["-c", "set -o pipefail; \(command) | ffmpeg -v error -i - -map 0 -c copy -f framemd5 -"])
            XCTAssertEqual(piped.status, 0, "\(container): \(piped.stderr)")
            let whole = try Harness.run("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0", "-c", "copy", "-f", "framemd5", "-"])
            let packets = { (r: Harness.Result) in String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") } }
            XCTAssertGreaterThan(packets(whole).count, 300, container)
            XCTAssertEqual(packets(piped), packets(whole), container)
        }
    }

    /// The source's frame times survive, B-frames and all: ffprobe's packet times in the MP4 are the
    /// encoder's (whole milliseconds, as its Matroska source kept them), a frame (1/30 s) apart in
    /// display order, starting at 0.
    func testFrameTimesAreTheSourcesFromZero() throws {
        let mp4 = Harness.temporaryFile("times.mp4")
        let result = try Harness.rtprecv(["--pcap", capture("ffmpeg-bframes.pcap").path, "--sdp", capture("ffmpeg-bframes.sdp").path,
                                          "--mp4", mp4.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let probe = try Harness.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time",
                                                "-of", "csv=p=0", mp4.path])
        let times = String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }.sorted()
        XCTAssertEqual(times.count, 120)
        for (n, time) in times.enumerated() {
            XCTAssertEqual(time, Double(n) / 30, accuracy: 0.001, "frame \(n)")
        }
    }

    /// VP8, VP9 and AV1 go into the containers that carry them, exact; MP4 has no VP8 and MPEG-TS
    /// none of them: said once, and no empty file left.
    func testWebRTCCodecsGoWhereTheirContainerTakesThem() throws {
        let av1 = Harness.temporaryFile("container-av1.pcap")
        let packetize = try Harness.run("/usr/bin/python3", [Harness.packageRoot.appendingPathComponent("scripts/av1-rtp-packetize").path,
                                                             capture("av1-source.ivf").path, av1.path, "--mode", "mixed", "--mtu", "500"])
        XCTAssertEqual(packetize.status, 0, packetize.stderr)
        let cases: [(pcap: URL, extra: [String], source: URL, codec: String, carriedBy: [String])] = [
            (capture("gst-vp8.pcap"), [], capture("gst-vp8.webm"), "vp8", ["mkv"]),
            (capture("gst-vp9.pcap"), [], capture("gst-vp9.webm"), "vp9", ["mp4", "mkv"]),
            (av1, ["--codec", "av1"], capture("av1-source.ivf"), "av1", ["mp4", "mkv"]),
        ]
        for c in cases {
            let expected = try Harness.frameMD5(c.source)
            let files = ["mp4", "mkv", "ts"].map { Harness.temporaryFile("container-\(c.codec).\($0)") }
            for file in files { try? FileManager.default.removeItem(at: file) }
            let result = try Harness.rtprecv(["--pcap", c.pcap.path, "--mp4", files[0].path, "--mkv", files[1].path,
                                              "--ts", files[2].path] + c.extra)
            XCTAssertEqual(result.status, 0, result.stderr)
            for file in files {
                let container = file.pathExtension
                if c.carriedBy.contains(container) {
                    XCTAssertEqual(try videoStream(file)["codec_name"], c.codec, file.lastPathComponent)
                    XCTAssertEqual(try Harness.frameMD5(file), expected, file.lastPathComponent)
                } else {
                    XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), file.lastPathComponent)
                    let said = result.stderr.components(separatedBy: "does not carry").count - 1
                    XCTAssertEqual(said, 3 - c.carriedBy.count, result.stderr)
                }
            }
        }
    }

    /// `--segment-seconds` cuts every container at keyframes: each segment plays on its own, from a
    /// keyframe, and together they hold every frame.
    func testSegmentsEachPlayAndTogetherHoldEveryFrame() throws {
        let directory = try Harness.emptyDirectory("container-segments")
        let result = try Harness.rtprecv(["--pcap", capture("ffmpeg-bframes.pcap").path, "--sdp", capture("ffmpeg-bframes.sdp").path,
                                          "--segment-seconds", "1", "--mp4", directory.path + "/part-{n}.mp4",
                                          "--mkv", directory.path + "/part-{n}.mkv"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let expected = try Harness.frameMD5(capture("ffmpeg-bframes.h264"))
        for container in ["mp4", "mkv"] {
            var frames: [String] = []
            var n = 0
            while case let file = directory.appendingPathComponent("part-\(n).\(container)"), FileManager.default.fileExists(atPath: file.path) {
                frames += try Harness.frameMD5(file)
                XCTAssertEqual(try Harness.decodeErrors(file), "", file.lastPathComponent)
                n += 1
            }
            XCTAssertEqual(n, 4, "\(container): a segment a second, at the source's keyframes")
            XCTAssertEqual(frames, expected, container)
        }
    }

    /// A stream whose picture size changes (FFmpeg's sender, 240x160 then 320x240): a recording's
    /// header would say what half its pictures are not, so each size gets a file of its own (the
    /// next part, or with segments the next segment), whose header says what all its pictures are.
    func testAPictureSizeChangeBeginsTheNextFile() throws {
        let directory = try Harness.emptyDirectory("container-sizes")
        let result = try Harness.rtprecv(["--pcap", capture("ffmpeg-reschange.pcap").path, "--mp4", directory.path + "/rec.mp4",
                                          "--mkv", directory.path + "/rec.mkv"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("the recording goes on in \(directory.path)/rec.1.mp4"), result.stderr)
        let segmented = try Harness.rtprecv(["--pcap", capture("ffmpeg-reschange.pcap").path, "--segment-seconds", "100",
                                             "--mp4", directory.path + "/seg-{n}.mp4"])
        XCTAssertEqual(segmented.status, 0, segmented.stderr)
        for (names, what) in [(["rec.mp4", "rec.1.mp4"], "parts"), (["rec.mkv", "rec.1.mkv"], "parts"), (["seg-0.mp4", "seg-1.mp4"], "segments")] {
            var sizes: [String] = []
            for name in names {
                let file = directory.appendingPathComponent(name)
                let header = try videoStream(file)
                let frames = try SyncProbe.lines("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=width,height",
                                                              "-of", "csv=p=0", file.path]).map { $0.split(separator: ",").prefix(2).joined(separator: ",") }
                XCTAssertEqual(frames.count, 30, "\(name): its frames")
                XCTAssertEqual(Set(frames), ["\(header["width"] ?? "?"),\(header["height"] ?? "?")"], "\(name): every picture the header's size")
                XCTAssertEqual(try Harness.decodeErrors(file), "", name)
                sizes.append(frames.first ?? "")
            }
            XCTAssertEqual(sizes, ["240,160", "320,240"], what)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("seg-2.mp4").path))
    }

    /// A recording killed outright (SIGKILL, as a crash or the OOM killer would): every file still
    /// opens and decodes, its frames the source's first ones, and MP4 and Matroska lose at most the
    /// fragment in progress (`--fragment-ms`) against MPEG-TS, which has none.
    func testARecordingKilledMidwayStillPlays() throws {
        let (mkv, sdp) = try Harness.liveSource("killed", seconds: 8, extra: ["-bf", "2", "-g", "50"])
        let files = ["mp4", "mkv", "ts"].map { Harness.temporaryFile("killed.\($0)") }
        let listener = try LiveTests.Listener(["--port", "0", "--sdp", sdp.path, "--fragment-ms", "500",
                                               "--mp4", files[0].path, "--mkv", files[1].path, "--ts", files[2].path], name: "killed")
        let sender = try Harness.sendRealtime(mkv, to: Int(listener.port))
        defer { sender.terminate() }
        sleep(5)
        kill(listener.process.processIdentifier, SIGKILL)
        listener.process.waitUntilExit()
        let source = try Harness.frameMD5(mkv)
        var counts: [String: Int] = [:]
        for file in files {
            // The last frames written may be B-frames' references without them, which a decoder
            // shows, rightly, before the source's next frame: only those two are out of place.
            let frames = try Harness.frameMD5(file)
            XCTAssertEqual(Array(frames.dropLast(2)), Array(source.prefix(max(frames.count - 2, 0))), file.lastPathComponent)
            XCTAssertTrue(Set(frames).isSubset(of: source), file.lastPathComponent)
            counts[file.pathExtension] = frames.count
        }
        let ts = try XCTUnwrap(counts["ts"])
        XCTAssertGreaterThan(ts, 50, "about 5 s at 25 frames/s were sent")
        // A fragment of at most 500 ms: 13 frames, and the two the B-frame look-ahead holds back.
        for container in ["mp4", "mkv"] {
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(counts[container]), ts - 15, "\(container) lost more than a fragment: \(counts)")
        }
    }

    /// `--fsync`: the fsync(2) calls strace sees. `fragment` makes a 4 s recording durable every
    /// 500 ms of media (and its name in the directory with the first and at close), `segment` the
    /// finished file and its directory entry, `none` nothing; the file plays either way.
    func testFsyncPolicyIsWhatTheKernelSees() throws {
        let expected = try Harness.frameMD5(capture("ffmpeg-bframes.h264"))
        for (policy, calls) in [("fragment", 8...10), ("segment", 2...2), ("none", 0...0)] {
            let mp4 = Harness.temporaryFile("fsync-\(policy).mp4"), trace = Harness.temporaryFile("fsync-\(policy).strace")
            let result = try Harness.run("strace", ["-f", "-e", "trace=fsync", "-o", trace.path, Harness.binary.path,
                                                    "--pcap", capture("ffmpeg-bframes.pcap").path, "--sdp", capture("ffmpeg-bframes.sdp").path,
                                                    "--mp4", mp4.path, "--fragment-ms", "500", "--fsync", policy, "-q"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let fsyncs = try String(contentsOf: trace, encoding: .utf8).components(separatedBy: "fsync(").count - 1
            XCTAssertTrue(calls.contains(fsyncs), "\(policy): \(fsyncs) fsync calls")
            XCTAssertEqual(try Harness.frameMD5(mp4), expected, policy)
        }
    }

    /// A sender whose clock jumps 20 s ahead at a keyframe (frame 60 of 120, as a restarted sender's
    /// would), and one whose clock jumps between two B-frames (frame 45, in decoding order): with
    /// segments, the one in progress ends at the keyframe after the jump, said once, and each
    /// segment plays for as long as it has frames (within one frame), together holding every frame.
    func testATimestampJumpEndsTheSegmentWithSaneDurations() throws {
        for cut in [60, 45] {
            var frames = try FrameCaptures.frames("ffmpeg-bframes.pcap")
            for f in cut..<frames.count {
                for p in frames[f].packets.indices {
                    var rtp = frames[f].packets[p].rtp
                    let timestamp = rtp[4...7].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } &+ 20 * 90000
                    rtp.replaceSubrange(4...7, with: (0..<4).map { UInt8(truncatingIfNeeded: timestamp >> (24 - 8 * $0)) })
                    frames[f].packets[p].rtp = rtp
                }
            }
            try checkSegments(of: try FrameCaptures.pcap(frames.flatMap(\.packets), name: "jump-\(cut)"), name: "jump-\(cut)")
        }
    }

    private func checkSegments(of pcap: URL, name: String) throws {
        // The packets go to port 5004 now: the SDP says so.
        let sdp = Harness.temporaryFile(name + ".sdp")
        try String(contentsOf: capture("ffmpeg-bframes.sdp"), encoding: .utf8).replacingOccurrences(of: "m=video 5006", with: "m=video 5004")
            .write(to: sdp, atomically: true, encoding: .utf8)
        let directory = try Harness.emptyDirectory("container-" + name)
        let result = try Harness.rtprecv(["--pcap", pcap.path, "--sdp", sdp.path, "--segment-seconds", "60",
                                          "--mp4", directory.path + "/part-{n}.mp4"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr.components(separatedBy: "timestamps jumped").count - 1, 1, result.stderr)
        var all: [String] = []
        for n in 0..<2 {
            let part = directory.appendingPathComponent("part-\(n).mp4")
            let decoded = try Harness.frameMD5(part)
            all += decoded
            let duration = try XCTUnwrap(Double(try SyncProbe.lines("ffprobe", ["-v", "error", "-show_entries", "format=duration",
                                                                                "-of", "csv=p=0", part.path]).first ?? ""))
            XCTAssertEqual(duration, Double(decoded.count) / 30, accuracy: 1.0 / 30 + 0.002, "\(name) part \(n): \(decoded.count) frames")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("part-2.mp4").path))
        XCTAssertEqual(all, try Harness.frameMD5(capture("ffmpeg-bframes.h264")), name)
    }

    /// --faststart: the finished MP4 is written again with its index in front and no fragments
    /// (the box order a file's reader sees), holding what the fragmented file holds: H.265 with its
    /// parameter sets in band, decoded frame for frame as the source, and H.264 with AAC, every
    /// audio packet as it was, the last too (the muxer times it from the frame size).
    func testFaststartPutsTheIndexInFront() throws {
        for (name, source) in [("ffmpeg-h265-inband", "ffmpeg-h265-inband.h265"), ("gst-h264-aac", nil)] {
            let fragmented = Harness.temporaryFile("faststart-\(name)-fragmented.mp4"), front = Harness.temporaryFile("faststart-\(name).mp4")
            for (file, extra) in [(fragmented, [String]()), (front, ["--faststart"])] {
                let r = try Harness.rtprecv(["--pcap", capture(name + ".pcap").path, "--sdp", capture(name + ".sdp").path,
                                             "--mp4", file.path, "-q"] + extra)
                XCTAssertEqual(r.status, 0, r.stderr)
                XCTAssertEqual(r.stderr, "", "libavformat's own messages stay out")
            }
            let boxes = try topLevelBoxes(front)
            XCTAssertEqual(Array(boxes.prefix(2)), ["ftyp", "moov"], "\(name): \(boxes)")
            XCTAssertTrue(boxes.contains("mdat") && !boxes.contains("moof"), "\(name): \(boxes)")
            XCTAssertTrue(try topLevelBoxes(fragmented).contains("moof"))
            XCTAssertEqual(try Harness.frameMD5(front), try Harness.frameMD5(fragmented), name)
            if name == "gst-h264-aac" { XCTAssertEqual(try Harness.packetMD5(front), try Harness.packetMD5(fragmented)) }
            XCTAssertFalse(FileManager.default.fileExists(atPath: front.path + ".faststart"))
            if let source { XCTAssertEqual(try Harness.frameMD5(front), try Harness.frameMD5(capture(source)), name) }
            let audio = try Harness.run("ffprobe", ["-v", "error", "-select_streams", "a", "-count_packets", "-show_entries",
                                                    "stream=nb_read_packets", "-of", "csv=p=0", front.path])
            XCTAssertEqual(String(decoding: audio.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines),
                           name == "gst-h264-aac" ? "189" : "", name)
        }
        let refused = try Harness.rtprecv(["--pcap", capture("gst-h264-aac.pcap").path, "--mp4", "x-{n}.mp4", "--segment-seconds", "5",
                                           "--faststart"])
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.stderr.contains("'--faststart' rewrites a finished MP4 file"), refused.stderr)
    }

    /// The types of a file's top-level boxes, in order.
    private func topLevelBoxes(_ file: URL) throws -> [String] {
        let data = [UInt8](try Data(contentsOf: file))
        var boxes: [String] = [], offset = 0
        while offset + 8 <= data.count {
            var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            boxes.append(String(decoding: data[offset + 4..<offset + 8], as: UTF8.self))
            if size == 1, offset + 16 <= data.count { size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) } }
            guard size >= 8 else { break }
            offset += size
        }
        return boxes
    }
}
