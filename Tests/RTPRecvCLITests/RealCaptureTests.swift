import Foundation
import XCTest

/// Captures from other projects in ../shared/captures-real; skipped where that folder is absent.
final class RealCaptureTests: XCTestCase {
    private func capture(_ name: String) throws -> URL {
        let url = Harness.realCaptures.appendingPathComponent(name)
        try XCTSkipUnless(FileManager.default.fileExists(atPath: url.path),
                          "\(url.path) is absent: real captures are only beside a checkout with ../shared")
        return url
    }

    private func replay(_ name: String, _ extra: [String] = []) throws -> URL {
        let out = Harness.temporaryFile(name + ".h264")
        let result = try Harness.rtprecv(["--pcap", try capture(name).path, "--out", out.path, "-q"] + extra)
        XCTAssertEqual(result.status, 0, result.stderr)
        return out
    }

    func testMembraneHeavyReorderingYieldsCleanFrames() throws {
        // GStreamer gets no frame out of this one: SPS after slices, 3 in 4 packets out of order.
        let out = try replay("membrane_h264_before_sr.pcap", ["--wait-keyframe"])
        let frames = try Harness.frameMD5(out)
        XCTAssertGreaterThan(frames.count, 50)
        XCTAssertEqual(try Harness.decodeErrors(out), "")
    }

    func testMembraneDemoSelectsTheVideoOfTwoStreams() throws {
        let out = try replay("membrane_demo_rtp.pcap")
        XCTAssertEqual(try Harness.frameMD5(out).count, 142)
        XCTAssertEqual(try Harness.decodeErrors(out), "")
        XCTAssertTrue(try Harness.probe(out, "stream=width,height,profile").contains("profile=High 4:4:4 Predictive"))
        // Its other stream is MP3 in RFC 2250's payload format, on a dynamic type without an SDP.
        let list = try Harness.rtprecv(["--pcap", try capture("membrane_demo_rtp.pcap").path, "--list"])
        XCTAssertTrue(String(decoding: list.stdout, as: UTF8.self).contains(
            "(its payloads are MPEG audio as RFC 2250 carries it: --audio-payload-type 127 --audio-codec mpa takes it)"))
        let mp3 = Harness.temporaryFile("membrane.mp3")
        let taken = try Harness.rtprecv(["--pcap", try capture("membrane_demo_rtp.pcap").path, "--audio-payload-type", "127",
                                         "--audio-codec", "mpa", "--audio", mp3.path, "-q"])
        XCTAssertEqual(taken.status, 0, taken.stderr)
        XCTAssertEqual(try Harness.probe(mp3, "stream=codec_name,sample_rate,channels"), "codec_name=mp3\nsample_rate=44100\nchannels=1\n")
        XCTAssertEqual(try Harness.decodeErrors(mp3), "")
    }

    /// A call over the Internet whose G.711 packets came in bursts, and whose audio clock stepped
    /// back: the FLV's audio tags never repeat a time (FFmpeg's muxers refuse a repeated one), and
    /// every frame is in it.
    func testAnFLVOfABurstyCallNeverRepeatsATime() throws {
        let flv = Harness.temporaryFile("linphone.flv"), stats = Harness.temporaryFile("linphone.json")
        let result = try Harness.rtprecv(["--pcap", try capture("linphone_vp8_pcma.pcapng").path, "--flv", flv.path,
                                          "--stats-json", stats.path, "-q"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Harness.decodeErrors(flv), "")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        let f = try XCTUnwrap(json["flv"] as? [String: Any])
        XCTAssertEqual(f["audio_frames_written"] as? Int, 1493)
        let times = try Harness.run("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "packet=pts",
                                                "-of", "csv=p=0", flv.path])
        let pts = String(decoding: times.stdout, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        XCTAssertEqual(pts.count, 1493)
        XCTAssertTrue(zip(pts, pts.dropFirst()).allSatisfy { $0 < $1 }, "an audio tag's time repeated or went back")
    }

    /// The phone's audio clock stepped back 330 ms (seq 302) while its packets kept coming: the
    /// timeline bridges it, so the Matroska file's G.711 frames follow one another (none pushed
    /// later to keep the decode times going forward) and it lasts as long as the call.
    func testAnAudioClockSteppedBackIsBridged() throws {
        let mkv = Harness.temporaryFile("linphone.mkv"), stats = Harness.temporaryFile("linphone-mkv.json")
        let result = try Harness.rtprecv(["--pcap", try capture("linphone_vp8_pcma.pcapng").path, "--mkv", mkv.path,
                                          "--stats-json", stats.path, "-q"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        XCTAssertEqual((json["mkv"] as? [String: Any])?["frames_retimed"] as? Int, 0, "\(json["mkv"] ?? "")")
        let audio = try XCTUnwrap((json["audio_streams"] as? [[String: Any]])?.first)
        XCTAssertEqual(audio["timestamp_jumps"] as? Int, 1)
        let times = try Harness.run("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "packet=pts_time",
                                                "-of", "csv=p=0", mkv.path])
        let pts = String(decoding: times.stdout, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }
        XCTAssertEqual(pts.count, 1493)
        let steps = zip(pts, pts.dropFirst()).map { $1 - $0 }
        XCTAssertGreaterThan(steps.min() ?? 0, 0.015, "no frame squeezed against the one before")
    }

    func testDeadsfuPcapngGivesItsKeyframe() throws {
        let out = try replay("deadsfu_idle.screen.h264.pcapng")
        XCTAssertEqual(try Harness.frameMD5(out).count, 1)
        XCTAssertTrue(try Harness.probe(out, "stream=width,height").contains("width=640\nheight=360"))
    }

    func testStr0mKeepsBothResolutions() throws {
        let out = try replay("str0m_h264.pcap", ["--wait-keyframe"])
        let widths = try Harness.run("ffprobe", ["-v", "error", "-show_entries", "frame=width", "-of", "csv=p=0", out.path])
        let seen = String(decoding: widths.stdout, as: UTF8.self).split(separator: "\n").map { $0.filter(\.isNumber) }
        XCTAssertEqual(Set(seen), ["640", "494"])
        // Once the new resolution's SPS came, every frame has it.
        XCTAssertEqual(seen, seen.sorted { $0 == "494" && $1 == "640" })
    }

    func testStr0mOverrunningSTAPAKeepsItsSPSAndCountsAsReceived() throws {
        // seq 19388: STAP-A with SPS (640x480), PPS and an IDR whose size runs 27 bytes past the packet.
        let ledger = Harness.temporaryFile("str0m.jsonl"), stats = Harness.temporaryFile("str0m.json")
        _ = try replay("str0m_h264.pcap", ["--frames-json", ledger.path, "--stats-json", stats.path])
        let records = try Harness.ledger(ledger)
        let overrun = try XCTUnwrap(records.first { $0.reason == "aggregation_overrun" })
        XCTAssertEqual(overrun.seq_first, 19388)
        XCTAssertEqual(overrun.status, "dropped")
        XCTAssertTrue(overrun.keyframe)
        let stream = ((try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any])["streams"]
                      as! [[String: Any]])[0]
        XCTAssertEqual(stream["lost"] as? Int, 3, "the three packets missing from the capture, not the STAP-A")
        XCTAssertEqual(stream["aggregation_units_overrun"] as? Int, 1)
        // Written without --wait-keyframe, the frames that followed refer to the lost IDR, and say so.
        let after = records.drop { $0.seq_first <= 19388 }.prefix { !$0.keyframe }
        XCTAssertFalse(after.isEmpty)
        XCTAssertTrue(after.allSatisfy { !$0.refs_intact })
    }

    /// RFC 4733 events with no SDP to name them: known by their payloads, never read as H.264, each
    /// event told once though its start and end are sent three times; the digits as tshark decodes them.
    func testListTellsTelephoneEventsWithoutAnSDP() throws {
        let pcap = try capture("rtpproxy_dtmf.pcap")
        let list = String(decoding: try Harness.rtprecv(["--pcap", pcap.path, "--list"]).stdout, as: UTF8.self)
        XCTAssertFalse(list.contains("H264") || list.contains("H265"), list)
        for port in [24270, 24272] {
            let digits = CallAudioTests.digits(try CallAudioTests.packets(pcap, port: port, eventType: 101), eventType: 101)
            XCTAssertGreaterThan(digits.count, 5)
            let line = try XCTUnwrap(list.split(separator: "\n").first { $0.contains(":\(port) ") }, list)
            XCTAssertTrue(line.hasSuffix("telephone-event: digits " + digits.joined(separator: " ")), String(line))
        }
        // A replay points at --list for the events, not at an audio codec they are not.
        let replay = try Harness.rtprecv(["--pcap", pcap.path, "--out", "/dev/null"])
        XCTAssertTrue(replay.stderr.contains("(PT 101, 151 packets) holds 4-byte payloads alone, as RFC 4733's telephone events do"),
                      replay.stderr)
        XCTAssertFalse(replay.stderr.contains("needs the SDP for its codec"), replay.stderr)
    }

    func testListNamesAudioAndNeverReadsItAsH264() throws {
        // G.722 (static payload type 9) beside H.264 from two Cisco video phones.
        let listed = String(decoding: try Harness.rtprecv(["--pcap", try capture("videosnarf_cisco7985.pcap").path, "--list"]).stdout,
                            as: UTF8.self).split(separator: "\n")
        let g722 = listed.filter { $0.contains(" 9 ") }
        XCTAssertEqual(g722.count, 2, "\(listed)")
        for line in g722 {
            XCTAssertTrue(line.hasSuffix("G722/8000/1, 20 ms packets"), String(line))
            XCTAssertFalse(line.contains("H264") || line.contains("FU-A") || line.contains("STAP"), String(line))
        }
        XCTAssertEqual(listed.filter { $0.contains("H264 352x240") }.count, 2)
        // Opus on a dynamic payload type: unknown without an SDP, named with one.
        let opus = try capture("asterisk_opus_fec.pcapng")
        let bare = String(decoding: try Harness.rtprecv(["--pcap", opus.path, "--list"]).stdout, as: UTF8.self)
        XCTAssertTrue(bare.contains("unknown: a dynamic payload type, neither H.264 nor H.265"), bare)
        let sdp = Harness.temporaryFile("opus.sdp")
        try "v=0\nm=audio 16596 RTP/AVP 107\na=rtpmap:107 opus/48000/2\n".write(to: sdp, atomically: true, encoding: .utf8)
        let named = String(decoding: try Harness.rtprecv(["--pcap", opus.path, "--list", "--sdp", sdp.path]).stdout, as: UTF8.self)
        XCTAssertTrue(named.contains("opus/48000/2, 20 ms packets\n"), named)
    }
}
