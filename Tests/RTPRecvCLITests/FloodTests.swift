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

    /// Peak private memory (RssAnon: what the process holds, not the capture's mapped page-cache pages)
    /// of one rtprecv run, in KiB, read from /proc as often as it can be while it runs.
    private func peakKiB(_ arguments: [String]) throws -> (Int, Harness.Result) {
        let process = Process()
        process.executableURL = Harness.binary
        process.arguments = arguments
        let errors = Harness.temporaryFile("peak-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        var peak = 0
        while process.isRunning {
            let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
            if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
               let kib = Int(line.split(separator: " ").dropFirst().first ?? "") {
                peak = max(peak, kib)
            }
        }
        process.waitUntilExit()
        XCTAssertGreaterThan(peak, 0, "no sample of RssAnon")
        return (peak, Harness.Result(status: process.terminationStatus, stdout: Data(),
                                     stderr: try String(contentsOf: errors, encoding: .utf8)))
    }

    func testPrivateMemoryIsFlatInTheCapturesLength() throws {
        let once = try Data(contentsOf: Harness.captures.appendingPathComponent("ffmpeg-1080p.pcap"))
        var peaks: [Int] = []
        for repeats in [1, 16] {
            var data = once
            for _ in 1..<repeats { data.append(once[24...]) }
            let file = Harness.temporaryFile("flat-\(repeats).pcap")
            try data.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let (peak, result) = try peakKiB(["--pcap", file.path, "--out", "/dev/null"])
            XCTAssertEqual(result.status, 0, result.stderr)
            peaks.append(peak)
        }
        // 42 MB of capture more, and not 2 MB of private memory more.
        XCTAssertLessThan(peaks[1] - peaks[0], 2 << 10, "peaks \(peaks) KiB")
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
        let stats = Harness.temporaryFile("flood.json")
        let (peak, result) = try peakKiB(["--pcap", file.path, "--out", "/dev/null", "--stats-json", stats.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        // 16 SSRCs followed (the default --max-streams); the other 4,984 counted, a packet a round.
        let counters = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any])
        XCTAssertGreaterThanOrEqual(counters["streams_over_limit"] as? Int ?? 0, 4 * (5000 - 16), result.stderr)
        XCTAssertTrue(result.stderr.contains(" streams over limit"), result.stderr)
        // README: memory is bounded by the caps: under 32 MB of private memory with the defaults.
        XCTAssertLessThan(peak, 32 << 10, "peak RssAnon \(peak) KiB")
    }
}

/// A hostile stream beside good ones, live: every stream's work in a loop turn is bounded, so a
/// flood on one port costs the streams on the others nothing.
final class FloodBesideGoodStreamsTests: XCTestCase {
    func testAnEndlessFUAFloodBesideTenGoodStreamsCostsThemNothing() throws {
        let base = UInt16(43000 + Int(getpid() % 400) * 12)
        let dir = try Harness.emptyDirectory("flood-beside")
        let stats = dir.appendingPathComponent("stats.json")
        let listener = try LiveTests.Listener(["--port", "\(base)-\(base + 10)", "--bind", "127.0.0.1", "--out", dir.path + "/{port}.h264",
                                               "--stats-json", stats.path], name: "flood-beside")
        XCTAssertEqual(try CaptureSender.send(base: base, count: 10, capture: "ffmpeg-inband.pcap", flood: true), 0)
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        let source = try Harness.frameMD5(Harness.captures.appendingPathComponent("ffmpeg-inband.h264"))
        XCTAssertEqual(source.count, 90)
        for port in base..<(base + 10) {
            XCTAssertEqual(try Harness.frameMD5(dir.appendingPathComponent("\(port).h264")), source, "port \(port) beside the flood")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("\(base + 10).h264").path),
                       "the flood wrote nothing")
        // The flood did arrive, as a stream that never made a frame.
        XCTAssertTrue(listener.stderr.contains("all streams: 10 video of 11 streams followed"), listener.stderr)
    }
}
