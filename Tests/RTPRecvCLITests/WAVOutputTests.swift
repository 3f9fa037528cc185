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

    func testG711DecodesToTheSourcesSamples() throws {
        let out = try wav(capture("gst-h264-pcmu.pcap"), sdp: nil, tag: "pcmu").wav
        XCTAssertEqual(try Harness.probe(out, "stream=codec_name,sample_rate,channels"),
                       "codec_name=pcm_s16le\nsample_rate=8000\nchannels=1\n")
        XCTAssertEqual(try Harness.pcm(out), try Harness.pcm(capture("sync-source-mulaw.wav")))
    }

    func testEveryCodecDecodesWithItsBeepsAtTheWholeSeconds() throws {
        for (name, sdp) in [("gst-h264-aac", "gst-h264-aac.sdp"), ("gst-h264-latm", "gst-h264-latm.sdp"),
                            ("ffmpeg-h264-mp3", nil), ("ffmpeg-opus", "ffmpeg-opus.sdp"), ("ffmpeg-h264-pcma", nil)] {
            let (out, stats) = try wav(capture(name + ".pcap"), sdp: sdp, tag: name)
            XCTAssertEqual((stats["wav"] as? [String: Any])?["decode_errors"] as? Int, 0, name)
            let onsets = Harness.beepOnsets(try Harness.pcm(out))
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
            let clean = try Harness.pcm(cleanOut), damaged = try Harness.pcm(out)
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
        let (recorded, sdp, _) = try Harness.opusDTXCall()
        let (out, stats) = try wav(recorded, sdp: sdp.path, tag: "opus-dtx")
        let audio = try XCTUnwrap((stats["audio_streams"] as? [[String: Any]])?.first)
        XCTAssertEqual(audio["lost"] as? Int, 0)
        XCTAssertEqual(audio["gaps"] as? Int, 0, "no packet was lost")
        XCTAssertGreaterThanOrEqual(audio["silences"] as? Int ?? 0, 3, "the sender fell silent between the beeps")
        XCTAssertEqual((stats["wav"] as? [String: Any])?["silences_filled"] as? Int, audio["silences"] as? Int)
        let onsets = Harness.beepOnsets(try Harness.pcm(out))
        XCTAssertEqual(onsets.count, 3, "\(onsets)")
        for (onset, second) in zip(onsets, [1.0, 2.0, 3.0]) { XCTAssertEqual(onset, second, accuracy: 0.06) }
    }

    /// G.722 that FFmpeg encoded, sent as PT 9 (20 ms a packet) with three packets lost: the
    /// WAV still lasts the 2 s sent, each loss silence of its length.
    func testLostG722PacketsBecomeSilenceOfTheirLength() throws {
        let pcap = try Harness.g722Tone(losing: [10, 11, 30], name: "lossy-g722").capture
        let (out, stats) = try wav(pcap, sdp: nil, tag: "lossy-g722")
        let wav = try XCTUnwrap(stats["wav"] as? [String: Any])
        XCTAssertEqual(wav["gaps_filled_with_silence"] as? Int, 2)
        XCTAssertEqual(wav["silence_ms"] as? Int, 60)
        XCTAssertEqual(wav["samples"] as? Int, 32000)
        XCTAssertEqual(try Harness.probe(out, "stream=sample_rate,channels"), "sample_rate=16000\nchannels=1\n")
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
