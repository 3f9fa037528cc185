import Foundation
import XCTest

/// `--sdp` given more than once, and `--sdp-dir`: a session an SDP, each recorded as that SDP
/// alone records it (video and audio, one FLV), into files named by {sdp}.
final class SessionsTests: XCTestCase {
    private func capture(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    /// Three senders' sessions in one capture, two with audio (AAC, PCMU) and one H.265 with its
    /// parameter sets only in its SDP: each session's files are those of a run of its SDP alone on
    /// its own capture, and the H.265 one's video is its source's.
    func testEverySessionOfThreeSDPsIsRecordedAsItsSDPAloneRecordsIt() throws {
        let names = ["ffmpeg-h264-aac", "gst-h264-pcmu", "ffmpeg-h265-global"]
        let pcap = try TestPcap.merged(names.map { $0 + ".pcap" }, name: "sessions")
        let dir = try Harness.emptyDirectory("sessions")
        let sdps = dir.appendingPathComponent("sdp")
        try FileManager.default.createDirectory(at: sdps, withIntermediateDirectories: true)
        for name in names { try FileManager.default.copyItem(at: capture(name + ".sdp"), to: sdps.appendingPathComponent(name + ".sdp")) }
        let stats = dir.appendingPathComponent("stats.json")
        let r = try Harness.rtprecv(["--pcap", pcap.path, "--sdp-dir", sdps.path, "--out", dir.path + "/{sdp}.es",
                                     "--flv", dir.path + "/{sdp}.flv", "--audio", dir.path + "/{sdp}.audio", "--stats-json", stats.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("sessions: 3 of 3 recorded"), r.stderr)
        for name in names {
            // The same SDP alone, on the session's own capture.
            let alone = Harness.temporaryFile("sessions-alone-\(name)")
            let one = try Harness.rtprecv(["--pcap", capture(name + ".pcap").path, "--sdp", capture(name + ".sdp").path,
                                           "--out", alone.path + ".es", "--flv", alone.path + ".flv", "--audio", alone.path + ".audio", "-q"])
            XCTAssertEqual(one.status, 0, one.stderr)
            for ext in ["es", "flv", "audio"] {
                let written = try Data(contentsOf: dir.appendingPathComponent("\(name).\(ext)"))
                XCTAssertEqual(written, try Data(contentsOf: URL(fileURLWithPath: alone.path + "." + ext)), "\(name).\(ext)")
            }
        }
        // Read by ffmpeg: the H.264 sessions' FLVs carry their audio beside the video, and the H.265
        // session's video is its source's.
        for name in names.prefix(2) {
            XCTAssertFalse(try Harness.packetMD5(dir.appendingPathComponent(name + ".flv")).isEmpty, "\(name) audio in the FLV")
            XCTAssertFalse(try Harness.videoMD5(dir.appendingPathComponent(name + ".flv")).isEmpty, "\(name) video in the FLV")
        }
        let h265 = Harness.temporaryFile("sessions-global.h265")
        try? FileManager.default.removeItem(at: h265)
        try FileManager.default.copyItem(at: dir.appendingPathComponent("ffmpeg-h265-global.es"), to: h265)
        XCTAssertEqual(try Harness.frameMD5(h265), try Harness.frameMD5(capture("ffmpeg-h265-global.h265")))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any])
        XCTAssertEqual((json["sessions"] as? [[String: Any]])?.count, 3)
    }

    func testSessionFlagsAreChecked() throws {
        let a = capture("ffmpeg-h264-aac.sdp").path, b = capture("gst-h264-pcmu.sdp").path
        for (arguments, says) in [(["--sdp", a, "--sdp", b, "--out", "x.h264"], "{sdp}"),
                                  (["--sdp", a, "--sdp", b], "{sdp}"),
                                  (["--sdp", a, "--sdp", b, "--out", "{sdp}.h264", "--all-streams"], "--all-streams"),
                                  (["--sdp", a, "--sdp", b, "--out", "{sdp}.h264", "--port", "5000"], "--port")] {
            let r = try Harness.rtprecv(["--pcap", "x.pcap"] + arguments)
            XCTAssertEqual(r.status, 64, "\(arguments)")
            XCTAssertTrue(r.stderr.contains(says), r.stderr)
        }
        // Two SDPs on one port: the files are named.
        let r = try Harness.rtprecv(["--pcap", capture("ffmpeg-h264-aac.pcap").path, "--sdp", a, "--sdp", a.replacingOccurrences(of: "captures/", with: "captures/./"),
                                     "--out", "/tmp/{sdp}.h264"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("ffmpeg-h264-aac.sdp"), r.stderr)
        let empty = Harness.temporaryFile("sessions-empty")
        try? FileManager.default.removeItem(at: empty)
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let none = try Harness.rtprecv(["--pcap", capture("ffmpeg-h264-aac.pcap").path, "--sdp-dir", empty.path, "--out", "/tmp/{sdp}.h264"])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("holds no .sdp file"), none.stderr)
    }
}
