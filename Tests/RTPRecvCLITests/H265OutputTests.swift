import Foundation
import XCTest

/// H.265 through the other outputs: libavcodec's decoder (bit-exact with the ffmpeg CLI), and FLV as
/// Enhanced RTMP's 'hvc1' and as the legacy codec id 12. Debian's FFmpeg 5.1 reads neither FLV, so
/// each is read back to Annex-B here and decoded by ffmpeg, and decoded by FFmpeg 7 through PyAV
/// (scripts/flv-framemd5) where scripts/setup installed it.
final class H265OutputTests: XCTestCase {
    private func capture(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    func testDecodeIsBitExactWithTheFFmpegCLI() throws {
        for (name, format) in [("gst-h265-none", "yuv420p"), ("gst-h265-zero-latency", "yuv420p10le"), ("gst-h265-max", "yuv444p12le")] {
            let ours = Harness.temporaryFile(name + ".yuv"), theirs = Harness.temporaryFile(name + ".ref.yuv")
            let result = try Harness.rtprecv(["--pcap", capture(name + ".pcap").path, "--decode", "--pix-fmt", format,
                                              "--yuv", ours.path])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(try Harness.run("ffmpeg", ["-v", "error", "-i", capture(name + ".h265").path, "-f", "rawvideo",
                                                      "-pix_fmt", format, "-y", theirs.path]).status, 0)
            let a = try Data(contentsOf: ours), b = try Data(contentsOf: theirs)
            XCTAssertEqual(a.count, b.count, name)
            XCTAssertTrue(a == b, "\(name): decoded frames differ from ffmpeg's")
            XCTAssertEqual(a.count, 120 * 320 * 240 * (format == "yuv420p" ? 3 : format == "yuv420p10le" ? 6 : 12) / 2, name)
        }
    }

    /// The video of an FLV as Annex-B: parameter sets from each sequence header, then the
    /// length-prefixed NAL units of the frames, in both H.265 layouts.
    private func annexB(fromFLV url: URL) throws -> (stream: [UInt8], enhanced: Int, legacy: Int, codecId: Double?) {
        let d = [UInt8](try Data(contentsOf: url))
        XCTAssertEqual(Array(d[0..<3]), Array("FLV".utf8))
        var out: [UInt8] = [], parameterSets: [[UInt8]] = [], enhanced = 0, legacy = 0
        var codecId: Double?
        var i = 13
        func u16(_ at: Int) -> Int { Int(d[at]) << 8 | Int(d[at + 1]) }
        func record(_ at: Int) -> [[UInt8]] {
            // HEVCDecoderConfigurationRecord: 22 bytes, then its arrays.
            var sets: [[UInt8]] = [], p = at + 22
            let arrays = Int(d[p]); p += 1
            for _ in 0..<arrays {
                let count = u16(p + 1); p += 3
                for _ in 0..<count {
                    let n = u16(p)
                    sets.append(Array(d[p + 2..<p + 2 + n])); p += 2 + n
                }
            }
            return sets
        }
        while i + 11 <= d.count {
            let type = d[i], size = Int(d[i + 1]) << 16 | Int(d[i + 2]) << 8 | Int(d[i + 3])
            let body = i + 11
            if type == 18 {
                let key = Array("videocodecid".utf8)
                if let at = (body..<body + size - key.count).first(where: { Array(d[$0..<$0 + key.count]) == key }) {
                    codecId = Data(d[at + key.count + 1..<at + key.count + 9].reversed()).withUnsafeBytes { $0.load(as: Double.self) }
                }
            }
            if type == 9 {
                var data = body, packet: Int, keyframe = d[body] >> 4 & 7 == 1
                if d[body] & 0x80 != 0 {
                    enhanced += 1
                    XCTAssertEqual(Array(d[body + 1..<body + 5]), Array("hvc1".utf8))
                    packet = Int(d[body] & 0x0F)
                    keyframe = d[body] >> 4 & 7 == 1
                    data = body + 5 + (packet == 1 ? 3 : 0)
                    if packet == 3 { packet = 1 }
                } else {
                    legacy += 1
                    XCTAssertEqual(d[body] & 0x0F, 12, "codec id 12")
                    packet = Int(d[body + 1])
                    data = body + 5
                }
                if packet == 0 {
                    parameterSets = record(data)
                } else if packet == 1 {
                    if keyframe { for nal in parameterSets { out += [0, 0, 0, 1] + nal } }
                    var p = data
                    while p + 4 <= body + size {
                        let n = Int(d[p]) << 24 | Int(d[p + 1]) << 16 | Int(d[p + 2]) << 8 | Int(d[p + 3])
                        out += [0, 0, 0, 1] + d[p + 4..<p + 4 + n]
                        p += 4 + n
                    }
                }
            }
            i += 11 + size + 4
        }
        return (out, enhanced, legacy, codecId)
    }

    func testFLVInBothLayoutsHoldsTheSourceFrames() throws {
        let pyav = Harness.packageRoot.appendingPathComponent(".build/venv/bin/python")
        let hasPyAV = (try? Harness.run(pyav.path, ["-c", "import av"]).status) == 0
        for name in ["gst-h265-max", "ffmpeg-h265-inband"] {
            let expected = try Harness.frameMD5(capture(name + ".h265"))
            for legacy in [false, true] {
                let flv = Harness.temporaryFile("\(name)-\(legacy).flv")
                let result = try Harness.rtprecv(["--pcap", capture(name + ".pcap").path, "--flv", flv.path]
                                                 + (legacy ? ["--flv-hevc-legacy"] : []))
                XCTAssertEqual(result.status, 0, result.stderr)
                let read = try annexB(fromFLV: flv)
                XCTAssertGreaterThan(legacy ? read.legacy : read.enhanced, 120, "\(name) legacy \(legacy)")
                XCTAssertEqual(legacy ? read.enhanced : read.legacy, 0)
                XCTAssertEqual(read.codecId, legacy ? 12 : Double(0x6876_6331), "videocodecid: 12, or the FourCC 'hvc1'")
                let extracted = Harness.temporaryFile("\(name)-\(legacy).h265")
                try Data(read.stream).write(to: extracted)
                XCTAssertEqual(try Harness.frameMD5(extracted), expected, "\(name) legacy \(legacy): extracted Annex-B")
                if hasPyAV {
                    let decoded = try Harness.run(pyav.path, [Harness.packageRoot.appendingPathComponent("scripts/flv-framemd5").path, flv.path])
                    XCTAssertEqual(decoded.status, 0, decoded.stderr)
                    let lines = String(decoding: decoded.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
                    XCTAssertEqual(lines.first, "hevc")
                    XCTAssertEqual(Array(lines.dropFirst()), expected, "\(name) legacy \(legacy): FFmpeg 7 decoding the FLV")
                }
            }
        }
        if !hasPyAV && ProcessInfo.processInfo.environment["CI"] != nil { XCTFail("scripts/setup should have installed PyAV") }
    }
}
