import Foundation
import XCTest

/// `--report`: the page rendered by headless Chromium, read back from its DOM. The pages and their
/// screenshots stay in .build/artefacts.
final class ReportPageTests: XCTestCase {
    private static let artefacts = Harness.packageRoot.appendingPathComponent(".build/artefacts")

    /// Loads the report in a frame and writes what the browser made of it into the DOM: every
    /// marker, every picture's decoded width, every summary cell.
    private static let probe = """
        <!DOCTYPE html><html><body><pre id="result">loading</pre>
        <iframe id="f" src="REPORT" width="1100" height="800"></iframe>
        <script>
        const f = document.getElementById('f');
        f.addEventListener('load', () => {
          const d = f.contentDocument, out = {markers: [], pictures: [], summary: {}};
          for (const s of d.querySelectorAll('section.stream')) {
            for (const m of s.querySelectorAll('line[data-status]'))
              out.markers.push({media: s.dataset.media, status: m.dataset.status, reason: m.dataset.reason, ts: +m.dataset.ts});
            for (const p of s.querySelectorAll('figure.picture'))
              out.pictures.push({ptsMs: +p.dataset.ptsMs, width: p.querySelector('img').naturalWidth,
                                 src: p.querySelector('img').src});
            const cells = {};
            for (const c of s.querySelectorAll('td[data-key]')) cells[c.dataset.key] = c.textContent;
            out.summary[s.dataset.media + ' ' + s.dataset.ssrc] = cells;
          }
          document.getElementById('result').textContent = 'RESULT' + JSON.stringify(out) + 'END';
        });
        </script></body></html>
        """

    private struct Rendered: Decodable {
        struct Marker: Decodable, Equatable { var media: String; var status: String; var reason: String; var ts: UInt32 }
        struct Picture: Decodable { var ptsMs: Int; var width: Int; var src: String }
        var markers: [Marker]
        var pictures: [Picture]
        var summary: [String: [String: String]]
    }

    /// Runs rtprecv with `arguments` and `--report`, `--frames-json` and `--stats-json` into the
    /// artefacts as `name`, and renders the page: what the DOM says, the ledger and the statistics.
    private func render(_ name: String, _ arguments: [String], ledger writesLedger: Bool = true, line: UInt = #line) throws
        -> (Rendered, ledger: [Harness.LedgerRecord], statistics: [String: Any]) {
        try FileManager.default.createDirectory(at: Self.artefacts, withIntermediateDirectories: true)
        let page = Self.artefacts.appendingPathComponent(name + ".html")
        let ledger = Self.artefacts.appendingPathComponent(name + ".jsonl")
        let statistics = Self.artefacts.appendingPathComponent(name + ".json")
        let result = try Harness.rtprecv(arguments + ["--report", page.path, "--stats-json", statistics.path, "-q"]
                                         + (writesLedger ? ["--frames-json", ledger.path] : []))
        XCTAssertEqual(result.status, 0, result.stderr, line: line)
        XCTAssertEqual(result.stderr, "", "nothing said with -q (no libav* message either)", line: line)
        let probe = Self.artefacts.appendingPathComponent(name + "-probe.html")
        try Self.probe.replacingOccurrences(of: "REPORT", with: page.lastPathComponent).write(to: probe, atomically: true, encoding: .utf8)
        let chromium = try Harness.run("chromium", ["--headless=new", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
                                                    "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--dump-dom",
                                                    probe.absoluteString], timeout: 90)
        let dom = String(decoding: chromium.stdout, as: UTF8.self)
        XCTAssertFalse(chromium.stderr.contains(":CONSOLE"), "a console message: \(chromium.stderr)", line: line)
        let start = try XCTUnwrap(dom.range(of: ">RESULT"), dom), end = try XCTUnwrap(dom.range(of: "END</pre>"), dom)
        let json = String(dom[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&amp;", with: "&")
        let rendered = try JSONDecoder().decode(Rendered.self, from: Data(json.utf8))
        let shot = Self.artefacts.appendingPathComponent(name + ".png")
        try Harness.screenshot(page, width: 1100, height: 2600, to: shot)
        XCTAssertTrue(FileManager.default.fileExists(atPath: shot.path), line: line)
        let stats = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: statistics)) as? [String: Any])
        return (rendered, writesLedger ? try Harness.ledger(ledger) : [], stats)
    }

    /// Losses chosen by scripts/damage-captures: the page marks exactly the frames its expectation
    /// says are dropped or repaired, with the ledger's reasons, and its summary says what the
    /// statistics JSON says.
    func testTheMarkersAreTheLedgersDropsAndRepairsAndTheSummaryIsTheStatistics() throws {
        let (page, ledger, statistics) = try render("report-chosen", ["--pcap", Harness.captures.appendingPathComponent("gst-chosen.pcap").path])
        let expected = try Harness.expectation("gst-chosen").ledger!.filter { $0.status != "written" }
        XCTAssertEqual(expected.count, 5, "the capture's damage")
        XCTAssertEqual(page.markers.map(\.ts), expected.map(\.ts))
        XCTAssertEqual(page.markers.map(\.status), expected.map(\.status))
        XCTAssertEqual(page.markers, ledger.filter { $0.status != "written" }.map {
            Rendered.Marker(media: "video", status: $0.status, reason: $0.reason ?? "", ts: $0.ts)
        })

        let stream = try XCTUnwrap((statistics["streams"] as? [[String: Any]])?.first)
        let cells = try XCTUnwrap(page.summary["video \(stream["ssrc"] as! Int)"], "\(page.summary)")
        for key in ["packets", "lost", "frames_written", "keyframes_written", "frames_repaired", "frames_written_after_lost_reference"] {
            XCTAssertEqual(cells[key], "\(stream[key] as! Int)", key)
        }
        let dropped = try XCTUnwrap(stream["frames_dropped"] as? [String: Int])
        XCTAssertEqual(cells["frames_dropped"], "\(dropped.values.reduce(0, +))")
        for (reason, count) in dropped where count > 0 { XCTAssertEqual(cells["frames_dropped." + reason], "\(count)", reason) }
        XCTAssertEqual(Set(cells.keys.filter { $0.hasPrefix("frames_dropped.") }), Set(dropped.filter { $0.value > 0 }.keys.map { "frames_dropped." + $0 }))
        XCTAssertEqual(cells["jitter_ms"].map { String($0.prefix { $0 != " " }) },
                       String(format: "%.2f", stream["jitter_ms"] as! Double))
        XCTAssertFalse(page.pictures.isEmpty)
        XCTAssertTrue(page.pictures.allSatisfy { $0.width == 320 }, "every picture decoded by the browser: \(page.pictures.map(\.width))")
    }

    /// `--all-streams`: one page, every stream's section on one time axis, each summary its own
    /// stream's statistics.
    func testEveryStreamOfAllStreamsIsOnOnePage() throws {
        let dir = try Harness.emptyDirectory("report-all-streams")
        let (page, _, statistics) = try render("report-two-streams", ["--pcap", Harness.captures.appendingPathComponent("two-streams.pcap").path,
                                                                       "--all-streams", "--out", dir.path + "/{ssrc}.h264"], ledger: false)
        let runs = try XCTUnwrap(statistics["all_streams"] as? [[String: Any]])
        let streams = try runs.map { try XCTUnwrap(($0["streams"] as? [[String: Any]])?.first) }
        XCTAssertEqual(streams.count, 2)
        XCTAssertEqual(Set(page.summary.keys), Set(streams.map { "video \($0["ssrc"] as! Int)" }))
        for stream in streams {
            XCTAssertEqual(page.summary["video \(stream["ssrc"] as! Int)"]?["packets"], "\(stream["packets"] as! Int)")
        }
        XCTAssertGreaterThanOrEqual(page.pictures.count, 2, "pictures of both streams")
    }

    /// Each picture is its keyframe: close in PSNR to the source frame at its time, decoded by
    /// ffmpeg, and closer to it than to the frames beside it. Audio has a level and no picture.
    func testThePicturesAreTheSourcesFramesAtTheirTimes() throws {
        let capture = Harness.captures.appendingPathComponent("gst-h264-aac")
        let (page, _, _) = try render("report-h264-aac", ["--pcap", capture.path + ".pcap", "--sdp", capture.path + ".sdp"])
        // 4 s of keyframes every second, one picture every 2 s at least.
        XCTAssertEqual(page.pictures.count, 2, "\(page.pictures.map(\.ptsMs))")
        XCTAssertEqual(Set(page.summary.keys.map { String($0.prefix { $0 != " " }) }), ["video", "audio"])
        let source = Harness.captures.appendingPathComponent("sync-source.mkv")
        for (i, picture) in page.pictures.enumerated() {
            let jpeg = Self.artefacts.appendingPathComponent("report-picture-\(i).jpg")
            let base64 = try XCTUnwrap(picture.src.components(separatedBy: "base64,").last)
            try XCTUnwrap(Data(base64Encoded: base64)).write(to: jpeg)
            let frame = (picture.ptsMs * 30 + 500) / 1000
            XCTAssertGreaterThan(try Harness.psnr(jpeg, source: source, frame: frame, scratch: Self.artefacts), 30, "picture \(i) at \(picture.ptsMs) ms, frame \(frame)")
            // The source's first frames are one flat grey: those after it tell frames apart.
            guard frame > 0 else { continue }
            let psnr = try (frame - 1...frame + 1).map { try Harness.psnr(jpeg, source: source, frame: $0, scratch: Self.artefacts) }
            XCTAssertGreaterThan(psnr[1], max(psnr[0], psnr[2]) + 3, "picture \(i) against the frames beside it: \(psnr) dB")
        }
    }
}
