import Foundation
import XCTest

/// A matrix of damage: loss from 0.1% to 10% and bursts on the GStreamer capture, and losses of
/// non-reference B-frames only on FFmpeg's, made by `scripts/damage-captures --matrix` with the
/// output and the frame ledger of a reference receiver; and reordering up to 50 places and
/// duplicates. Frames are checked with ffmpeg's framemd5 against the source.
final class LossMatrixTests: XCTestCase {
    struct Record { var time: UInt64; var frame: [UInt8] }

    /// A deterministic generator, so that a failure can be replayed.
    struct SplitMix { var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    }

    private func readCapture() throws -> [Record] {
        try TestPcap.records(of: Harness.captures.appendingPathComponent("gst-stapa-fua.pcap")).map {
            Record(time: $0.microseconds, frame: $0.frame)
        }
    }

    private func write(_ records: [Record], to url: URL) throws {
        // Capture times stay in arrival order whatever was done to the packets.
        let times = records.map(\.time).sorted()
        try TestPcap.data(linkType: 1, records: zip(times, records).map { ($0 * 1000, $1.frame) }).write(to: url)
    }

    private func run(_ name: String, _ records: [Record], extra: [String] = []) throws -> [String] {
        let pcap = Harness.temporaryFile("matrix-\(name).pcap"), out = Harness.temporaryFile("matrix-\(name).h264")
        try write(records, to: pcap)
        let r = try Harness.rtprecv(["--pcap", pcap.path, "--out", out.path, "--wait-keyframe", "-q"] + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        return try Harness.frameMD5(out)
    }

    func testLossMatricesGiveTheReferenceFramesAndLedger() throws {
        let dir = Harness.temporaryFile("loss-matrix")
        let made = try Harness.run("python3", [Harness.packageRoot.appendingPathComponent("scripts/damage-captures").path,
                                               "--matrix", dir.path])
        XCTAssertEqual(made.status, 0, made.stderr)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".pcap") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 10)
        var sources: [String: [String]] = [:]
        for name in names {
            let variant = String(name.dropLast(".pcap".count))
            let expect = try JSONDecoder().decode(Harness.Expectation.self,
                                                  from: Data(contentsOf: dir.appendingPathComponent(variant + ".expect.json")))
            if sources[expect.source] == nil {
                sources[expect.source] = try Harness.frameMD5(Harness.captures.appendingPathComponent(expect.source))
            }
            let sdp = expect.sdp.map { ["--sdp", Harness.captures.appendingPathComponent($0).path] } ?? []
            for wait in [true, false] {
                let out = Harness.temporaryFile("\(variant)-\(wait).h264"), ledger = Harness.temporaryFile("\(variant)-\(wait).jsonl")
                let r = try Harness.rtprecv(["--pcap", dir.appendingPathComponent(name).path, "--out", out.path,
                                             "--frames-json", ledger.path, "-q"] + sdp + (wait ? ["--wait-keyframe"] : []))
                XCTAssertEqual(r.status, 0, r.stderr)
                Harness.assertLedger(try Harness.ledger(ledger), wait ? expect.ledger_wait! : expect.ledger!, "\(variant) wait \(wait)")
                if wait {
                    XCTAssertEqual(try Harness.frameMD5(out), Harness.frames(expect.frames_wait!, of: sources[expect.source]!), variant)
                } else {
                    XCTAssertTrue(try Harness.probe(out, "stream=nb_read_packets").contains("nb_read_packets=\(expect.frames!.count)\n"),
                                  "\(variant): \(expect.frames!.count) access units expected")
                }
            }
        }
    }

    func testReorderingUpTo50PlacesAndDuplicatesLoseNothing() throws {
        let records = try readCapture()
        let source = try Harness.frameMD5(Harness.captures.appendingPathComponent("gst-stapa-fua.h264"))
        for depth in [1, 3, 10, 25, 50] {
            var rng = SplitMix(state: UInt64(depth))
            let keys = records.indices.map { Double($0) + rng.unit() * Double(depth) }
            let shuffled = records.indices.sorted { keys[$0] < keys[$1] }.map { records[$0] }
            // 50 places in this stream is about half a second: the latency bound must cover it.
            XCTAssertEqual(try run("reorder\(depth)", shuffled, extra: ["--latency-ms", "2000"]), source,
                           "reordered by up to \(depth)")
        }
        var rng = SplitMix(state: 99)
        var duplicated: [Record] = []
        for r in records {
            duplicated.append(r)
            if rng.unit() < 0.1 { duplicated.insert(r, at: max(0, duplicated.count - 1 - Int(rng.next() % 4))) }
        }
        XCTAssertEqual(try run("duplicates", duplicated), source)
    }
}
