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
}
