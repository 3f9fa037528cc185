import Foundation
import XCTest

/// Hostile floods: memory stays bounded (the caps of README's threat model) and nothing crashes.
final class FloodTests: XCTestCase {
    /// A raw-IP pcap of UDP datagrams to 127.0.0.1:5004, one millisecond apart.
    private func pcap(_ datagrams: [[UInt8]]) -> Data {
        TestPcap.data(linkType: 101, records: datagrams.enumerated().map { n, d in
            (UInt64(1_700_000_000) * 1_000_000_000 + UInt64(n) * 1_000_000, TestPcap.udpFrame(d, ethernet: false))
        })
    }

    /// Peak resident memory of one rtprecv run, in KiB, from /usr/bin/time.
    private func peakKiB(_ arguments: [String]) throws -> (Int, Harness.Result) {
        let result = try Harness.run("/usr/bin/time", ["-f", "peak %M", Harness.binary.path] + arguments)
        let line = try XCTUnwrap(result.stderr.split(separator: "\n").last { $0.hasPrefix("peak ") })
        return (Int(line.dropFirst(5))!, result)
    }

    func testFUAStartsAcrossThousandsOfSSRCsAndRandomDatagramsStayBounded() throws {
        var rng = SystemRandomNumberGenerator()
        var datagrams: [[UInt8]] = []
        // 5,000 SSRCs, each starting large FU-A units that never end, with sequential numbers.
        for round in 0..<4 {
            for s in 0..<5000 {
                let seq = UInt16(round)
                datagrams.append([0x80, 96, UInt8(seq >> 8), UInt8(seq & 0xFF), 0, 0, 0x10, 0,
                                  UInt8(s >> 8), UInt8(s & 0xFF), 0xAB, 0xCD, 0x7C, round == 0 ? 0x85 : 0x05]
                                 + Array(repeating: 0x42, count: 1200))
            }
        }
        // And 20,000 random datagrams.
        for _ in 0..<20000 {
            datagrams.append((0..<Int.random(in: 1..<1400, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        }
        let file = Harness.temporaryFile("flood.pcap")
        try pcap(datagrams).write(to: file)
        let (peak, result) = try peakKiB(["--pcap", file.path, "--out", "/dev/null", "--stats-json", "/dev/null"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("streams over --max-streams") || result.stderr.contains("no H.264 stream found"),
                      result.stderr)
        // README: memory is bounded by the caps: under 40 MB with the defaults, FFmpeg's libraries included.
        XCTAssertLessThan(peak, 40 << 10, "peak RSS \(peak) KiB")
    }
}
