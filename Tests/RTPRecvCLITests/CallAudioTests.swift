import Foundation
import XCTest

/// A call's audio SSRC with what comes beside the voice: RFC 4733 telephone events and RFC 3389
/// comfort noise. GStreamer's rtpdtmfmux put the events in the stream (scripts/gst-call-capture);
/// what is expected is read from the capture by tshark and measured in the outputs by ffmpeg.
final class CallAudioTests: XCTestCase {
    private let call = Harness.captures.appendingPathComponent("gst-call-dtmf-cn.pcap")

    /// The capture's packets as tshark decodes them: payload type, timestamp, and for events the
    /// event number and end bit; for comfort noise its payload.
    struct Packet {
        var payloadType: Int
        var timestamp: UInt32
        var event: Int?
        var end: Bool
        var payload: String
    }

    /// The packets to `port`.
    static func packets(_ pcap: URL, port: Int, eventType: Int) throws -> [Packet] {
        let result = try Harness.run("tshark", ["-r", pcap.path, "-d", "udp.port==\(port),rtp", "-Y", "udp.dstport==\(port)",
                                                "-o", "rtpevent.event_payload_type_value:\(eventType)", "-T", "fields",
                                                "-e", "rtp.p_type", "-e", "rtp.timestamp", "-e", "rtpevent.event_id",
                                                "-e", "rtpevent.end_of_event", "-e", "rtp.payload"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Packet(payloadType: Int(f[0])!, timestamp: UInt32(f[1])!, event: Int(f[2]), end: f[3] == "1", payload: f[4])
        }
    }

    /// The digits of the events, each once, in order: an event is its timestamp, ended by its first end packet.
    static func digits(_ packets: [Packet], eventType: Int) -> [String] {
        var seen = Set<UInt32>(), digits: [String] = []
        for p in packets where p.payloadType == eventType && p.end && !seen.contains(p.timestamp) {
            seen.insert(p.timestamp)
            digits.append(p.event! == 10 ? "*" : p.event! == 11 ? "#" : String(p.event!))
        }
        return digits
    }

    func testListShowsOneStreamWithItsEventsAndComfortNoise() throws {
        let packets = try Self.packets(call, port: 5300, eventType: 101)
        let digits = Self.digits(packets, eventType: 101)
        XCTAssertEqual(digits.count, 3)
        let list = String(decoding: try Harness.rtprecv(["--pcap", call.path, "--list"]).stdout, as: UTF8.self)
        let lines = list.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, list)
        let columns = lines[1].split(separator: " ", omittingEmptySubsequences: true)
        XCTAssertEqual(columns[3], "0,101,13", list)
        XCTAssertEqual(Int(columns[4]), packets.count, list)
        XCTAssertEqual(columns[5], "0", "no packet of the sequence is missing: \(list)")
        XCTAssertTrue(list.contains("PCMU/8000/1, 20 ms packets;"), list)
        XCTAssertTrue(list.contains("telephone-event: digits " + digits.joined(separator: " ")), list)
        XCTAssertTrue(list.contains("PT 13 (1 packet): comfort noise (RFC 3389)"), list)
        XCTAssertFalse(list.contains("H264") || list.contains("H265"), list)
    }

    func testReplayCountsNoLossAndTellsEachEventOnce() throws {
        let packets = try Self.packets(call, port: 5300, eventType: 101)
        let stats = Harness.temporaryFile("call.json"), ledger = Harness.temporaryFile("call.jsonl")
        let run = try Harness.rtprecv(["--pcap", call.path, "--stats-json", stats.path, "--frames-json", ledger.path, "-q"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        let audio = try XCTUnwrap((root["audio_streams"] as? [[String: Any]])?.first)
        XCTAssertEqual(audio["lost"] as? Int, 0)
        XCTAssertEqual(audio["packets"] as? Int, packets.count)
        XCTAssertEqual(audio["other_payload_type"] as? Int, packets.filter { $0.payloadType != 0 }.count)
        XCTAssertEqual(audio["gaps"] as? Int, 0, "a silence sent as comfort noise is no loss")
        XCTAssertEqual(audio["comfort_noise_spans"] as? Int, 1)
        XCTAssertEqual(audio["telephone_events"] as? [String], Self.digits(packets, eventType: 101))
        let lines = try String(contentsOf: ledger, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        let events = lines.filter { $0["media"] as? String == "telephone-event" }
        XCTAssertEqual(events.map { $0["event"] as! String }, Self.digits(packets, eventType: 101))
        XCTAssertTrue(events.allSatisfy { $0["ended"] as? Bool == true })
        XCTAssertEqual(lines.filter { $0["media"] as? String == "audio" }.count, packets.filter { $0.payloadType == 0 }.count)
    }

    /// --all-streams with video outputs only: the call's SSRC is audio, so its events on a dynamic
    /// payload type start no video stream, and it is one audio stream when --wav asks for it.
    func testEveryStreamTakesTheCallAsAudioAlone() throws {
        let directory = try Harness.emptyDirectory("call-all-streams")
        let video = try Harness.rtprecv(["--pcap", call.path, "--all-streams", "--out", directory.path + "/{ssrc}.h264"])
        XCTAssertTrue(video.stderr.contains("0 video of 0 streams followed"), video.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])
        let audio = try Harness.rtprecv(["--pcap", call.path, "--all-streams", "--wav", directory.path + "/{ssrc}.wav",
                                         "--out", directory.path + "/{ssrc}.h264"])
        XCTAssertEqual(audio.status, 0, audio.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["80774173.wav"], audio.stderr)
        XCTAssertFalse(audio.stderr.contains("PT 101,"), audio.stderr)
    }

    /// The WAV and the G.711 file last from the first voice packet to the end of the last, the
    /// silence included; in the WAV the silence is noise at the level the comfort noise packet gave.
    func testComfortNoiseKeepsTheTimelineAtItsLevel() throws {
        let packets = try Self.packets(call, port: 5300, eventType: 101)
        let voice = packets.filter { $0.payloadType == 0 }
        let seconds = Double(voice.last!.timestamp &- voice.first!.timestamp + 160) / 8000
        let noise = try XCTUnwrap(packets.first { $0.payloadType == 13 })
        let level = Double(UInt8(noise.payload.prefix(2), radix: 16)! & 0x7F)
        let wav = Harness.temporaryFile("call.wav"), g711 = Harness.temporaryFile("call-ulaw.wav")
        let run = try Harness.rtprecv(["--pcap", call.path, "--wav", wav.path, "--audio", g711.path, "-q"])
        XCTAssertEqual(run.status, 0, run.stderr)
        for file in [wav, g711] {
            let probe = try Harness.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file.path])
            let duration = Double(String(decoding: probe.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            XCTAssertEqual(try XCTUnwrap(duration), seconds, accuracy: 0.001, file.lastPathComponent)
        }
        // The silence, from where the comfort noise starts, well inside it.
        let start = Double(noise.timestamp &- voice.first!.timestamp) / 8000
        let stats = try Harness.run("ffmpeg", ["-v", "info", "-i", wav.path, "-af",
                                               "atrim=start=\(start + 0.05):end=\(start + 0.55),astats", "-f", "null", "-"])
        let rms = String(decoding: stats.stdout + Data(stats.stderr.utf8), as: UTF8.self)
            .firstMatch(of: /RMS level dB: (-?[0-9.]+)/).flatMap { Double($0.1) }
        XCTAssertEqual(try XCTUnwrap(rms, stats.stderr), -level, accuracy: 1.5)
    }

    /// The call alone in MPEG-TS and MP4, its G.711 made AAC: as long as the voice, the silence
    /// included, and nothing of libavformat's own on the terminal (an MPEG-TS of audio alone made it
    /// say "frame size not set").
    func testCallAloneIsRecordedAsAAC() throws {
        let voice = try Self.packets(call, port: 5300, eventType: 101).filter { $0.payloadType == 0 }
        let seconds = Double(voice.last!.timestamp &- voice.first!.timestamp + 160) / 8000
        let ts = Harness.temporaryFile("call.ts"), mp4 = Harness.temporaryFile("call.mp4")
        let run = try Harness.rtprecv(["--pcap", call.path, "--ts", ts.path, "--mp4", mp4.path, "-q"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stderr.contains("@ 0x"), run.stderr)
        for file in [ts, mp4] {
            let probe = try Harness.run("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=codec_name",
                                                    "-show_entries", "format=duration", "-of", "csv=p=0", file.path])
            let lines = String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n")
            XCTAssertEqual(lines.first, "aac", file.lastPathComponent)
            XCTAssertEqual(try XCTUnwrap(Double(lines.last ?? "")), seconds, accuracy: 0.15, file.lastPathComponent)
        }
    }
}
