import Foundation
import XCTest

/// The command-line contract: help and version on stdout, usage errors exit 64 with the usual lines.
final class CommandLineTests: XCTestCase {
    func testHelpGoesToStdoutAndExitsZero() throws {
        let result = try Harness.rtprecv(["--help"])
        XCTAssertEqual(result.status, 0)
        let text = String(decoding: result.stdout, as: UTF8.self)
        for section in ["OVERVIEW:", "USAGE:", "EXAMPLES:", "--pcap", "--wait-keyframe", "--latency-ms"] {
            XCTAssertTrue(text.contains(section), "help lacks \(section)")
        }
        XCTAssertEqual(result.stderr, "")
    }

    func testVersionGoesToStdout() throws {
        let result = try Harness.rtprecv(["--version"])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(String(decoding: result.stdout, as: UTF8.self).hasPrefix("rtprecv "))
    }

    func testUsageErrorsExit64WithErrorUsageAndHint() throws {
        for arguments in [["--bogus"], ["--pcap"], ["--pcap", "x", "--ssrc", "nope"], [], ["--pcap", "x", "--port", "70000"],
                          ["rtsp://cam/x", "--sdp", "a.sdp"], ["--user", "admin", "--port", "5004"], ["rtsp://cam:0/x"],
                          ["rtsp://cam/x", "--rtsp-transport", "quic"], ["rtsp://u:hunter2@cam/x", "rtsp://cam/y"]] {
            let result = try Harness.rtprecv(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments)")
            let lines = result.stderr.split(separator: "\n")
            XCTAssertTrue(lines.first?.hasPrefix("Error: ") ?? false, result.stderr)
            XCTAssertTrue(lines.contains { $0.hasPrefix("Usage: ") }, result.stderr)
            XCTAssertEqual(lines.last, "See 'rtprecv --help' for more information.")
            XCTAssertFalse(result.stderr.contains("hunter2"), result.stderr)
        }
        // A capture's name alone, as ffprobe takes it: the error says how to give it.
        let bare = try Harness.rtprecv(["--list", "cam.pcapng"])
        XCTAssertEqual(bare.status, 64)
        XCTAssertTrue(bare.stderr.hasPrefix("Error: unexpected argument 'cam.pcapng': to replay a capture, give --pcap cam.pcapng\n"),
                      bare.stderr)
    }

    /// Numbers out of range are usage errors, never a trap in a conversion later (1e10 seconds once
    /// trapped in the conversion to nanoseconds).
    func testEveryNumericOptionIsRangeChecked() throws {
        let cases: [[String]] = [["--duration", "1e10"], ["--timeout", "inf"], ["--duration", "nan"], ["--timeout", "-1"],
                                 ["--frames", "0"], ["--frames", "99999999999999999999"], ["--rcvbuf", "1"], ["--reorder-packets", "0"],
                                 ["--latency-ms", "-5"], ["--max-frame-bytes", "1e9"], ["--max-packet-bytes", "1000000"],
                                 ["--max-streams", "0"], ["--threads", "65"], ["--interleave-ms", "60001"], ["--segment-seconds", "0"],
                                 ["--rtmp-queue-ms", "1"], ["--payload-type", "128"], ["--audio-port", "0"], ["--ssrc", "0x1ffffffff"],
                                 ["--scale", "0x0"], ["--rtcp-to", "127.0.0.1:70000"], ["--metrics", "99999"], ["--port", "5004-70000"]]
        for extra in cases {
            let result = try Harness.rtprecv(["--port", "5004"] + extra)
            XCTAssertEqual(result.status, 64, "\(extra): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("Error: invalid value '\(extra[1])' for '\(extra[0])'"), "\(extra): \(result.stderr)")
        }
    }

    /// An output that is the input (by path, through a symbolic link, or a hard link) or two outputs
    /// that are one file are refused before anything is opened: the capture is left whole.
    func testAnOutputThatIsTheInputOrAnotherOutputIsRefused() throws {
        let directory = try Harness.emptyDirectory("collisions")
        let capture = directory.appendingPathComponent("copy.pcap").path
        let original = try Data(contentsOf: Harness.captures.appendingPathComponent("gst-stapa-fua.pcap"))
        try original.write(to: URL(fileURLWithPath: capture))
        XCTAssertEqual(symlink(capture, directory.appendingPathComponent("link.pcap").path), 0)
        XCTAssertEqual(link(capture, directory.appendingPathComponent("hard.pcap").path), 0)
        let out = directory.appendingPathComponent("x.h264").path
        for (arguments, said) in [(["--pcap", capture, "--out", capture], "would overwrite the input"),
                                  (["--pcap", directory.appendingPathComponent("link.pcap").path, "--frames-json", capture], "would overwrite the input"),
                                  (["--pcap", capture, "--stats-json", directory.appendingPathComponent("hard.pcap").path], "would overwrite the input"),
                                  (["--pcap", capture, "--out", out, "--flv", directory.path + "/./x.h264"], "are one file"),
                                  (["--pcap", capture, "--out", directory.path + "/r/{ssrc}.h264", "--frames-json", directory.path + "/r/{ssrc}.h264"],
                                   "are one file")] {
            let result = try Harness.rtprecv(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("Error: ") && result.stderr.contains(said), "\(arguments): \(result.stderr)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: capture)), original, "the capture is untouched")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        let shared = try Harness.rtprecv(["--pcap", capture, "--out", "/dev/null", "--flv", "/dev/null", "-q"])
        XCTAssertEqual(shared.status, 0, "outputs may share a device: \(shared.stderr)")
    }

    func testHexSSRCIsAccepted() throws {
        let result = try Harness.rtprecv(["--pcap", Harness.captures.appendingPathComponent("gst-stapa-fua.pcap").path,
                                          "--ssrc", "0xdeadbeef", "-q"])
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    func testUnwritableOutputExitsOneNamingIt() throws {
        // A directory that cannot be: its parent is a file.
        let capture = Harness.captures.appendingPathComponent("gst-stapa-fua.pcap").path
        let result = try Harness.rtprecv(["--pcap", capture, "--out", capture + "/out.h264"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains(capture + "/out.h264: Not a directory"), result.stderr)
    }

    /// The directories an output's path names are made as needed: a template's per source or per
    /// port, which nobody can make beforehand, and a plain path's.
    func testOutputsDirectoriesAreMade() throws {
        let root = try Harness.emptyDirectory("made-directories")
        let out = root.appendingPathComponent("a/b/out.h264"), segments = root.appendingPathComponent("a/c/d")
        let capture = ["--pcap", Harness.captures.appendingPathComponent("ffmpeg-inband.pcap").path, "-q"]
        let plain = try Harness.rtprecv(capture + ["--out", out.path])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(try Harness.frameMD5(out).count, 90)
        let result = try Harness.rtprecv(capture + ["--mp4", segments.path + "/{n}.mp4", "--segment-seconds", "1"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let files = try FileManager.default.contentsOfDirectory(atPath: segments.path).sorted()
        XCTAssertEqual(files, ["0.mp4", "1.mp4", "2.mp4"])
        for file in files { XCTAssertEqual(try Harness.decodeErrors(segments.appendingPathComponent(file)), "", file) }
    }

    func testReaderThatGoesAwayEndsTheRunWithAMessage() throws {
        // `--out -` into a reader that stops after 100 bytes: EPIPE, a message, exit 1, no SIGPIPE death.
        let capture = Harness.captures.appendingPathComponent("ffmpeg-1080p.pcap").path
        let r = try Harness.run("bash", ["-c", "'\(Harness.binary.path)' --pcap '\(capture)' --out - 2>/tmp/rtprecv-epipe-$$.err | head -c 100 >/dev/null; "
                                          + "status=${PIPESTATUS[0]}; cat /tmp/rtprecv-epipe-$$.err; rm -f /tmp/rtprecv-epipe-$$.err; exit $status"])
        XCTAssertEqual(r.status, 1, String(decoding: r.stdout, as: UTF8.self))
        XCTAssertTrue(String(decoding: r.stdout, as: UTF8.self).contains("closed by its reader (broken pipe)"))
    }

    func testReadOnlyPathExitsOneNamingIt() throws {
        // sysfs takes no new files, even from root.
        let result = try Harness.rtprecv(["--pcap", Harness.captures.appendingPathComponent("gst-stapa-fua.pcap").path,
                                          "--out", "/sys/rtprecv-out.h264"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("/sys/rtprecv-out.h264"), result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
    }

    func testFullDiskExitsOne() throws {
        let result = try Harness.rtprecv(["--pcap", Harness.captures.appendingPathComponent("gst-stapa-fua.pcap").path,
                                          "--out", "/dev/full"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("No space left"), result.stderr)
    }
}
