import Foundation
import XCTest

/// A matrix of damage done to the GStreamer capture: loss from 0.1% to 10%, bursts, reordering up to
/// 50 places and duplicates. Every intact frame is kept and no damaged one written (with
/// --wait-keyframe), checked by ffmpeg's framemd5 against the source.
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

    /// The RTP timestamp of a tcpdump frame: Ethernet, a 20-byte IPv4 header, UDP, RTP.
    private func timestamp(_ frame: [UInt8]) -> UInt32 {
        frame[46..<50].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private func run(_ name: String, _ records: [Record], extra: [String] = []) throws -> [String] {
        let pcap = Harness.temporaryFile("matrix-\(name).pcap"), out = Harness.temporaryFile("matrix-\(name).h264")
        try write(records, to: pcap)
        let r = try Harness.rtprecv(["--pcap", pcap.path, "--out", out.path, "--wait-keyframe", "-q"] + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        return try Harness.frameMD5(out)
    }

    /// The frames that must come out when the packets at `dropped` are lost.
    private func expected(dropping dropped: Set<Int>, from records: [Record], source: [String]) throws -> [String] {
        let expect = try Harness.expectation("gst-loss2")  // AU timestamps and keyframes of the clean capture
        let damaged = Set(dropped.map { timestamp(records[$0].frame) })
        var kept: [String] = []
        var waiting = true
        for (i, ts) in expect.au_timestamps.enumerated() {
            if damaged.contains(ts) { waiting = true; continue }
            if waiting && !expect.keyframe[i] { continue }
            waiting = false
            kept.append(source[i])
        }
        return kept
    }

    func testLossRatesAndBursts() throws {
        let records = try readCapture()
        let source = try Harness.frameMD5(Harness.captures.appendingPathComponent("gst-stapa-fua.h264"))
        var cases: [(String, Set<Int>)] = []
        for (n, rate) in [0.001, 0.005, 0.01, 0.02, 0.05, 0.10].enumerated() {
            var rng = SplitMix(state: UInt64(n + 1))
            cases.append(("loss\(rate)", Set(records.indices.filter { _ in rng.unit() < rate })))
        }
        cases.append(("bursts", Set(Array(30..<36) + Array(150..<175) + Array(300..<330))))
        for (name, dropped) in cases {
            let kept = records.indices.filter { !dropped.contains($0) }.map { records[$0] }
            XCTAssertEqual(try run(name, kept), try expected(dropping: dropped, from: records, source: source), name)
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
