import Foundation
import XCTest

/// Live sessions: a real sender's video and audio on ports of their own, with RTCP on the next
/// ports, into one rtprecv run that listens on all of them.
final class LiveSessionTests: XCTestCase {
    private func capture(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    /// Four ports in a row, apart from other test processes'.
    private let base = UInt16(30000 + Int(getpid() % 2000) * 4)

    /// A capture's SDP with its video and audio ports moved to `base` and `base + 2`.
    private func sdp(_ name: String) throws -> URL {
        var text = try String(contentsOf: capture(name + ".sdp"), encoding: .utf8)
        text = text.replacingOccurrences(of: #"m=video \d+"#, with: "m=video \(base)", options: .regularExpression)
        text = text.replacingOccurrences(of: #"m=audio \d+"#, with: "m=audio \(base + 2)", options: .regularExpression)
        let url = Harness.temporaryFile("live-\(name).sdp")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    private func listen(_ arguments: [String], name: String) throws -> (LiveTests.Listener, URL, URL) {
        let flv = Harness.temporaryFile(name + ".flv"), stats = Harness.temporaryFile(name + ".json")
        let listener = try LiveTests.Listener(arguments + ["--flv", flv.path, "--stats-json", stats.path], name: name)
        XCTAssertTrue(listener.stderr.contains("(audio RTP)"), listener.stderr)
        return (listener, flv, stats)
    }

    private func send(_ tool: String, _ arguments: [String]) throws {
        // rtpbin sends the 4 s source in real time.
        if tool == "gst-launch-1.0" { return try Harness.runSender(arguments, seconds: 5) }
        let result = try Harness.run(tool, arguments)
        XCTAssertEqual(result.status, 0, "\(tool): \(result.stderr)")
    }

    /// GStreamer's rtpbin sending the source's video, and `audio` (a pipeline ending in a payloader).
    private func rtpbin(audio: String) -> [String] {
        let p = base
        return ["-q", "rtpbin", "name=rb", "filesrc", "location=\(capture("sync-source.mkv").path)", "!",
                "matroskademux", "name=d", "d.video_0", "!", "queue", "!", "h264parse", "!", "rtph264pay", "pt=96", "config-interval=-1", "!", "rb.send_rtp_sink_0",
               "rb.send_rtp_src_0", "!", "udpsink", "host=127.0.0.1", "port=\(p)",
               "rb.send_rtcp_src_0", "!", "udpsink", "host=127.0.0.1", "port=\(p + 1)", "sync=false", "async=false"]
            + audio.split(separator: " ").map(String.init)
            + ["!", "rb.send_rtp_sink_1", "rb.send_rtp_src_1", "!", "udpsink", "host=127.0.0.1", "port=\(p + 2)",
               "rb.send_rtcp_src_1", "!", "udpsink", "host=127.0.0.1", "port=\(p + 3)", "sync=false", "async=false"]
    }

    private func statistics(_ url: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    }

    func testGStreamerRTPBinVideoAndAACArriveInSyncInTheFLV() throws {
        let (listener, flv, stats) = try listen(["--sdp", try sdp("gst-h264-aac").path], name: "live-gst-aac")
        try send("gst-launch-1.0", rtpbin(audio: "d.audio_0 ! queue ! aacparse ! rtpmp4gpay pt=97"))
        usleep(300_000)
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        try SyncProbe.assertInSync(flv, "GStreamer live")
        let dts = try SyncProbe.lines("ffprobe", ["-v", "error", "-show_entries", "packet=dts", "-of", "csv=p=0", flv.path])
            .compactMap { Int($0) }
        XCTAssertEqual(dts, dts.sorted(), "no decode time goes back")
        let json = try statistics(stats)
        let audio = try XCTUnwrap((json["audio_streams"] as? [[String: Any]])?.first)
        XCTAssertEqual(audio["frames_written"] as? Int, 189, listener.stderr)
        XCTAssertNotNil(audio["sr_synchronized_after_s"] as? Double, "the audio's RTCP came in on its own port")
        XCTAssertNotNil((json["streams"] as? [[String: Any]])?.first?["sr_synchronized_after_s"] as? Double)
    }

    func testFFmpegVideoAndAACWithTheirSDP() throws {
        let (listener, flv, _) = try listen(["--sdp", try sdp("ffmpeg-h264-aac").path], name: "live-ffmpeg-aac")
        try send("ffmpeg", ["-v", "error", "-re", "-i", capture("sync-source.mkv").path,
                            "-map", "0:v", "-c", "copy", "-f", "rtp", "rtp://127.0.0.1:\(base)",
                            "-map", "0:a", "-c", "copy", "-f", "rtp", "rtp://127.0.0.1:\(base + 2)"])
        usleep(300_000)
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        try SyncProbe.assertInSync(flv, "FFmpeg live")
        XCTAssertEqual(Set(try SyncProbe.lines("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
                                                            flv.path])), ["h264", "aac"])
    }

    func testStaticPayloadTypeAudioOnItsOwnPortWithoutAnSDP() throws {
        let (listener, flv, stats) = try listen(["--port", "\(base)", "--audio-port", "\(base + 2)", "--bind", "127.0.0.1"],
                                                name: "live-pcma")
        try send("gst-launch-1.0", rtpbin(audio: "filesrc location=\(capture("sync-source-alaw.wav").path) ! wavparse ! rtppcmapay"))
        usleep(300_000)
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        XCTAssertEqual(Set(try SyncProbe.lines("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
                                                            flv.path])), ["h264", "pcm_alaw"])
        try SyncProbe.assertInSync(flv, "G.711 live")
        let audio = try XCTUnwrap((try statistics(stats)["audio_streams"] as? [[String: Any]])?.first)
        XCTAssertEqual(audio["codec"] as? String, "G.711 A-law")
    }
}
