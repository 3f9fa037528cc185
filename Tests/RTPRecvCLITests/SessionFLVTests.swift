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

    private func output(_ tool: String, _ args: [String]) throws -> Data {
        let result = try Harness.run(tool, args)
        XCTAssertEqual(result.status, 0, "\(tool): \(result.stderr)")
        return result.stdout
    }

    private func text(_ tool: String, _ args: [String]) throws -> [Substring] {
        String(decoding: try output(tool, args), as: UTF8.self).split(separator: "\n")
    }

    func testBothTracksDecodeCleanInDecodeTimeOrder() throws {
        for (name, codec) in [("gst-h264-aac", "aac"), ("gst-h264-latm", "aac"), ("ffmpeg-h264-aac", "aac"),
                              ("gst-h264-pcmu", "pcm_mulaw"), ("ffmpeg-h264-pcma", "pcm_alaw"), ("ffmpeg-h264-mp3", "mp3")] {
            let file = try flv(name)
            let streams = try text("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", file.path])
            XCTAssertEqual(Set(streams), ["h264", Substring(codec)], name)
            let decode = try Harness.run("ffmpeg", ["-v", "error", "-xerror", "-i", file.path, "-f", "null", "-"])
            XCTAssertEqual(decode.status, 0, "\(name): \(decode.stderr)")
            let dts = try text("ffprobe", ["-v", "error", "-show_entries", "packet=dts", "-of", "csv=p=0", file.path]).compactMap { Int($0) }
            XCTAssertGreaterThan(dts.count, 130, name)  // 120 frames of video, and the audio
            XCTAssertEqual(dts, dts.sorted(), "\(name): a decode time went back")
        }
    }

    func testAACInTheFLVIsTheSource() throws {
        func hashes(_ url: URL) throws -> [Substring] {
            try text("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a", "-c", "copy", "-f", "framemd5", "-"])
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
            let file = try flv(name)
            let flashes = try videoOnsets(file), beeps = try audioOnsets(file)
            XCTAssertGreaterThanOrEqual(flashes.count, 3, name)
            for flash in flashes {
                let nearest = try XCTUnwrap(beeps.min { abs($0 - flash) < abs($1 - flash) }, name)
                XCTAssertLessThanOrEqual(abs(nearest - flash), 0.040, "\(name): flash at \(flash) s, beep at \(nearest) s")
            }
        }
    }

    /// When frames turn white: ffprobe's presentation times beside each frame's mean luma (8x8 gray).
    private func videoOnsets(_ file: URL) throws -> [Double] {
        let times = try text("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time",
                                         "-of", "csv=p=0", file.path]).compactMap { Double($0) }
        let gray = [UInt8](try output("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:v", "-vf", "scale=8:8,format=gray",
                                                 "-fps_mode", "passthrough", "-f", "rawvideo", "-"]))
        let luma = stride(from: 0, to: gray.count - 63, by: 64).map { gray[$0..<$0 + 64].reduce(0) { $0 + Int($1) } / 64 }
        return (1..<min(times.count, luma.count)).filter { luma[$0] > 200 && luma[$0 - 1] <= 200 }.map { times[$0] }
    }

    /// When a beep starts after at least a quarter second of silence, decoded at 8 kHz mono.
    private func audioOnsets(_ file: URL) throws -> [Double] {
        let start = try text("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=start_time",
                                         "-of", "csv=p=0", file.path]).compactMap { Double($0) }.first ?? 0
        let pcm = try output("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:a", "-ac", "1", "-ar", "8000",
                                        "-f", "s16le", "-"])
        var onsets: [Double] = [], quiet = 0
        pcm.withUnsafeBytes { raw in
            for (i, sample) in raw.bindMemory(to: Int16.self).enumerated() {
                if abs(Int(sample)) > 3000 {
                    if quiet > 2000 { onsets.append(start + Double(i) / 8000) }
                    quiet = 0
                } else {
                    quiet += 1
                }
            }
        }
        return onsets
    }
}
