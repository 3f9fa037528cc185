import FFmpeg
import Foundation
import XCTest

/// `MediaMuxer.begin(options:firstFlushWithin:)`: a file gets its first bytes with its first
/// flush, so that a process killed before leaves nothing a player cannot open.
final class MediaMuxerFirstFlushTests: XCTestCase {
    /// Matroska writes its header at once; until every track has a frame nothing goes to the file
    /// (a file of the header alone, cut there, did not open: "End of file"), and then all of it
    /// does, the header first, and the file opens with both tracks.
    func testAMatroskaHeaderGoesOutWithTheFirstCluster() throws {
        var file: [UInt8] = []
        let muxer = try MediaMuxer(format: "matroska", seekable: true, append: { file += $0 },
                                   overwrite: { bytes, offset in file.replaceSubrange(offset..<offset + bytes.count, with: bytes) })
        for codec in ["pcm_mulaw", "pcm_alaw"] { try muxer.add(.init(audio: codec, sampleRate: 8000, channels: 1, extradata: [])) }
        try muxer.begin(options: [], firstFlushWithin: 1_000_000_000)
        let frame = [UInt8](repeating: 0xD5, count: 160)
        try frame.withUnsafeBytes { try muxer.write(0, $0, pts: 0, dts: 0, duration: 160, keyframe: true) }
        XCTAssertEqual(file.count, 0, "nothing before the second track's first frame")
        XCTAssertEqual(muxer.size, 0)
        try frame.withUnsafeBytes { try muxer.write(1, $0, pts: 0, dts: 0, duration: 160, keyframe: true) }
        XCTAssertEqual(Array(file.prefix(4)), [0x1A, 0x45, 0xDF, 0xA3], "the EBML header first")
        XCTAssertEqual(muxer.size, file.count)
        let cut = Harness.temporaryFile("first-cluster.mkv")
        try Data(file).write(to: cut)
        let streams = try SyncProbe.lines("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", cut.path])
        XCTAssertEqual(streams, ["pcm_mulaw", "pcm_alaw"], "the file as a kill -9 would leave it opens")
        try muxer.finish()
        try Data(file).write(to: cut)
        let packets = try SyncProbe.lines("ffprobe", ["-v", "error", "-show_entries", "packet=stream_index", "-of", "csv=p=0", cut.path])
        XCTAssertEqual(packets.sorted(), ["0", "1"])
    }
}
