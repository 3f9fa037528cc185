import Foundation
import XCTest

/// A recorded MP4 in a real browser: headless Chromium plays it in a `<video>`, seeks, and shows
/// the source's picture at that time. The page and its screenshot stay in .build/artefacts.
final class RecordingBrowserTests: XCTestCase {
    private static let artefacts = Harness.packageRoot.appendingPathComponent(".build/artefacts")

    /// The page writes the element's state into the DOM once it has seeked (or failed), and shows
    /// the video only then: media runs in real time, not in the browser's virtual time, so a
    /// screenshot may come before the seek, and is then one colour (taken again).
    private static let page = """
        <!DOCTYPE html>
        <html><head><style>html,body{margin:0;background:#000;overflow:hidden}
        video{display:block;width:320px;height:240px;visibility:hidden}pre{position:absolute;top:0;left:400px}</style></head>
        <body><video id="v" src="RECORDING" muted preload="auto"></video><pre id="state">loading</pre>
        <script>
        const v = document.getElementById('v'), state = document.getElementById('state');
        v.addEventListener('error', () => { state.textContent = 'error ' + (v.error && v.error.code); });
        v.addEventListener('loadedmetadata', () => { v.currentTime = SEEK; });
        v.addEventListener('seeked', () => { v.style.visibility = 'visible'; state.textContent = 'seeked ' + v.videoWidth + 'x' + v.videoHeight + ' at ' + v.currentTime; });
        </script></body></html>
        """

    private func chromium(_ arguments: [String], page: URL) throws -> Harness.Result {
        try Harness.run("chromium", ["--headless=new", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
                                     "--virtual-time-budget=5000"] + arguments + [page.absoluteString], timeout: 90)
    }

    /// H.264 and AAC from GStreamer's session: no media error, the stream's size, and after a seek
    /// to 2.5 s the picture the source has there (its whole seconds flash white, which would prove
    /// little), closer to it than to the frames beside it.
    func testChromiumPlaysTheMP4AndShowsTheSourcesPictureAfterASeek() throws {
        let capture = Harness.captures.appendingPathComponent("gst-h264-aac")
        try assertPlays(["--pcap", capture.path + ".pcap", "--sdp", capture.path + ".sdp", "--mp4"], file: "recording.mp4",
                        source: Harness.captures.appendingPathComponent("sync-source.mkv"))
    }

    /// VP9 from GStreamer into a Matroska file named .webm: WebM's DocType, which Chromium plays, and
    /// the source's picture after a seek.
    func testChromiumPlaysTheVP9WebM() throws {
        try assertPlays(["--pcap", Harness.captures.appendingPathComponent("gst-vp9.pcap").path, "--mkv"], file: "recording.webm",
                        source: Harness.captures.appendingPathComponent("gst-vp9.webm"))
        let docType = try Data(contentsOf: Self.artefacts.appendingPathComponent("recording.webm")).prefix(64)
        XCTAssertNotNil(docType.range(of: Data("webm".utf8)), "the EBML header's DocType")
    }

    /// Records with `arguments` + the artefact `file`, opens it in Chromium, seeks to 2.5 s, and
    /// compares the screenshot with the frame of `source` (30 frames/s) shown there.
    private func assertPlays(_ arguments: [String], file: String, source: URL, line: UInt = #line) throws {
        try FileManager.default.createDirectory(at: Self.artefacts, withIntermediateDirectories: true)
        let recording = Self.artefacts.appendingPathComponent(file)
        let result = try Harness.rtprecv(arguments + [recording.path, "-q"])
        XCTAssertEqual(result.status, 0, result.stderr, line: line)
        let seek = 2.5
        let page = Self.artefacts.appendingPathComponent(file + ".html")
        try Self.page.replacingOccurrences(of: "SEEK", with: String(seek)).replacingOccurrences(of: "RECORDING", with: file)
            .write(to: page, atomically: true, encoding: .utf8)

        let dom = String(decoding: try chromium(["--dump-dom"], page: page).stdout, as: UTF8.self)
        XCTAssertTrue(dom.contains("seeked 320x240 at \(seek)"), dom, line: line)

        let shot = Self.artefacts.appendingPathComponent(file + "-seek.png")
        try Harness.screenshot(page, width: 320, height: 240, to: shot)
        XCTAssertTrue(FileManager.default.fileExists(atPath: shot.path), line: line)

        // The file's 0 may be its first audio frame: the source frame shown is the one displayed
        // at the seek's time less where the video starts in the file.
        let start = try XCTUnwrap(Double(try SyncProbe.lines("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                                          "stream=start_time", "-of", "csv=p=0", recording.path]).first ?? ""))
        let frame = Int(((seek - start) * 30 + 0.001).rounded(.down))
        let psnr = try (frame - 1...frame + 1).map { try Harness.psnr(shot, source: source, frame: $0, scratch: Self.artefacts) }
        XCTAssertGreaterThan(psnr[1], 35, "frame \(frame): \(psnr) dB", line: line)
        XCTAssertGreaterThan(psnr[1], max(psnr[0], psnr[2]) + 10, "frame \(frame) against its neighbours: \(psnr) dB", line: line)
    }
}
