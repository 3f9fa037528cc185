import Foundation
import XCTest

/// The source of the audio captures flashes white and beeps at each whole second: where an output
/// shows each, by ffprobe's and ffmpeg's reading, tells how well its tracks are in sync.
enum SyncProbe {
    static func output(_ tool: String, _ args: [String]) throws -> Data {
        let result = try Harness.run(tool, args)
        XCTAssertEqual(result.status, 0, "\(tool): \(result.stderr)")
        return result.stdout
    }

    static func lines(_ tool: String, _ args: [String]) throws -> [Substring] {
        String(decoding: try output(tool, args), as: UTF8.self).split(separator: "\n")
    }

    /// Fails unless every flash has a beep within `tolerance` seconds.
    static func assertInSync(_ file: URL, tolerance: Double = 0.040, minimumFlashes: Int = 3, _ what: String,
                             line: UInt = #line) throws {
        let offsets = try self.offsets(file, what, line: line)
        XCTAssertGreaterThanOrEqual(offsets.count, minimumFlashes, "\(what): flashes", line: line)
        for (flash, offset) in offsets {
            XCTAssertLessThanOrEqual(abs(offset), tolerance, "\(what): flash at \(flash) s, beep \(offset) s from it", line: line)
        }
    }

    /// Each flash's time, and how far after it (before it, when negative) the nearest beep starts.
    static func offsets(_ file: URL, _ what: String, line: UInt = #line) throws -> [(flash: Double, offset: Double)] {
        let beeps = try self.beeps(file)
        return try flashes(file).map { flash in
            let nearest = try XCTUnwrap(beeps.min { abs($0 - flash) < abs($1 - flash) }, "\(what): no beep", line: line)
            return (flash, nearest - flash)
        }
    }

    /// When frames turn white: ffprobe's presentation times beside each frame's mean luma (8x8 gray).
    static func flashes(_ file: URL) throws -> [Double] {
        let times = try lines("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time",
                                         "-of", "csv=p=0", file.path])
            .compactMap { Double($0.trimmingCharacters(in: [","])) }  // a frame with side data ends its line in a comma
        let gray = [UInt8](try output("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:v", "-vf", "scale=8:8,format=gray",
                                                 "-fps_mode", "passthrough", "-f", "rawvideo", "-"]))
        let luma = stride(from: 0, to: gray.count - 63, by: 64).map { gray[$0..<$0 + 64].reduce(0) { $0 + Int($1) } / 64 }
        guard min(times.count, luma.count) > 1 else { return [] }
        return (1..<min(times.count, luma.count)).filter { luma[$0] > 200 && luma[$0 - 1] <= 200 }.map { times[$0] }
    }

    /// When a beep starts after at least a quarter second of silence, decoded at 8 kHz mono.
    static func beeps(_ file: URL) throws -> [Double] {
        let start = try lines("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=start_time",
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
