@testable import RTPRecvCLI
import Foundation
import XCTest

/// `--segment-seconds`: the Annex-B output cut at keyframes into files named from a template;
/// each plays by itself, and their frames, one after the other, are the stream's.
final class SegmentTests: XCTestCase {
    func testSegmentsEachPlayAloneAndTogetherAreTheStream() throws {
        // 90 frames, a keyframe every 30 (every second).
        let capture = Harness.captures.appendingPathComponent("ffmpeg-inband.pcap")
        let dir = try Harness.emptyDirectory("segments")
        let stats = Harness.temporaryFile("segments.json")
        let r = try Harness.rtprecv(["--pcap", capture.path, "--segment-seconds", "1", "--out", dir.path + "/cam-{n}-{start}.h264", "--stats-json", stats.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .sorted { Int($0.split(separator: "-")[1])! < Int($1.split(separator: "-")[1])! }
        XCTAssertEqual(names.count, 3, "a segment a keyframe, one a second: \(names)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        XCTAssertEqual(json["segments"] as? Int, names.count)
        XCTAssertTrue(r.stderr.contains("in \(names.count) segments"), r.stderr)
        // {start}: UTC in ISO 8601's basic format.
        XCTAssertNotNil(names[0].range(of: #"^cam-0-\d{8}T\d{6}Z\.h264$"#, options: .regularExpression), names[0])
        var frames: [String] = []
        for name in names {
            let url = dir.appendingPathComponent(name)
            XCTAssertEqual(try Harness.decodeErrors(url), "", "\(name) plays by itself")
            let probe = try Harness.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=key_frame",
                                                    "-of", "csv=p=0", url.path])
            XCTAssertTrue(String(decoding: probe.stdout, as: UTF8.self).hasPrefix("1"), "\(name) starts at a keyframe")
            frames += try Harness.videoMD5(url)
        }
        XCTAssertEqual(frames, try Harness.videoMD5(Harness.captures.appendingPathComponent("ffmpeg-inband.h264")))
    }

    /// FLV segments of a session with audio: each a whole FLV that plays by itself from a keyframe
    /// at time 0, and together the video and audio packets of the one FLV of the same run.
    func testFLVSegmentsEachPlayAloneAndTogetherAreTheWholeFLV() throws {
        let capture = Harness.captures.appendingPathComponent("ffmpeg-h264-aac.pcap")
        let sdp = Harness.captures.appendingPathComponent("ffmpeg-h264-aac.sdp")
        let dir = try Harness.emptyDirectory("flv-segments")
        let whole = dir.appendingPathComponent("whole.flv")
        XCTAssertEqual(try Harness.rtprecv(["--pcap", capture.path, "--sdp", sdp.path, "--flv", whole.path, "-q"]).status, 0)
        let r = try Harness.rtprecv(["--pcap", capture.path, "--sdp", sdp.path, "--segment-seconds", "1",
                                     "--flv", dir.path + "/av-{n}.flv", "--out", dir.path + "/es-{n}.h264"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("av-") }
            .sorted { Int($0.dropFirst(3).dropLast(4))! < Int($1.dropFirst(3).dropLast(4))! }
        XCTAssertGreaterThanOrEqual(names.count, 3, "\(names)")
        var video: [String] = [], audio: [String] = []
        for name in names {
            let url = dir.appendingPathComponent(name)
            XCTAssertEqual(try Harness.decodeErrors(url), "", "\(name) plays by itself")
            let probe = { (entries: String) in
                String(decoding: try Harness.run("ffprobe", ["-v", "error", "-show_entries", entries, "-of", "csv=p=0", url.path]).stdout,
                       as: UTF8.self).split(separator: "\n").map(String.init)
            }
            let streams = try probe("stream=index,codec_name")
            XCTAssertEqual(streams.map { $0.split(separator: ",")[1] }.sorted(), ["aac", "h264"], name)
            let videoIndex = streams.first { $0.hasSuffix("h264") }!.prefix(1)
            // The first file's times are the whole FLV's; the next ones start at their keyframe.
            let first = try probe("packet=stream_index,pts,flags").first { $0.hasPrefix(videoIndex + ",") }?.split(separator: ",")
            XCTAssertEqual(first?[2].first, "K", "\(name) starts with a keyframe")
            if name != names[0] { XCTAssertEqual(first?[1], "0", "\(name) starts at 0") }
            let frames = try Harness.videoMD5(url)
            // Cut at the same keyframe as the Annex-B segment of its number.
            let es = dir.appendingPathComponent(name.replacingOccurrences(of: "av-", with: "es-").replacingOccurrences(of: ".flv", with: ".h264"))
            XCTAssertEqual(frames, try Harness.videoMD5(es), name)
            video += frames
            audio += try Harness.packetMD5(url)
        }
        XCTAssertEqual(video, try Harness.videoMD5(whole))
        XCTAssertEqual(audio, try Harness.packetMD5(whole))
    }

    /// A segment ends at the first keyframe N seconds after it began (a rounded timestamp included),
    /// or with --segment-wallclock past a multiple of N seconds of UTC.
    func testWhenASegmentEnds() {
        let second: Int64 = 1_000_000_000
        let aligned = Segments(seconds: 10, wallclock: true, live: false)
        XCTAssertTrue(aligned.ends(startedAt: 1_764_600_009 * second, by: 1_764_600_010 * second))
        XCTAssertFalse(aligned.ends(startedAt: 1_764_600_010 * second, by: 1_764_600_019 * second + second / 2))
        XCTAssertTrue(aligned.ends(startedAt: -second / 2, by: 0), "a slot boundary at the epoch")
        let sliding = Segments(seconds: 10, wallclock: false, live: false)
        XCTAssertFalse(sliding.ends(startedAt: 1_764_600_009 * second, by: 1_764_600_010 * second))
        XCTAssertTrue(sliding.ends(startedAt: 1_764_600_009 * second, by: 1_764_600_019 * second))
        // A keyframe 10 s of 90 kHz ticks less one after the segment's start ends it.
        XCTAssertTrue(sliding.ends(startedAt: 0, by: 899_999 * second / 90_000))
        XCTAssertFalse(sliding.ends(startedAt: 0, by: 9 * second))
    }

    func testSegmentFlagsNeedATemplateAndAnOutput() throws {
        for arguments in [["--pcap", "x", "--segment-seconds", "10", "--out", "a.h264"], ["--pcap", "x", "--out", "a-{n}.h264"],
                          ["--pcap", "x", "--segment-seconds", "10"], ["--pcap", "x", "--flv", "a-{n}.flv"],
                          ["--pcap", "x", "--segment-seconds", "10", "--out", "a-{n}.h264", "--flv", "a.flv"],
                          ["--pcap", "x", "--segment-wallclock", "--out", "a.h264"]] {
            XCTAssertEqual(try Harness.rtprecv(arguments).status, 64, "\(arguments)")
        }
    }

    /// Log rotation live: the outputs are moved away and SIGHUP sent; the run goes on into new files
    /// at their paths, from the next keyframe, and the two of each together hold every frame. An
    /// FLV and an MP4 are whole new ones. A second SIGHUP with nothing moved loses nothing either:
    /// the Annex-B file is appended to, and the FLV and the MP4 written on.
    func testSIGHUPReopensTheOutputAtTheNextKeyframe() throws {
        let ledger = Harness.temporaryFile("hup.jsonl"), flv = Harness.temporaryFile("hup.flv"), mp4 = Harness.temporaryFile("hup.mp4")
        let listener = try LiveTests.Listener(["--port", "0", "--frames-json", ledger.path, "--flv", flv.path, "--mp4", mp4.path],
                                              name: "hup")
        let source = Harness.temporaryFile("hup-source.h264")
        let sender = Process()
        sender.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sender.arguments = ["gst-launch-1.0", "-q", "videotestsrc", "is-live=true", "num-buffers=150", "!",
                            "video/x-raw,width=320,height=240,framerate=30/1", "!", "x264enc", "tune=zerolatency", "key-int-max=30",
                            "bframes=0", "!", "h264parse", "!", "video/x-h264,stream-format=byte-stream,alignment=au", "!", "tee", "name=t",
                            "t.", "!", "queue", "!", "filesink", "location=\(source.path)",
                            "t.", "!", "queue", "!", "rtph264pay", "config-interval=-1", "pt=96", "!",
                            "udpsink", "host=127.0.0.1", "port=\(listener.port)"]
        sender.standardOutput = FileHandle.nullDevice
        sender.standardError = FileHandle.nullDevice
        try sender.run()
        usleep(1_300_000)
        let rotated = URL(fileURLWithPath: listener.out.path + ".1"), rotatedLedger = URL(fileURLWithPath: ledger.path + ".1")
        let rotatedFLV = URL(fileURLWithPath: flv.path + ".1"), rotatedMP4 = URL(fileURLWithPath: mp4.path + ".1")
        for (from, to) in [(listener.out, rotated), (ledger, rotatedLedger), (flv, rotatedFLV), (mp4, rotatedMP4)] {
            try? FileManager.default.removeItem(at: to)
            try FileManager.default.moveItem(at: from, to: to)
        }
        kill(listener.process.processIdentifier, SIGHUP)
        // The second once the first took effect (a new file at the path), with keyframes to come.
        let deadline = Date().addingTimeInterval(5)
        while !FileManager.default.fileExists(atPath: listener.out.path) && Date() < deadline { usleep(20_000) }
        kill(listener.process.processIdentifier, SIGHUP)
        sender.waitUntilExit()
        usleep(300_000)
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        XCTAssertTrue(listener.stderr.contains("reopened 2 times on SIGHUP"), listener.stderr)
        let before = try Harness.videoMD5(rotated), after = try Harness.videoMD5(listener.out)
        XCTAssertGreaterThan(before.count, 0)
        XCTAssertGreaterThan(after.count, 0)
        XCTAssertEqual(try Harness.decodeErrors(listener.out), "", "the new file starts at a keyframe and plays alone")
        XCTAssertEqual(before + after, try Harness.videoMD5(source), "every frame, in one file or the other")
        // The FLVs: each whole and playing alone, the new one from a keyframe; together every frame.
        let flvBefore = try Harness.videoMD5(rotatedFLV), flvAfter = try Harness.videoMD5(flv)
        XCTAssertGreaterThan(flvBefore.count, 0)
        XCTAssertGreaterThan(flvAfter.count, 0)
        XCTAssertEqual(try Harness.decodeErrors(flv), "", "the new FLV starts at a keyframe and plays alone")
        XCTAssertEqual(flvBefore + flvAfter, before + after, "the FLVs hold the frames the Annex-B files hold")
        // The MP4s likewise, each finished with its trailer.
        let mp4Before = try Harness.videoMD5(rotatedMP4), mp4After = try Harness.videoMD5(mp4)
        XCTAssertGreaterThan(mp4After.count, 0)
        XCTAssertEqual(try Harness.decodeErrors(mp4), "", "the new MP4 starts at a keyframe and plays alone")
        XCTAssertEqual(mp4Before + mp4After, before + after, "the MP4s hold the frames the Annex-B files hold")
        // The ledger went on in a new file too; together they account for every frame.
        let lines = try [rotatedLedger, ledger].map { try String(contentsOf: $0, encoding: .utf8).split(separator: "\n").count }
        XCTAssertGreaterThan(lines[1], 0)
        XCTAssertEqual(lines.reduce(0, +), before.count + after.count)
    }
}
