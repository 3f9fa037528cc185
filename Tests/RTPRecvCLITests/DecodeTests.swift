import Foundation
import XCTest

/// --decode, --yuv, --y4m and --frame-md5 against the ffmpeg command line's decode of the source.
final class DecodeTests: XCTestCase {
    private func capture(_ name: String) -> String { Harness.captures.appendingPathComponent(name).path }

    private func ffmpegRaw(_ source: String, _ pixelFormat: String = "yuv420p") throws -> Data {
        let out = Harness.temporaryFile("ffmpeg-\(pixelFormat).yuv")
        let r = try Harness.run("ffmpeg", ["-v", "error", "-y", "-i", capture(source), "-f", "rawvideo", "-pix_fmt", pixelFormat, out.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try Data(contentsOf: out)
    }

    private func rtprecv(_ arguments: [String]) throws -> Harness.Result {
        let r = try Harness.rtprecv(arguments)
        XCTAssertEqual(r.status, 0, r.stderr)
        return r
    }

    func testYUVIsBitExactWithFFmpegForEveryCleanCapture() throws {
        let cases: [(String, String, [String])] = [
            ("gst-stapa-fua.pcap", "gst-stapa-fua.h264", []),  // 4:4:4 10-bit, converted to yuv420p
            ("ffmpeg-bframes.pcap", "ffmpeg-bframes.h264", ["--sdp", capture("ffmpeg-bframes.sdp")]),
            ("ffmpeg-mode0.pcap", "ffmpeg-mode0.h264", ["--sdp", capture("ffmpeg-mode0.sdp")]),  // multi-slice
            ("ffmpeg-1080p.pcap", "ffmpeg-1080p.h264", []),
        ]
        for (pcap, source, extra) in cases {
            let yuv = Harness.temporaryFile(pcap + ".yuv")
            _ = try rtprecv(["--pcap", capture(pcap), "--yuv", yuv.path, "-q"] + extra)
            let expected = try ffmpegRaw(source)
            XCTAssertFalse(expected.isEmpty)
            XCTAssertTrue(try Data(contentsOf: yuv) == expected, "\(pcap): YUV differs from ffmpeg's decode of \(source)")
        }
    }

    func testPixelFormatConversionMatchesFFmpeg() throws {
        for format in ["nv12", "yuv444p", "rgb24", "gray"] {
            let yuv = Harness.temporaryFile("conv-\(format).yuv")
            _ = try rtprecv(["--pcap", capture("ffmpeg-mode0.pcap"), "--sdp", capture("ffmpeg-mode0.sdp"),
                             "--yuv", yuv.path, "--pix-fmt", format, "-q"])
            XCTAssertTrue(try Data(contentsOf: yuv) == (try ffmpegRaw("ffmpeg-mode0.h264", format)), "\(format) differs")
        }
    }

    func testY4MOpensWithSizeAndRate() throws {
        let y4m = Harness.temporaryFile("out.y4m")
        _ = try rtprecv(["--pcap", capture("gst-stapa-fua.pcap"), "--y4m", y4m.path, "-q"])
        let probe = try Harness.probe(y4m, "stream=width,height,r_frame_rate,pix_fmt,nb_read_frames")
        for field in ["width=320", "height=240", "r_frame_rate=30/1", "pix_fmt=yuv420p", "nb_read_frames=150"] {
            XCTAssertTrue(probe.contains(field + "\n"), probe)
        }
    }

    func testFrameMD5MatchesFFmpegFramemd5() throws {
        let md5 = Harness.temporaryFile("frames.md5")
        _ = try rtprecv(["--pcap", capture("ffmpeg-bframes.pcap"), "--sdp", capture("ffmpeg-bframes.sdp"),
                         "--frame-md5", md5.path, "-q"])
        let ours = try String(contentsOf: md5, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) }
        XCTAssertEqual(ours, try Harness.frameMD5(Harness.captures.appendingPathComponent("ffmpeg-bframes.h264")))
    }

    func testSkipCorruptWritesNoFrameThatDiffersFromTheSource() throws {
        // Without --wait-keyframe, frames after a loss refer to missing pictures; --skip-corrupt drops them.
        let md5 = Harness.temporaryFile("lossy.md5")
        let r = try rtprecv(["--pcap", capture("gst-loss2.pcap"), "--frame-md5", md5.path, "--skip-corrupt"])
        let source = try Harness.frameMD5(Harness.captures.appendingPathComponent("gst-stapa-fua.h264"), pixelFormat: "yuv420p")
        let lines = try String(contentsOf: md5, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        XCTAssertGreaterThan(lines.count, 20)
        XCTAssertLessThan(lines.count, source.count)
        for line in lines {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let index = Int(fields[2])! / 3000  // 30 frames/s on the 90 kHz clock, from the first frame
            XCTAssertEqual(fields[5], source[index], "frame \(index)")
        }
        XCTAssertTrue(r.stderr.contains(" damaged frames skipped"), r.stderr)
    }

    func testAnnexBAndYUVInOnePass() throws {
        let h264 = Harness.temporaryFile("both.h264"), yuv = Harness.temporaryFile("both.yuv")
        _ = try rtprecv(["--pcap", capture("ffmpeg-1080p.pcap"), "--out", h264.path, "--yuv", yuv.path, "-q"])
        XCTAssertEqual(try Harness.frameMD5(h264), try Harness.frameMD5(Harness.captures.appendingPathComponent("ffmpeg-1080p.h264")))
        XCTAssertTrue(try Data(contentsOf: yuv) == (try ffmpegRaw("ffmpeg-1080p.h264")))
    }

    func testResolutionChangeKeepsNativeSizesInYUVAndFirstSizeInY4M() throws {
        let real = Harness.realCaptures.appendingPathComponent("str0m_h264.pcap")
        try XCTSkipUnless(FileManager.default.fileExists(atPath: real.path), "\(real.path) is absent")
        let yuv = Harness.temporaryFile("str0m.yuv"), y4m = Harness.temporaryFile("str0m.y4m")
        let r = try rtprecv(["--pcap", real.path, "--yuv", yuv.path, "--y4m", y4m.path, "--wait-keyframe"])
        XCTAssertTrue(r.stderr.contains("size changes"), r.stderr)
        let probe = try Harness.probe(y4m, "stream=width,height,nb_read_frames")
        let frames = Int(probe.split(separator: "\n").first { $0.hasPrefix("nb_read_frames=") }!.split(separator: "=")[1])!
        // The raw file holds each frame at its own size: its length is the sum of the frame sizes.
        let h264 = Harness.temporaryFile("str0m-ref.h264")
        _ = try rtprecv(["--pcap", real.path, "--out", h264.path, "--wait-keyframe", "-q"])
        let sizes = try Harness.run("ffprobe", ["-v", "error", "-show_entries", "frame=width,height", "-of", "csv=p=0", h264.path])
        let dimensions = String(decoding: sizes.stdout, as: UTF8.self).split(separator: "\n").map { line in
            line.split(separator: ",").map { Int($0)! }
        }
        XCTAssertEqual(Set(dimensions.map { $0[0] }).count, 2, "the capture should change size")
        XCTAssertEqual(dimensions.count, frames)
        XCTAssertEqual(try Data(contentsOf: yuv).count, dimensions.map { $0[0] * $0[1] * 3 / 2 }.reduce(0, +))
        // Every Y4M frame has the first frame's size.
        XCTAssertTrue(probe.contains("width=\(dimensions[0][0])\nheight=\(dimensions[0][1])\n"), probe)
    }

    func testHigh444StreamInItsNativeFormatAndInYUV420() throws {
        let real = Harness.realCaptures.appendingPathComponent("membrane_demo_rtp.pcap")
        try XCTSkipUnless(FileManager.default.fileExists(atPath: real.path), "\(real.path) is absent")
        // ffmpeg decodes the Annex-B the receiver wrote; rtprecv's own decode must match it in both formats.
        let h264 = Harness.temporaryFile("membrane.h264")
        let r = try rtprecv(["--pcap", real.path, "--out", h264.path, "--decode"])
        XCTAssertTrue(r.stderr.contains("(yuv444p)"), "native format reported: \(r.stderr)")
        for format in ["yuv444p", "yuv420p"] {
            let yuv = Harness.temporaryFile("membrane-\(format).yuv"), reference = Harness.temporaryFile("membrane-ref-\(format).yuv")
            _ = try rtprecv(["--pcap", real.path, "--yuv", yuv.path, "--pix-fmt", format, "-q"])
            let f = try Harness.run("ffmpeg", ["-v", "error", "-y", "-i", h264.path, "-f", "rawvideo", "-pix_fmt", format, reference.path])
            XCTAssertEqual(f.status, 0, f.stderr)
            let frameBytes = format == "yuv444p" ? 320 * 240 * 3 : 320 * 240 * 3 / 2
            XCTAssertEqual(try Data(contentsOf: yuv).count, 142 * frameBytes, format)
            XCTAssertTrue(try Data(contentsOf: yuv) == Data(contentsOf: reference), "\(format) differs")
        }
    }

    func testUnknownPixelFormatIsAnError() throws {
        let r = try Harness.rtprecv(["--pcap", capture("gst-stapa-fua.pcap"), "--yuv", "/dev/null", "--pix-fmt", "nope"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("--pix-fmt 'nope'"), r.stderr)
    }
}
