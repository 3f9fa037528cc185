import Foundation
import XCTest

/// Opus as WebRTC and SIP send it, with DTX (GStreamer's opusenc and rtpopuspay, dtx=true) and
/// with losses: what the stream did not carry is written as packets that ask the player to conceal
/// it (RFC 7845 §4.1), in Ogg and in every container, so the files last as long as the call.
final class OpusGapTests: XCTestCase {
    /// The call, and the same with every seventh packet lost.
    private func calls() throws -> (calls: [(capture: URL, tag: String)], sdp: URL, port: UInt16) {
        let (recorded, sdp, port) = try Harness.opusDTXCall()
        let records = try TestPcap.records(of: recorded)
        let lossy = Harness.temporaryFile("opus-dtx-lossy.pcap")
        try TestPcap.data(linkType: 1, records: records.enumerated().filter { $0.offset % 7 != 3 }
            .map { ($0.element.microseconds * 1000, $0.element.frame) }).write(to: lossy)
        return ([(recorded, "opus-dtx-whole"), (lossy, "opus-dtx-lossy")], sdp, port)
    }

    /// `pcap` (with `sdp`, else PT 111 named Opus) through rtprecv into `output` (`--audio`,
    /// `--mkv`, …) as file `name`: the file, and the statistics.
    private func run(_ pcap: URL, sdp: URL?, _ output: String, as name: String) throws -> (file: URL, stats: [String: Any]) {
        let out = Harness.temporaryFile(name), statsFile = Harness.temporaryFile(name + ".json")
        let described = sdp.map { ["--sdp", $0.path] } ?? ["--audio-payload-type", "111", "--audio-codec", "opus"]
        let run = try Harness.rtprecv(["--pcap", pcap.path] + described + [output, out.path, "--stats-json", statsFile.path, "-q"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stderr.contains("@ 0x"), "nothing of libavformat's own: \(run.stderr)")
        return (out, try JSONSerialization.jsonObject(with: Data(contentsOf: statsFile)) as! [String: Any])
    }

    /// As ffmpeg reads `file`'s audio: each packet at most 120 ms (the longest an Opus packet
    /// lasts) after the one before, and, in Ogg (whose times are the packets' lengths), where it ends;
    /// the payloads `sent` in order, with only concealing packets (a TOC byte, and a frame count)
    /// between them; and, decoded, the beeps at the whole seconds.
    private func assertEveryPacketInPlace(_ file: URL, sent: [String], tag: String) throws {
        let read = try Harness.run("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:a", "-c", "copy", "-f", "framemd5", "-"])
        let lines = String(decoding: read.stdout, as: UTF8.self).split(separator: "\n")
        let timeBase = try XCTUnwrap(lines.first { $0.hasPrefix("#tb 0: 1/") }.flatMap { Double($0.dropFirst(9)) }, tag)
        let packets = lines.filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        XCTAssertGreaterThan(packets.count, 50, tag)
        for (before, packet) in zip(packets, packets.dropFirst()) {
            let (start, previous, duration) = (Int(packet[2])!, Int(before[2])!, Int(before[3])!)
            XCTAssertLessThanOrEqual(Double(start - previous) / timeBase, 0.121, "\(tag): \(before) then \(packet)")
            if file.pathExtension == "opus" { XCTAssertEqual(start, previous + duration, "\(tag): \(packet)") }
        }
        var unmatched = sent[...]
        for packet in packets {
            if packet[5] == unmatched.first { unmatched = unmatched.dropFirst() } else { XCTAssertLessThanOrEqual(Int(packet[4])!, 2, tag) }
        }
        XCTAssertTrue(unmatched.isEmpty, "\(tag): \(unmatched.count) payloads not in the file")
        let onsets = Harness.beepOnsets(try Harness.pcm(file))
        XCTAssertEqual(onsets.count, 3, "\(tag): \(onsets)")
        for (onset, second) in zip(onsets, [1.0, 2.0, 3.0]) { XCTAssertEqual(onset, second, accuracy: 0.06, tag) }
    }

    /// `--audio` of that call as Ogg Opus, whole and with every seventh packet lost: the silences
    /// and the losses are packets that ask the player to conceal them (RFC 7845 §4.1), so every
    /// packet follows the one before in time, every packet sent is there in order, and ffmpeg
    /// decodes the file with the beeps at the whole seconds.
    func testOpusSilencesAndLossesAreConcealedInTheOggFile() throws {
        let (calls, sdp, port) = try calls()
        for (pcap, tag) in calls {
            let (out, stats) = try run(pcap, sdp: sdp, "--audio", as: tag + ".opus")
            let audio = try XCTUnwrap((stats["audio_streams"] as? [[String: Any]])?.first, tag)
            let file = try XCTUnwrap(stats["audio_file"] as? [String: Any], tag)
            XCTAssertEqual(file["silences_kept"] as? Int, audio["silences"] as? Int, tag)
            XCTAssertEqual(file["losses_concealed"] as? Int, audio["gaps"] as? Int, tag)
            XCTAssertGreaterThanOrEqual(audio["silences"] as? Int ?? 0, 3, tag)
            if tag.hasSuffix("lossy") { XCTAssertGreaterThan(audio["gaps"] as? Int ?? 0, 5, tag) }

            try assertEveryPacketInPlace(out, sent: try Harness.rtpPayloadMD5(pcap, port: port, payloadType: 111), tag: tag)
        }
    }

    /// MP4, Matroska and MPEG-TS of the call: an MP4 sample lasts as long as its Opus frames (Opus
    /// in ISOBMFF §4.3.4), so the packet before a silence no longer stretches over it. Without the
    /// SDP the recording cannot know that no video comes, and holds the audio until it does. MPEG-TS
    /// takes no packet of a TOC byte alone (DTX's): it goes behind a frame count.
    func testOpusSilencesAndLossesAreConcealedInEveryContainer() throws {
        let (calls, sdp, port) = try calls()
        for (pcap, tag) in calls {
            for (container, described) in [("mp4", true), ("mkv", true), ("ts", true), ("mp4", false)] {
                let sent = try Harness.rtpPayloadMD5(pcap, port: port, payloadType: 111, opusAsInMPEGTS: container == "ts")
                let (out, stats) = try run(pcap, sdp: described ? sdp : nil, "--\(container)", as: "\(tag)-\(described).\(container)")
                let recording = try XCTUnwrap(stats[container] as? [String: Any], "\(tag) \(container): \(stats.keys)")
                XCTAssertEqual(recording["audio_frames_written"] as? Int, sent.count, "\(tag) \(container) \(described)")
                XCTAssertGreaterThan(recording["audio_concealed_ms"] as? Int ?? 0, 1000, "\(tag) \(container) \(described)")
                try assertEveryPacketInPlace(out, sent: sent, tag: "\(tag) \(container) \(described)")
            }
        }
    }

    /// `--wav` of the lossy call: each loss is silence of its length, as each silence the sender
    /// left is, so the beeps stay at the whole seconds and the file lasts as long as the call.
    func testOpusLossesAreSilenceOfTheirLengthInTheWAV() throws {
        let (calls, sdp, _) = try calls()
        var lengths: [Double] = []
        for (pcap, tag) in calls {
            let (out, stats) = try run(pcap, sdp: sdp, "--wav", as: tag + ".wav")
            let audio = try XCTUnwrap((stats["audio_streams"] as? [[String: Any]])?.first, tag)
            let wav = try XCTUnwrap(stats["wav"] as? [String: Any], tag)
            XCTAssertEqual(wav["gaps_filled_with_silence"] as? Int, audio["gaps"] as? Int, tag)
            XCTAssertEqual(wav["silences_filled"] as? Int, audio["silences"] as? Int, tag)
            let samples = try Harness.pcm(out)
            lengths.append(Double(samples.count) / 8000)
            // A beep whose first packet was lost starts with the packet after, and the decoder
            // takes a moment to come back to full level.
            let onsets = Harness.beepOnsets(samples), late = tag.hasSuffix("lossy") ? 0.1 : 0.06
            XCTAssertEqual(onsets.count, 3, "\(tag): \(onsets)")
            for (onset, second) in zip(onsets, [1.0, 2.0, 3.0]) { XCTAssertEqual(onset, second, accuracy: late, tag) }
        }
        XCTAssertEqual(lengths[0], lengths[1], accuracy: 0.03, "the lossy call's WAV lasts as long as the whole one's")
    }
}
