import Foundation
import XCTest

/// `--wav`: every audio codec decoded through libavcodec, checked with ffmpeg and ffprobe.
final class WAVOutputTests: XCTestCase {
    private func capture(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    /// `sdp`: a bundled capture's SDP, or a path.
    private func wav(_ pcap: URL, sdp: String?, tag: String) throws -> (wav: URL, stats: [String: Any]) {
        let out = Harness.temporaryFile(tag + ".wav"), stats = Harness.temporaryFile(tag + ".json")
        let result = try Harness.rtprecv(["--pcap", pcap.path, "--wav", out.path, "--stats-json", stats.path, "-q"]
                                         + (sdp.map { ["--sdp", $0.hasPrefix("/") ? $0 : capture($0).path] } ?? []))
        XCTAssertEqual(result.status, 0, result.stderr)
        return (out, try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any])
    }

    /// 16-bit mono samples at 8 kHz, as ffmpeg decodes `url`.
    private func pcm(_ url: URL, rate: Int = 8000) throws -> [Int16] {
        let result = try Harness.run("ffmpeg", ["-v", "error", "-i", url.path, "-ac", "1", "-ar", "\(rate)", "-f", "s16le", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// Where the beeps start, in seconds from the first sample.
    private func beeps(_ samples: [Int16]) -> [Double] {
        var onsets: [Double] = [], quiet = 0
        for (i, s) in samples.enumerated() {
            if abs(Int(s)) > 3000 {
                if quiet > 2000 { onsets.append(Double(i) / 8000) }
                quiet = 0
            } else {
                quiet += 1
            }
        }
        return onsets
    }

    func testG711DecodesToTheSourcesSamples() throws {
        let out = try wav(capture("gst-h264-pcmu.pcap"), sdp: nil, tag: "pcmu").wav
        XCTAssertEqual(try Harness.probe(out, "stream=codec_name,sample_rate,channels"),
                       "codec_name=pcm_s16le\nsample_rate=8000\nchannels=1\n")
        XCTAssertEqual(try pcm(out), try pcm(capture("sync-source-mulaw.wav")))
    }

    func testEveryCodecDecodesWithItsBeepsAtTheWholeSeconds() throws {
        for (name, sdp) in [("gst-h264-aac", "gst-h264-aac.sdp"), ("gst-h264-latm", "gst-h264-latm.sdp"),
                            ("ffmpeg-h264-mp3", nil), ("ffmpeg-opus", "ffmpeg-opus.sdp"), ("ffmpeg-h264-pcma", nil)] {
            let (out, stats) = try wav(capture(name + ".pcap"), sdp: sdp, tag: name)
            XCTAssertEqual((stats["wav"] as? [String: Any])?["decode_errors"] as? Int, 0, name)
            let onsets = beeps(try pcm(out))
            XCTAssertEqual(onsets.count, 3, "\(name): \(onsets)")
            // The decoders' own delay (AAC priming, MP3's encoder delay) stays under 60 ms.
            for (onset, second) in zip(onsets, [1.0, 2.0, 3.0]) {
                XCTAssertEqual(onset, second, accuracy: 0.06, name)
            }
        }
    }

    func testLostG711AndAACFramesBecomeSilenceOfTheirLength() throws {
        for (name, sdp, port) in [("gst-h264-pcmu", nil, 5132), ("gst-h264-aac", "gst-h264-aac.sdp", 5112)] {
            let records = try TestPcap.records(of: capture(name + ".pcap"))
            var n = 0
            let kept = records.filter { r in
                guard Int(r.frame[36]) << 8 | Int(r.frame[37]) == port else { return true }
                n += 1
                return n != 5 && n != 6 && n != 15
            }
            let lossy = Harness.temporaryFile(name + "-lossy.pcap")
            try TestPcap.data(linkType: 1, records: kept.map { ($0.microseconds * 1000, $0.frame) }).write(to: lossy)
            let (cleanOut, cleanStats) = try wav(capture(name + ".pcap"), sdp: sdp, tag: name + "-clean")
            let (out, stats) = try wav(lossy, sdp: sdp, tag: name + "-lossy")
            let clean = try pcm(cleanOut), damaged = try pcm(out)
            XCTAssertEqual((stats["wav"] as? [String: Any])?["samples"] as? Int, (cleanStats["wav"] as? [String: Any])?["samples"] as? Int,
                           "\(name): the silence keeps the length")
            XCTAssertEqual((stats["wav"] as? [String: Any])?["gaps_filled_with_silence"] as? Int, 2, name)
            // The end, after the losses, lines up sample for sample for G.711.
            if port == 5132 { XCTAssertEqual(Array(damaged.suffix(8000)), Array(clean.suffix(8000))) }
        }
    }

    /// A run killed (SIGKILL) mid-stream leaves WAVs of their length to within a second, as ffprobe
    /// reads them: the header is patched as the data grows (G.711's fact count of 0xFFFFFFFF once
    /// claimed 149 hours).
    func testAKilledRunLeavesWAVsOfTheirLength() throws {
        let port = UInt16(46000 + Int(getpid() % 1000))
        let decoded = Harness.temporaryFile("killed.wav"), frames = Harness.temporaryFile("killed-g711.wav")
        let process = Process()
        process.executableURL = Harness.binary
        process.arguments = ["--port", "\(port)", "--bind", "127.0.0.1", "--wav", decoded.path, "--audio", frames.path, "-q"]
        try process.run()
        usleep(300_000)
        let sender = try CaptureSender.start(base: port, count: 1, capture: "gst-h264-pcmu.pcap")
        sender.waitUntilExit()
        Thread.sleep(forTimeInterval: 1.5)  // at least one patch after the last samples
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        for file in [decoded, frames] {
            let probe = try Harness.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file.path])
            let seconds = Double(String(decoding: probe.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            XCTAssertEqual(seconds, 4.0, accuracy: 0.2, "\(file.lastPathComponent): \(probe.stderr)")
        }
    }

    /// Opus with DTX, from GStreamer (opusenc and rtpopuspay, dtx=true): between the beeps the
    /// sender sends nothing, its sequence numbers unbroken. Silences, not losses: the WAV keeps
    /// them, so the beeps stay at the whole seconds.
    func testOpusDTXSilencesAreKeptAndNotCountedAsLosses() throws {
        let (recorded, sdp, _) = try opusDTXCall()
        let (out, stats) = try wav(recorded, sdp: sdp.path, tag: "opus-dtx")
        let audio = try XCTUnwrap((stats["audio_streams"] as? [[String: Any]])?.first)
        XCTAssertEqual(audio["lost"] as? Int, 0)
        XCTAssertEqual(audio["gaps"] as? Int, 0, "no packet was lost")
        XCTAssertGreaterThanOrEqual(audio["silences"] as? Int ?? 0, 3, "the sender fell silent between the beeps")
        XCTAssertEqual((stats["wav"] as? [String: Any])?["silences_filled"] as? Int, audio["silences"] as? Int)
        let onsets = beeps(try pcm(out))
        XCTAssertEqual(onsets.count, 3, "\(onsets)")
        for (onset, second) in zip(onsets, [1.0, 2.0, 3.0]) { XCTAssertEqual(onset, second, accuracy: 0.06) }
    }

    /// Four seconds of a call from GStreamer in Opus with DTX (opusenc and rtpopuspay, dtx=true),
    /// captured on loopback, with its SDP and the port it went to.
    private func opusDTXCall() throws -> (capture: URL, sdp: URL, port: UInt16) {
        let port = UInt16(45000 + Int(getpid() % 1000) * 2)
        let source = capture("sync-source-mulaw.wav")
        let recorded = try Harness.record("opus-dtx", port: port, bindingIt: true) {
            try Harness.runSender(["-q", "filesrc", "location=\(source.path)", "!", "wavparse", "!", "mulawdec",
                                   "!", "audioconvert", "!", "audioresample", "!", "opusenc", "dtx=true", "audio-type=voice",
                                   "bitrate=16000", "!", "rtpopuspay", "dtx=true", "pt=111", "!", "udpsink", "host=127.0.0.1",
                                   "port=\(port)"], seconds: 5)
        }
        let sdp = Harness.temporaryFile("opus-dtx.sdp")
        try "v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio \(port) RTP/AVP 111\r\na=rtpmap:111 OPUS/48000/2\r\n"
            .write(to: sdp, atomically: true, encoding: .utf8)
        return (recorded, sdp, port)
    }

    /// `--audio` of that call as Ogg Opus, whole and with every seventh packet lost: the silences
    /// and the losses are packets that ask the player to conceal them (RFC 7845 §4.1), so every
    /// packet follows the one before in time, every packet sent is there in order, and ffmpeg
    /// decodes the file with the beeps at the whole seconds.
    func testOpusSilencesAndLossesAreConcealedInTheOggFile() throws {
        let (recorded, sdp, port) = try opusDTXCall()
        let records = try TestPcap.records(of: recorded)
        let lossy = Harness.temporaryFile("opus-dtx-lossy.pcap")
        try TestPcap.data(linkType: 1, records: records.enumerated().filter { $0.offset % 7 != 3 }
            .map { ($0.element.microseconds * 1000, $0.element.frame) }).write(to: lossy)
        for (pcap, tag) in [(recorded, "opus-dtx-whole"), (lossy, "opus-dtx-lossy")] {
            let out = Harness.temporaryFile(tag + ".opus"), statsFile = Harness.temporaryFile(tag + ".json")
            let run = try Harness.rtprecv(["--pcap", pcap.path, "--sdp", sdp.path, "--audio", out.path, "--stats-json", statsFile.path, "-q"])
            XCTAssertEqual(run.status, 0, run.stderr)
            let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: statsFile)) as! [String: Any]
            let audio = try XCTUnwrap((stats["audio_streams"] as? [[String: Any]])?.first, tag)
            let file = try XCTUnwrap(stats["audio_file"] as? [String: Any], tag)
            XCTAssertEqual(file["silences_kept"] as? Int, audio["silences"] as? Int, tag)
            XCTAssertEqual(file["losses_concealed"] as? Int, audio["gaps"] as? Int, tag)
            XCTAssertGreaterThanOrEqual(audio["silences"] as? Int ?? 0, 3, tag)
            if pcap == lossy { XCTAssertGreaterThan(audio["gaps"] as? Int ?? 0, 5, tag) }

            // As ffmpeg reads the Ogg: each packet where the one before ends; the payloads sent in
            // order, with only concealing packets (a TOC byte, and a frame count) between them.
            let lines = String(decoding: try Harness.run("ffmpeg", ["-v", "error", "-i", out.path, "-c", "copy", "-f", "framemd5", "-"]).stdout,
                               as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
                .map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            XCTAssertGreaterThan(lines.count, 50, tag)
            for (before, packet) in zip(lines, lines.dropFirst()) {
                XCTAssertEqual(Int(packet[2]), Int(before[2])! + Int(before[3])!, "\(tag): \(packet)")
            }
            let payloads = try Harness.rtpPayloadMD5(pcap, port: port, payloadType: 111)
            var unmatched = payloads[...]
            for packet in lines {
                if packet[5] == unmatched.first { unmatched = unmatched.dropFirst() } else { XCTAssertLessThanOrEqual(Int(packet[4])!, 2, tag) }
            }
            XCTAssertTrue(unmatched.isEmpty, "\(tag): \(unmatched.count) payloads not in the file")
            let onsets = beeps(try pcm(out))
            XCTAssertEqual(onsets.count, 3, "\(tag): \(onsets)")
            for (onset, second) in zip(onsets, [1.0, 2.0, 3.0]) { XCTAssertEqual(onset, second, accuracy: 0.06, tag) }
        }
    }

    func testG722FromASIPPhoneDecodesAt16kHz() throws {
        let url = Harness.realCaptures.appendingPathComponent("videosnarf_cisco7985.pcap")
        try XCTSkipUnless(FileManager.default.fileExists(atPath: url.path), "needs ../shared/captures-real")
        let (out, stats) = try wav(url, sdp: nil, tag: "g722")
        XCTAssertEqual(try Harness.probe(out, "stream=codec_name,sample_rate,channels"),
                       "codec_name=pcm_s16le\nsample_rate=16000\nchannels=1\n")
        let audio = try XCTUnwrap((stats["audio_streams"] as? [[String: Any]])?.first)
        XCTAssertEqual(audio["codec"] as? String, "G.722")
        XCTAssertEqual((stats["wav"] as? [String: Any])?["samples"] as? Int, (audio["frames_written"] as! Int) * 320)
    }
}
