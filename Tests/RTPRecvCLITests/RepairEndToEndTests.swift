import Foundation
import XCTest

/// Real-world damage end to end, on variants that scripts/damage-captures derives with the output
/// and ledger of a reference receiver: losses of non-reference pictures only, the PPS packet in
/// front of an IDR lost, an aggregation unit that runs past its packet, a loss of each kind the
/// ledger tells apart; and a sender whose RTP timestamps never advance. Checked with ffmpeg and
/// ffprobe.
final class RepairEndToEndTests: XCTestCase {
    private func source(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    private struct Run {
        var out: URL
        var ledger: [Harness.LedgerRecord]
        var stats: [String: Any]
        var stream: [String: Any]
        var stderr: String
    }

    private func replay(_ capture: String, _ extra: [String] = [], name: String = #function) throws -> Run {
        let out = Harness.temporaryFile(name + ".h264"), ledger = Harness.temporaryFile(name + ".jsonl")
        let stats = Harness.temporaryFile(name + ".json")
        let result = try Harness.rtprecv(["--pcap", source(capture).path, "--out", out.path, "--frames-json", ledger.path,
                                          "--stats-json", stats.path] + extra)
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        return Run(out: out, ledger: try Harness.ledger(ledger), stats: json,
                   stream: (json["streams"] as! [[String: Any]])[0], stderr: result.stderr)
    }

    func testLosingOnlyNonReferencePicturesCostsOnlyThoseWhenWaitingForKeyframes() throws {
        let expect = try Harness.expectation("ffmpeg-bframes-nonref")
        let sdp = ["--sdp", source(expect.sdp!).path]
        let all = try Harness.frameMD5(source(expect.source))
        let waiting = try replay("ffmpeg-bframes-nonref.pcap", sdp + ["--wait-keyframe"])
        // Every access unit that lost nothing is kept: nothing else is dropped.
        let damaged = expect.damaged.filter { $0 }.count
        XCTAssertGreaterThan(damaged, 5)
        XCTAssertEqual(try Harness.frameMD5(waiting.out).count, all.count - damaged)
        XCTAssertEqual(try Harness.frameMD5(waiting.out), Harness.frames(expect.frames_wait!, of: all))
        XCTAssertEqual(try Harness.decodeErrors(waiting.out), "")
        XCTAssertFalse(waiting.ledger.contains { $0.reason == "waiting_for_keyframe" })
        Harness.assertLedger(waiting.ledger, expect.ledger_wait!, "non-reference losses, waiting")
        let writing = try replay("ffmpeg-bframes-nonref.pcap", sdp, name: "nonref-all")
        XCTAssertGreaterThanOrEqual(writing.ledger.filter { $0.status != "dropped" }.count,
                                    waiting.ledger.filter { $0.status != "dropped" }.count)
    }

    func testLostPPSInFrontOfAnIDRIsRepairedAndEveryFrameDecodes() throws {
        let run = try replay("ffmpeg-inband-losepps.pcap", ["--wait-keyframe"])
        XCTAssertEqual(try Harness.frameMD5(run.out), try Harness.frameMD5(source("ffmpeg-inband.h264")))
        XCTAssertEqual(try Harness.decodeErrors(run.out), "")
        let repaired = run.ledger.filter { $0.status == "repaired" }
        XCTAssertEqual(repaired.count, 1)
        XCTAssertEqual(repaired.first?.keyframe, true)
        XCTAssertEqual(repaired.first?.reason, "missing_packets")
        XCTAssertEqual(run.stream["frames_repaired"] as? Int, 1)
        XCTAssertEqual(run.stream["lost"] as? Int, 1)
        Harness.assertLedger(run.ledger, try Harness.expectation("ffmpeg-inband-losepps").ledger_wait!, "lost PPS")
    }

    func testAggregationUnitRunningPastItsPacketLosesOnlyItself() throws {
        // The STAP-A bringing the second resolution's SPS and PPS has an SEI whose size runs 27 bytes
        // past the packet: SPS and PPS are kept, and the frames after it keep the new resolution.
        let expect = try Harness.expectation("ffmpeg-reschange-overrun")
        let run = try replay("ffmpeg-reschange-overrun.pcap")
        XCTAssertEqual(try Harness.frameMD5(run.out), try Harness.frameMD5(source(expect.source)))
        XCTAssertEqual(try Harness.decodeErrors(run.out), "")
        func widths(_ url: URL) throws -> [String] {
            String(decoding: try Harness.run("ffprobe", ["-v", "error", "-show_entries", "frame=width", "-of", "csv=p=0",
                                                         url.path]).stdout, as: UTF8.self).split(separator: "\n").map { $0.filter(\.isNumber) }
        }
        XCTAssertEqual(try widths(run.out), try widths(source(expect.source)))
        XCTAssertEqual(Set(try widths(run.out)), ["240", "320"])
        XCTAssertEqual(run.stream["aggregation_units_overrun"] as? Int, 1)
        XCTAssertEqual(run.stream["lost"] as? Int, 0, "the packet was received: its sequence number counts")
        XCTAssertEqual((run.stream["invalid"] as? [String: Int])?.isEmpty, true)
        Harness.assertLedger(run.ledger, expect.ledger!, "overrun")
        XCTAssertEqual(run.ledger.first { $0.status == "repaired" }?.reason, "aggregation_overrun")
    }

    func testLedgerOfChosenLossesMatchesTheReferenceAndTheSummary() throws {
        let expect = try Harness.expectation("gst-chosen")
        for wait in [false, true] {
            let run = try replay("gst-chosen.pcap", wait ? ["--wait-keyframe"] : [], name: "chosen-\(wait)")
            Harness.assertLedger(run.ledger, wait ? expect.ledger_wait! : expect.ledger!, "chosen losses, wait \(wait)")
            // The summary counts what the ledger lists.
            XCTAssertEqual(run.stream["frames_written"] as? Int, run.ledger.filter { $0.status != "dropped" }.count)
            XCTAssertEqual(run.stream["frames_repaired"] as? Int, run.ledger.filter { $0.status == "repaired" }.count)
            let dropped = run.stream["frames_dropped"] as! [String: Int]
            for (reason, count) in dropped {
                XCTAssertEqual(count, run.ledger.filter { $0.status == "dropped" && $0.reason == reason }.count, reason)
            }
            XCTAssertEqual(dropped.values.reduce(0, +), run.ledger.filter { $0.status == "dropped" }.count)
            // The ledger's bytes are the bytes written.
            let lines = try String(contentsOf: Harness.temporaryFile("chosen-\(wait).jsonl"), encoding: .utf8).split(separator: "\n")
            let written = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
                .filter { $0["status"] as? String != "dropped" }.reduce(0) { $0 + ($1["bytes"] as! Int) }
            XCTAssertEqual(written, try Data(contentsOf: run.out).count)
        }
    }

    func testSenderThatNeverAdvancesTheTimestampIsTimedFromTheVUI() throws {
        // FFmpeg with -c copy from a raw .h264 with B-frames: every packet carries one RTP timestamp.
        let flv = Harness.temporaryFile("stuck.flv"), y4m = Harness.temporaryFile("stuck.y4m")
        let run = try replay("ffmpeg-stuck-ts.pcap", ["--flv", flv.path, "--y4m", y4m.path])
        // Said once, as it happens.
        XCTAssertEqual(run.stderr.components(separatedBy: "warning: stream").count - 1, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("timing from the SPS VUI (30 frames/s)"), run.stderr)
        try Harness.assertTagTimesStepByAFrame(flv, frames: 120)
        XCTAssertTrue(try Harness.y4mHeader(y4m).hasPrefix("YUV4MPEG2 W320 H240 F30:1 "))
        XCTAssertEqual(run.stream["frames_retimed"] as? Int, 119)
        // In display order, B-frames in their place (pic_order_cnt): one frame apart once sorted.
        XCTAssertEqual(run.ledger.map(\.pts_ms).sorted(), (0..<120).map { $0 * 100 / 3 })
        XCTAssertNotEqual(run.ledger.map(\.pts_ms), run.ledger.map(\.pts_ms).sorted())
        XCTAssertEqual(try Harness.frameMD5(flv), try Harness.frameMD5(source("ffmpeg-bframes.h264")))
    }
}
