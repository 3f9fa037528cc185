import Foundation
import XCTest

/// `--pcap -`: a capture read from a pipe as it is written, as from `tcpdump -U -w - | rtprecv --pcap -`.
final class StandardInputTests: XCTestCase {
    private func capture(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    /// rtprecv reading standard input from a pipe this test writes to.
    private func start(_ arguments: [String], name: String) throws -> (process: Process, input: Pipe, err: URL) {
        let process = Process(), input = Pipe(), err = Harness.temporaryFile(name + ".err")
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.executableURL = Harness.binary
        process.arguments = ["--pcap", "-"] + arguments
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        return (process, input, err)
    }

    private func waitForExit(_ process: Process, seconds: TimeInterval = 30) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return Date() < deadline
    }

    private func replayOutput(_ name: String) throws -> Data {
        let out = Harness.temporaryFile(name + "-file.h264")
        XCTAssertEqual(try Harness.rtprecv(["--pcap", capture(name).path, "--out", out.path, "-q"]).status, 0)
        return try Data(contentsOf: out)
    }

    func testCapturesTrickledThroughAPipeGiveWhatTheFilesGive() throws {
        for name in ["gst-stapa-fua.pcap", "gst-pcapng.pcapng"] {
            let out = Harness.temporaryFile(name + "-pipe.h264")
            let (process, input, err) = try start(["--out", out.path, "-q"], name: name)
            let bytes = try Data(contentsOf: capture(name))
            // Pieces that cut headers, records and blocks anywhere, with pauses between some.
            var offset = 0, piece = 0
            while offset < bytes.count {
                let size = [777, 5, 4096, 31][piece % 4]
                try input.fileHandleForWriting.write(contentsOf: bytes[offset..<min(offset + size, bytes.count)])
                offset += size
                piece += 1
                if piece % 16 == 0 { usleep(1000) }
            }
            try input.fileHandleForWriting.close()
            XCTAssertTrue(waitForExit(process))
            XCTAssertEqual(process.terminationStatus, 0, (try? String(contentsOf: err, encoding: .utf8)) ?? "")
            XCTAssertEqual(try Data(contentsOf: out), try replayOutput(name), name)
        }
    }

    /// A named pipe (or a shell's process substitution, `--pcap <(tcpdump -w - …)`) is read once:
    /// no first look at the capture (its signalling, a key log's handshakes) may consume it.
    func testANamedPipeGivesWhatTheFileGives() throws {
        let fifo = Harness.temporaryFile("capture.fifo"), out = Harness.temporaryFile("fifo.h264")
        try? FileManager.default.removeItem(at: fifo)
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "cat '\(capture("gst-stapa-fua.pcap").path)' > '\(fifo.path)'"]
        try writer.run()
        let r = try Harness.rtprecv(["--pcap", fifo.path, "--out", out.path, "-q"])
        writer.waitUntilExit()
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try Data(contentsOf: out), try replayOutput("gst-stapa-fua.pcap"))
    }

    func testCtrlCEndsAReplayWhoseWriterStaysOpen() throws {
        let out = Harness.temporaryFile("open-pipe.h264")
        let (process, input, err) = try start(["--out", out.path], name: "open-pipe")
        try input.fileHandleForWriting.write(contentsOf: try Data(contentsOf: capture("gst-stapa-fua.pcap")))
        usleep(500_000)
        process.interrupt()
        XCTAssertTrue(waitForExit(process, seconds: 10), "SIGINT did not end the replay")
        let stderr = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        XCTAssertTrue(stderr.contains("stopped by SIGINT"), stderr)
        XCTAssertEqual(try Data(contentsOf: out), try replayOutput("gst-stapa-fua.pcap"))
        try input.fileHandleForWriting.close()
    }

    /// The real use: tcpdump writing packet by packet into rtprecv, from an FFmpeg sender.
    func testTcpdumpPipedIn() throws {
        try XCTSkipUnless(getuid() == 0, "tcpdump on lo needs root")
        let source = Harness.temporaryFile("tcpdump-source.h264")
        var r = try Harness.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "1",
                                           "-c:v", "libx264", "-preset", "veryfast", "-bf", "0", "-g", "15", source.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let port = 20000 + Int(getpid() % 20000)
        let tcpdump = Process(), pipe = Pipe(), tcpdumpErr = Harness.temporaryFile("tcpdump.err")
        _ = FileManager.default.createFile(atPath: tcpdumpErr.path, contents: nil)
        tcpdump.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tcpdump.arguments = ["tcpdump", "-i", "lo", "--immediate-mode", "-U", "-w", "-", "udp and dst port \(port)"]
        tcpdump.standardOutput = pipe
        tcpdump.standardError = try FileHandle(forWritingTo: tcpdumpErr)
        try tcpdump.run()
        let out = Harness.temporaryFile("tcpdump-out.h264"), err = Harness.temporaryFile("tcpdump-rtprecv.err")
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let rtprecv = Process()
        rtprecv.executableURL = Harness.binary
        rtprecv.arguments = ["--pcap", "-", "--out", out.path]
        rtprecv.standardInput = pipe
        rtprecv.standardError = try FileHandle(forWritingTo: err)
        try rtprecv.run()
        try pipe.fileHandleForWriting.close()  // rtprecv sees the end when tcpdump closes its side
        let deadline = Date().addingTimeInterval(20)
        while !((try? String(contentsOf: tcpdumpErr, encoding: .utf8)) ?? "").contains("listening"), Date() < deadline {
            usleep(20_000)
        }
        r = try Harness.run("ffmpeg", ["-v", "error", "-re", "-framerate", "30", "-i", source.path, "-c", "copy", "-f", "rtp",
                                       "rtp://127.0.0.1:\(port)"])
        XCTAssertEqual(r.status, 0, r.stderr)
        usleep(300_000)
        tcpdump.interrupt()
        tcpdump.waitUntilExit()
        XCTAssertTrue(waitForExit(rtprecv))
        XCTAssertEqual(rtprecv.terminationStatus, 0, (try? String(contentsOf: err, encoding: .utf8)) ?? "")
        XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(source))
    }
}
