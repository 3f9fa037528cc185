import Foundation
import XCTest

/// What the VP8 and VP9 tests share: a capture's frames as the encoder made them and as rtprecv
/// writes them, and captures with frames taken out.
enum FrameCaptures {
    static func capture(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    /// The MD5 of each frame's bytes as ffmpeg demuxes them (no decoding).
    static func packetHashes(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let result = try Harness.run("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v:0", "-c", "copy", "-f", "framemd5", "-"])
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        return Harness.hashes(result.stdout)
    }

    /// `pcap` replayed into an IVF and a ledger.
    static func replay(_ pcap: URL, _ extra: [String] = [], name: String,
                       file: StaticString = #filePath, line: UInt = #line) throws -> (ivf: URL, ledger: [Harness.LedgerRecord], stderr: String) {
        let ivf = Harness.temporaryFile(name + ".ivf"), ledger = Harness.temporaryFile(name + ".jsonl")
        let result = try Harness.rtprecv(["--pcap", pcap.path, "--out", ivf.path, "--frames-json", ledger.path] + extra)
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        return (ivf, try Harness.ledger(ledger), result.stderr)
    }

    typealias Packet = (microseconds: UInt64, rtp: [UInt8])

    /// A capture's RTP packets grouped by frame (timestamp), each frame with what `layer` reads from
    /// its first payload (read by the test, independently of rtprecv).
    static func frames(_ name: String, layer: ([UInt8]) -> Int? = { _ in nil }) throws -> [(layer: Int?, packets: [Packet])] {
        try frames(of: capture(name), layer: layer).map { ($0.layer, $0.packets) }
    }

    /// The frames of the capture at `url`, with their RTP timestamps.
    static func frames(of url: URL, layer: ([UInt8]) -> Int? = { _ in nil }) throws -> [(timestamp: UInt32, layer: Int?, packets: [Packet])] {
        var frames: [(timestamp: UInt32, layer: Int?, packets: [Packet])] = []
        for record in try TestPcap.records(of: url) {
            let rtp = Array(record.frame[42...])
            let timestamp = rtp[4...7].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if frames.last?.timestamp != timestamp {
                frames.append((timestamp, layer(Array(rtp[12...])), []))
            }
            frames[frames.count - 1].packets.append((record.microseconds, rtp))
        }
        return frames
    }

    /// `packets` as a pcap of their own.
    static func pcap(_ packets: [Packet], name: String) throws -> URL {
        let url = Harness.temporaryFile(name + ".pcap")
        try TestPcap.data(linkType: 1, records: packets.map { ($0.microseconds * 1000, TestPcap.udpFrame($0.rtp, ethernet: true)) })
            .write(to: url)
        return url
    }

    /// The capture without the frames at `lost`.
    static func without(_ lost: Set<Int>, of name: String) throws -> URL {
        let kept = try frames(name + ".pcap").enumerated().filter { !lost.contains($0.offset) }.flatMap { $0.element.packets }
        return try pcap(kept, name: "\(name)-without-\(lost.sorted())")
    }
}
