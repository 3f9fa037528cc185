import Foundation
import XCTest

/// The loss matrix of VP8, VP9 and AV1, as H.264 has its own: packets lost at random (seeded, so a
/// failure replays) from real senders' captures, and, for VP8 with temporal layers, losses in the
/// upper layers only. What a receiver may claim is checked against the ffmpeg CLI, not against
/// rules restated here: with --wait-keyframe every frame written decodes to the very picture the
/// source decodes to (a frame wrongly called intact would not); without it every frame written is
/// the encoder's frame, byte for byte; either way every frame of which a packet came is in the
/// ledger, once, in order.
final class WebRTCLossMatrixTests: XCTestCase {
    private struct Case {
        var name: String
        var pcap: URL
        var source: URL
        var options: [String] = []
        var rates = [0.01, 0.03, 0.1]
    }

    private func cases() throws -> [Case] {
        let capture = FrameCaptures.capture
        var cases = ["gst-vp8", "gst-vp8-layers2", "gst-vp8-layers3", "gst-vp9"].map {
            Case(name: $0, pcap: capture($0 + ".pcap"), source: capture($0 + ".webm"))
        }
        // AV1's keyframes span many packets: lower rates, or nothing is left to check.
        let script = Harness.packageRoot.appendingPathComponent("scripts/av1-rtp-packetize").path
        for (name, ivf, extra) in [("av1", "av1-source.ivf", []), ("av1-l1t3-dd", "av1-l1t3.ivf", ["--dependency-descriptor", "7"])] {
            let pcap = Harness.temporaryFile("matrix-\(name).pcap")
            let packetized = try Harness.run("/usr/bin/python3", [script, capture(ivf).path, pcap.path, "--mtu", "500"] + extra)
            XCTAssertEqual(packetized.status, 0, packetized.stderr)
            cases.append(Case(name: name, pcap: pcap, source: capture(ivf), options: ["--codec", "av1"] + extra, rates: [0.005, 0.01, 0.02]))
        }
        return cases
    }

    func testRandomLossesNeverYieldAFrameThatIsNotTheSources() throws {
        for c in try cases() {
            let frames = try FrameCaptures.frames(of: c.pcap)
            let timestamps = frames.map(\.timestamp)
            let pictures = try Harness.frameMD5(c.source), bytes = try FrameCaptures.packetHashes(c.source)
            XCTAssertEqual(pictures.count, frames.count, "\(c.name): one picture a frame")
            var written = 0
            for rate in c.rates {
                for seed in UInt64(1)...3 {
                    var rng = LossMatrixTests.SplitMix(state: seed)
                    // The first packet stays: a capture that begins with a loss is another test.
                    let kept = frames.enumerated().map { n, frame in
                        frame.packets.enumerated().filter { (n == 0 && $0.offset == 0) || rng.unit() >= rate }.map(\.element)
                    }
                    let variant = "\(c.name)-\(rate)-\(seed)"
                    written += try check(variant, kept: kept, timestamps: timestamps, pictures: pictures, bytes: bytes, options: c.options)
                }
            }
            XCTAssertGreaterThan(written, frames.count, "\(c.name): enough written over the matrix to judge")
        }
    }

    /// VP8 with temporal layers: losses in the layers above 0 alone never cost a frame of a lower
    /// layer, and with two layers they cost only the frames that lost packets.
    func testUpperLayerLossesCostNoLowerLayerFrame() throws {
        for (name, layers) in [("gst-vp8-layers2", 2), ("gst-vp8-layers3", 3)] {
            let frames = try FrameCaptures.frames(of: FrameCaptures.capture(name + ".pcap"), layer: VP8Tests.tid)
            let pictures = try Harness.frameMD5(FrameCaptures.capture(name + ".webm"))
            let bytes = try FrameCaptures.packetHashes(FrameCaptures.capture(name + ".webm"))
            for seed in UInt64(1)...3 {
                var rng = LossMatrixTests.SplitMix(state: seed)
                let kept = frames.map { frame in frame.packets.filter { _ in frame.layer == 0 || rng.unit() >= 0.2 } }
                let (ledger, _) = try replay("\(name)-upper-\(seed)", kept, wait: false)
                let damaged = Set(zip(frames.indices, kept).filter { $0.1.count < frames[$0.0].packets.count }.map(\.0))
                XCTAssertFalse(damaged.isEmpty)
                let place = Dictionary(uniqueKeysWithValues: frames.enumerated().map { ($0.element.timestamp, $0.offset) })
                for record in ledger {
                    let n = place[record.ts]!
                    if frames[n].layer == 0 {
                        XCTAssertTrue(record.status == "written" && record.refs_intact, "\(name) seed \(seed): frame \(n) of layer 0: \(record)")
                    } else if layers == 2 && !damaged.contains(n) {
                        XCTAssertTrue(record.status == "written" && record.refs_intact, "\(name) seed \(seed): frame \(n) lost nothing: \(record)")
                    }
                }
                _ = try check("\(name)-upper-\(seed)", kept: kept, timestamps: frames.map(\.timestamp), pictures: pictures, bytes: bytes, options: [])
            }
        }
    }

    // MARK: Checks

    /// `kept` replayed with and without --wait-keyframe, checked as the class says; the frames
    /// written with --wait-keyframe.
    private func check(_ variant: String, kept: [[FrameCaptures.Packet]], timestamps: [UInt32], pictures: [String], bytes: [String],
                       options: [String]) throws -> Int {
        let arrived = zip(timestamps, kept).filter { !$0.1.isEmpty }.map(\.0)
        let place = Dictionary(uniqueKeysWithValues: timestamps.enumerated().map { ($0.element, $0.offset) })
        var writtenWaiting = 0
        for wait in [true, false] {
            let (ledger, ivf) = try replay("\(variant)-\(wait)", kept, wait: wait, options: options)
            // From the first frame the ledger has (frames before a first keyframe may leave no record).
            let first = ledger.first.flatMap { arrived.firstIndex(of: $0.ts) } ?? arrived.count
            XCTAssertEqual(ledger.map(\.ts), Array(arrived[first...]), "\(variant) wait \(wait): every frame that came, once, in order")
            let written = ledger.filter { $0.status == "written" }
            XCTAssertTrue(ledger.allSatisfy { $0.status == "written" || $0.status == "dropped" }, "\(variant): nothing repaired")
            guard !written.isEmpty else { continue }
            if wait {
                writtenWaiting = written.count
                XCTAssertTrue(written.allSatisfy(\.refs_intact), "\(variant): --wait-keyframe writes only intact frames")
                XCTAssertEqual(try Harness.frameMD5(ivf), written.map { pictures[place[$0.ts]!] },
                               "\(variant): every frame written decodes to the source's picture")
            } else {
                XCTAssertEqual(try FrameCaptures.packetHashes(ivf), written.map { bytes[place[$0.ts]!] },
                               "\(variant): every frame written is the encoder's")
            }
        }
        return writtenWaiting
    }

    private func replay(_ variant: String, _ kept: [[FrameCaptures.Packet]], wait: Bool,
                        options: [String] = []) throws -> (ledger: [Harness.LedgerRecord], ivf: URL) {
        let pcap = try FrameCaptures.pcap(kept.flatMap { $0 }, name: "matrix-\(variant)")
        let (ivf, ledger, _) = try FrameCaptures.replay(pcap, options + (wait ? ["--wait-keyframe"] : []), name: "matrix-\(variant)")
        return (ledger, ivf)
    }
}
