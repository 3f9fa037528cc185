import Foundation
import XCTest

/// `--segment-seconds`: the Annex-B output cut at keyframes into files named from a template;
/// each plays by itself, and their frames, one after the other, are the stream's.
final class SegmentTests: XCTestCase {
    func testSegmentsEachPlayAloneAndTogetherAreTheStream() throws {
        // 90 frames, a keyframe every 30 (every second).
        let capture = Harness.captures.appendingPathComponent("ffmpeg-inband.pcap")
        let dir = Harness.temporaryFile("segments")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let stats = Harness.temporaryFile("segments.json")
        let r = try Harness.rtprecv(["--pcap", capture.path, "--segment-seconds", "1", "--out", dir.path + "/cam-{n}-{start}.h264", "--stats-json", stats.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .sorted { Int($0.split(separator: "-")[1])! < Int($1.split(separator: "-")[1])! }
        XCTAssertGreaterThanOrEqual(names.count, 2, "\(names)")
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

    func testSegmentFlagsNeedATemplateAndAnOutput() throws {
        for arguments in [["--pcap", "x", "--segment-seconds", "10", "--out", "a.h264"], ["--pcap", "x", "--out", "a-{n}.h264"],
                          ["--pcap", "x", "--segment-seconds", "10"]] {
            XCTAssertEqual(try Harness.rtprecv(arguments).status, 64, "\(arguments)")
        }
    }

    /// Log rotation live: the output is moved away and SIGHUP sent; the run goes on into a new file
    /// at the path, from the next keyframe, and the two files together hold every frame.
    func testSIGHUPReopensTheOutputAtTheNextKeyframe() throws {
        let ledger = Harness.temporaryFile("hup.jsonl")
        let listener = try LiveTests.Listener(["--port", "0", "--frames-json", ledger.path], name: "hup")
        let source = Harness.temporaryFile("hup-source.h264")
        let sender = Process()
        sender.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sender.arguments = ["gst-launch-1.0", "-q", "videotestsrc", "is-live=true", "num-buffers=90", "!",
                            "video/x-raw,width=320,height=240,framerate=30/1", "!", "x264enc", "tune=zerolatency", "key-int-max=30",
                            "bframes=0", "!", "h264parse", "!", "video/x-h264,stream-format=byte-stream,alignment=au", "!", "tee", "name=t",
                            "t.", "!", "queue", "!", "filesink", "location=\(source.path)",
                            "t.", "!", "queue", "!", "rtph264pay", "config-interval=-1", "pt=96", "!",
                            "udpsink", "host=127.0.0.1", "port=\(listener.port)"]
        sender.standardOutput = FileHandle.nullDevice
        sender.standardError = FileHandle.nullDevice
        try sender.run()
        usleep(1_500_000)
        let rotated = URL(fileURLWithPath: listener.out.path + ".1"), rotatedLedger = URL(fileURLWithPath: ledger.path + ".1")
        try? FileManager.default.removeItem(at: rotated)
        try? FileManager.default.removeItem(at: rotatedLedger)
        try FileManager.default.moveItem(at: listener.out, to: rotated)
        try FileManager.default.moveItem(at: ledger, to: rotatedLedger)
        kill(listener.process.processIdentifier, SIGHUP)
        sender.waitUntilExit()
        usleep(300_000)
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        XCTAssertTrue(listener.stderr.contains("reopened 1 times on SIGHUP"), listener.stderr)
        let before = try Harness.videoMD5(rotated), after = try Harness.videoMD5(listener.out)
        XCTAssertGreaterThan(before.count, 0)
        XCTAssertGreaterThan(after.count, 0)
        XCTAssertEqual(try Harness.decodeErrors(listener.out), "", "the new file starts at a keyframe and plays alone")
        XCTAssertEqual(before + after, try Harness.videoMD5(source), "every frame, in one file or the other")
        // The ledger went on in a new file too; together they account for every frame.
        let lines = try [rotatedLedger, ledger].map { try String(contentsOf: $0, encoding: .utf8).split(separator: "\n").count }
        XCTAssertGreaterThan(lines[1], 0)
        XCTAssertEqual(lines.reduce(0, +), before.count + after.count)
    }
}
