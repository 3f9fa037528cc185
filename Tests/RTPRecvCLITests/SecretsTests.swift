import Foundation
import XCTest

/// Passwords, query credentials and keys never appear in anything rtprecv shows: stdout, stderr,
/// the statistics JSON, the frame ledger, /metrics and /healthz. Each path is run with a sentinel
/// secret, and every output is searched for it.
final class SecretsTests: XCTestCase {
    private let sentinel = "S3ntinelSecret"
    private let port = UInt16(43000 + Int(getpid() % 500) * 2)

    private func assertNoSentinel(_ texts: [String], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for text in texts { XCTAssertFalse(text.contains(sentinel), "\(what): \(text)", file: file, line: line) }
    }

    private func read(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }

    /// Malformed RTSP URLs (a leading space, one slash, an rtsp URL given to --pcap), a pasted
    /// a=crypto value, a key after an unknown suite, keying material with a wrong suite, an RTMP key.
    func testMessagesOfBadInputMaskEverySecret() throws {
        let key = "SENTINEL" + sentinel + "0123456789abcdefABCDEF"
        let cases: [[String]] = [
            [" rtsp://admin:\(sentinel)@127.0.0.1:1/x"], ["rtsp:/admin:\(sentinel)@127.0.0.1:1/x"],
            ["rtsp:admin:\(sentinel)@127.0.0.1:1/x"], ["--pcap", "rtsp://admin:\(sentinel)@cam/x"],
            ["rtsp://127.0.0.1:1/x?user=admin&password=\(sentinel)"], ["rtsp://u:\(sentinel)@127.0.0.1:1/x"],
            ["--port", "0", "--srtp-key", "\(key)|2^31|1:1"], ["--port", "0", "--srtp-key", "1 AES_CM_128_HMAC_SHA1_80 inline:\(key)|2^20"],
            ["--port", "0", "--srtp-key", "\(key):\(key)"], ["--port", "0", "--srtp-key", "AES_CM_128_HMAC_SHA1_80:\(sentinel)"],
            ["--port", "0", "--srtp-keying-material", "\(sentinel):00"], ["--port", "0", "--password", sentinel],
            ["--pcap", Harness.captures.appendingPathComponent("gst-stapa-fua.pcap").path, "--rtmp", "rtmp://127.0.0.1:1/live/\(sentinel)"],
            ["--pcap", Harness.captures.appendingPathComponent("gst-stapa-fua.pcap").path, "--rtmp", "rtmp://u:\(sentinel)@127.0.0.1:1/live/k"],
        ]
        for arguments in cases {
            let r = try Harness.rtprecv(arguments + ["--duration", "0.2"].filter { _ in arguments.first == "--port" })
            XCTAssertNotEqual(r.status, 0, "\(arguments)")
            assertNoSentinel([r.stderr, String(decoding: r.stdout, as: UTF8.self)], "\(arguments)")
        }
    }

    /// A whole RTSP pull with the password in the URL and credentials in its query: stderr, the
    /// statistics, the ledger, /metrics and /healthz.
    func testAnRTSPPullShowsNoSecretAnywhere() throws {
        let camera = try Harness.startServer("fake-camera", ["--port", "\(port)",
                                                             "--pcap", Harness.captures.appendingPathComponent("ffmpeg-mode0.pcap").path,
                                                             "--sdp", Harness.captures.appendingPathComponent("ffmpeg-mode0.sdp").path])
        defer { camera.terminate(); camera.waitUntilExit() }
        let stats = Harness.temporaryFile("secrets.json"), ledger = Harness.temporaryFile("secrets.jsonl")
        let metricsPort = port + 1
        let process = Process()
        process.executableURL = Harness.binary
        process.arguments = ["rtsp://admin:\(sentinel)@127.0.0.1:\(port)/cam?user=admin&password=\(sentinel)", "--out", "/dev/null",
                             "--stats-json", stats.path, "--frames-json", ledger.path, "--metrics", "\(metricsPort)", "--duration", "4", "-v"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        Thread.sleep(forTimeInterval: 2.5)
        var pages: [String] = []
        for path in ["/metrics", "/healthz"] {
            let page = try Harness.run("curl", ["-s", "http://127.0.0.1:\(metricsPort)\(path)"])
            pages.append(String(decoding: page.stdout, as: UTF8.self))
        }
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        XCTAssertTrue(stderr.contains("password=***"), stderr)
        XCTAssertTrue(pages[0].contains("rtprecv_packets_total"), pages[0])
        assertNoSentinel([stderr, read(stats), read(ledger)] + pages, "RTSP pull")
    }
}
