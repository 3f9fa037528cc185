import Foundation
import XCTest

/// `--all-streams` on a capture of several senders at once: every video stream gets its own files,
/// each frame-identical to the source it was sent from, whatever its codec.
final class AllStreamsTests: XCTestCase {
    private func capture(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    /// The captures' records interleaved as if their senders had sent at once: each capture's times
    /// taken from its own start, then merged.
    private func merged(_ names: [String], name: String) throws -> URL {
        var records: [(nanoseconds: UInt64, frame: [UInt8])] = []
        for n in names {
            let own = try TestPcap.records(of: capture(n))
            guard let first = own.first?.microseconds else { continue }
            records += own.map { ((1_700_000_000_000_000 + $0.microseconds - first) * 1000, $0.frame) }
        }
        records.sort { $0.nanoseconds < $1.nanoseconds }
        let url = Harness.temporaryFile(name + ".pcap")
        try TestPcap.data(linkType: 1, records: records).write(to: url)
        return url
    }

    func testEveryStreamOfFourSendersIsRecordedApartAndIdentical() throws {
        // Two H.264 and two H.265 senders on their own ports, and an Opus stream that is no video.
        let sources = [(pcap: "gst-stapa-fua.pcap", port: 5004, es: "gst-stapa-fua.h264", ext: "h264"),
                       (pcap: "ffmpeg-inband.pcap", port: 5014, es: "ffmpeg-inband.h264", ext: "h264"),
                       (pcap: "gst-h265-none.pcap", port: 5190, es: "gst-h265-none.h265", ext: "h265"),
                       (pcap: "ffmpeg-h265-inband.pcap", port: 5196, es: "ffmpeg-h265-inband.h265", ext: "h265")]
        let pcap = try merged(sources.map(\.pcap) + ["ffmpeg-opus.pcap"], name: "all-streams")
        let dir = Harness.temporaryFile("all-streams")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let result = try Harness.rtprecv(["--pcap", pcap.path, "--out", dir.path + "/{port}-{ssrc}.es",
                                          "--frames-json", dir.path + "/{port}-{ssrc}.ndjson", "--stats-json", dir.path + "/stats.json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("all streams: 4 video of 5 SSRCs followed"), result.stderr)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertEqual(files.filter { $0.hasSuffix(".es") }.count, 4, "one file a video stream, none for the Opus one: \(files)")
        for source in sources {
            let written = try XCTUnwrap(files.first { $0.hasPrefix("\(source.port)-") && $0.hasSuffix(".es") }, "\(files)")
            let typed = Harness.temporaryFile("all-streams-\(source.port).\(source.ext)")
            try? FileManager.default.removeItem(at: typed)
            try FileManager.default.copyItem(at: dir.appendingPathComponent(written), to: typed)
            XCTAssertEqual(try Harness.frameMD5(typed), try Harness.frameMD5(capture(source.es)), source.pcap)
            let ledger = try Harness.ledger(dir.appendingPathComponent(written.replacingOccurrences(of: ".es", with: ".ndjson")))
            XCTAssertTrue(!ledger.isEmpty && ledger.allSatisfy { $0.status == "written" }, source.pcap)
        }
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("stats.json"))) as? [String: Any]
        let streams = try XCTUnwrap(stats?["all_streams"] as? [[String: Any]])
        XCTAssertEqual(streams.count, 4)
        let codecs = streams.compactMap { ($0["streams"] as? [[String: Any]])?.first?["codec"] as? String }.sorted()
        XCTAssertEqual(codecs, ["h264", "h264", "h265", "h265"])
    }

    func testOutputsThatEveryStreamWouldShareAreRefused() throws {
        let result = try Harness.rtprecv(["--pcap", capture("gst-stapa-fua.pcap").path, "--all-streams", "--out", "/tmp/one.h264"])
        XCTAssertEqual(result.status, 64)
        XCTAssertTrue(result.stderr.contains("{ssrc}"), result.stderr)
        let live = try Harness.rtprecv(["--port", "0", "--out", "/tmp/{ssrc}.h264"])
        XCTAssertEqual(live.status, 64)
        XCTAssertTrue(live.stderr.contains("--all-streams"), live.stderr)
    }
}
