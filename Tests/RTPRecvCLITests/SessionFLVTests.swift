import Foundation
import XCTest

/// FLV from captured sessions with audio and RTCP: both tracks, decode times in order, the AAC
/// bit-exact, and the source's flashes and beeps together.
final class SessionFLVTests: XCTestCase {
    private func capture(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    private func flv(_ name: String) throws -> URL {
        let out = Harness.temporaryFile(name + ".flv")
        let sdp = capture(name + ".sdp")
        var args = ["--pcap", capture(name + ".pcap").path, "--flv", out.path, "-q"]
        if FileManager.default.fileExists(atPath: sdp.path) { args += ["--sdp", sdp.path] }
        let result = try Harness.rtprecv(args)
        XCTAssertEqual(result.status, 0, result.stderr)
        return out
    }

    func testBothTracksDecodeCleanInDecodeTimeOrder() throws {
        for (name, codec) in [("gst-h264-aac", "aac"), ("gst-h264-latm", "aac"), ("ffmpeg-h264-aac", "aac"),
                              ("gst-h264-pcmu", "pcm_mulaw"), ("ffmpeg-h264-pcma", "pcm_alaw"), ("ffmpeg-h264-mp3", "mp3")] {
            let file = try flv(name)
            let streams = try SyncProbe.lines("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", file.path])
            XCTAssertEqual(Set(streams), ["h264", Substring(codec)], name)
            let decode = try Harness.run("ffmpeg", ["-v", "error", "-xerror", "-i", file.path, "-f", "null", "-"])
            XCTAssertEqual(decode.status, 0, "\(name): \(decode.stderr)")
            let dts = try SyncProbe.lines("ffprobe", ["-v", "error", "-show_entries", "packet=dts", "-of", "csv=p=0", file.path]).compactMap { Int($0) }
            XCTAssertGreaterThan(dts.count, 130, name)  // 120 frames of video, and the audio
            XCTAssertEqual(dts, dts.sorted(), "\(name): a decode time went back")
        }
    }

    func testAACInTheFLVIsTheSource() throws {
        func hashes(_ url: URL) throws -> [Substring] {
            try SyncProbe.lines("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a", "-c", "copy", "-f", "framemd5", "-"])
                .filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",")[5] }
        }
        let source = try hashes(capture("sync-source.mkv"))
        for name in ["gst-h264-aac", "gst-h264-latm"] { XCTAssertEqual(try hashes(try flv(name)), source, name) }
        let ffmpeg = try hashes(try flv("ffmpeg-h264-aac"))
        XCTAssertGreaterThan(ffmpeg.count, source.count * 9 / 10)
        XCTAssertEqual(ffmpeg, Array(source.prefix(ffmpeg.count)))
    }

    func testFlashesAndBeepsStayTogether() throws {
        // The source flashes white and beeps at each whole second. Senders' reports tie the tracks.
        for name in ["gst-h264-aac", "gst-h264-latm", "ffmpeg-h264-aac", "gst-h264-pcmu", "ffmpeg-h264-pcma"] {
            try SyncProbe.assertInSync(try flv(name), name)
        }
    }

    func testBFramesKeepTheOffsetOfASenderWithout() throws {
        // The same flashes and beeps sent by the same sender, encoded with up to 3 B-frames (80 ms of
        // composition offset): FLV lines up presentation times, so the offset is the same within 5 ms.
        func meanOffset(_ name: String) throws -> Double {
            let offsets = try SyncProbe.offsets(try flv(name), name).map(\.offset)
            XCTAssertGreaterThanOrEqual(offsets.count, 3, name)
            return offsets.reduce(0, +) / Double(max(offsets.count, 1))
        }
        let without = try meanOffset("gst-h264-aac"), with = try meanOffset("gst-h264-aac-bf3")
        XCTAssertEqual(with, without, accuracy: 0.005, "A/V offset with B-frames \(with) s, without \(without) s")
    }
}
