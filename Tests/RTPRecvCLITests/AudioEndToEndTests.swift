import Foundation
import XCTest

/// Audio beside video, from captures of real senders (scripts/make-captures), checked with ffmpeg
/// and ffprobe against the source they were sent from.
final class AudioEndToEndTests: XCTestCase {
    private func capture(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    /// Replays `name`.pcap (with its SDP when `sdp`), writing --audio to a file named `audioName`.
    private func audio(_ name: String, sdp: Bool = true, as audioName: String, _ extra: [String] = []) throws -> URL {
        let out = Harness.temporaryFile(name + "-" + audioName)
        let args = ["--pcap", capture(name + ".pcap").path, "--audio", out.path, "-q"]
            + (sdp ? ["--sdp", capture(name + ".sdp").path] : []) + extra
        let result = try Harness.rtprecv(args)
        XCTAssertEqual(result.status, 0, result.stderr)
        return out
    }

    private func packetMD5(_ url: URL, adts: Bool = false) throws -> [String] { try Harness.packetMD5(url, adts: adts) }
    private func hashes(_ framemd5: Data) -> [String] { Harness.hashes(framemd5) }
    private func videoMD5(_ url: URL) throws -> [String] { try Harness.videoMD5(url) }

    private lazy var sourceAAC: [String] = (try? packetMD5(capture("sync-source.mkv"))) ?? []

    /// `received` is the source's frames from the first, in order, none missing but at the end; FFmpeg's
    /// muxer does not send the AUs still gathered for a packet when its input ends.
    private func assertSourcePrefix(_ received: [String], of source: [String], atLeast fraction: Double,
                                    file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(source.isEmpty, file: file, line: line)
        XCTAssertGreaterThanOrEqual(Double(received.count), Double(source.count) * fraction, file: file, line: line)
        XCTAssertEqual(received, Array(source.prefix(received.count)), file: file, line: line)
    }

    func testAACFromGStreamerRTPBinIsBitExact() throws {
        let out = try audio("gst-h264-aac", as: "a.aac")
        XCTAssertEqual(try packetMD5(out, adts: true), sourceAAC)
        XCTAssertEqual(try Harness.probe(out, "stream=codec_name,sample_rate,channels"),
                       "codec_name=aac\nsample_rate=48000\nchannels=2\n")
    }

    func testLATMFromGStreamerIsBitExact() throws {
        // rtpmp4apay's config ends after the AudioSpecificConfig; cpresent=0.
        let out = try audio("gst-h264-latm", as: "a.aac")
        XCTAssertEqual(try packetMD5(out, adts: true), sourceAAC)
    }

    func testAACFromFFmpegIsBitExactWhereItWasSent() throws {
        // FFmpeg puts many AUs in a packet, with the SBR sync extension in its config.
        assertSourcePrefix(try packetMD5(try audio("ffmpeg-h264-aac", as: "a.aac"), adts: true), of: sourceAAC, atLeast: 0.9)
    }

    func testAACFragmentedOverPacketsIsRebuilt() throws {
        let stats = Harness.temporaryFile("fragmented.json")
        let out = try audio("ffmpeg-aac-fragmented", as: "a.aac", ["--stats-json", stats.path])
        assertSourcePrefix(try packetMD5(out, adts: true), of: sourceAAC, atLeast: 0.99)
        let audio = try XCTUnwrap(try statistics(stats)["audio_streams"] as? [[String: Any]]).first
        XCTAssertEqual(audio?["codec"] as? String, "AAC")
        XCTAssertEqual((audio?["frames_dropped"] as? [String: Int])?.values.reduce(0, +), 0)
    }

    func testG711IsTheSourceSamplesWithoutAnSDP() throws {
        for (name, source, codec) in [("gst-h264-pcmu", "sync-source-mulaw.wav", "pcm_mulaw"),
                                      ("ffmpeg-h264-pcma", "sync-source-alaw.wav", "pcm_alaw")] {
            let out = try audio(name, sdp: false, as: "g711.wav")
            XCTAssertEqual(try Harness.probe(out, "stream=codec_name,sample_rate,channels"),
                           "codec_name=\(codec)\nsample_rate=8000\nchannels=1\n", name)
            XCTAssertEqual(try samples(out), try samples(capture(source)), name)
        }
    }

    func testMP3FramesAreTheSource() throws {
        let out = try audio("ffmpeg-h264-mp3", sdp: false, as: "a.mp3")
        assertSourcePrefix(try packetMD5(out), of: try packetMD5(capture("sync-source.mp3")), atLeast: 0.9)
        XCTAssertEqual(try Harness.probe(out, "stream=codec_name,sample_rate"), "codec_name=mp3\nsample_rate=48000\n")
    }

    /// MPEG audio on a dynamic payload type with no SDP (as Membrane's demo sends it): --list
    /// recognises RFC 2250's payloads and names the options that take them, which then write the
    /// same frames as the static type 14 does; no video or Opus stream is taken for it.
    func testMPEGAudioOnADynamicTypeIsNamedByList() throws {
        let pcap = Harness.temporaryFile("mp3-dynamic.pcap")
        // The capture's audio (PT 14, port 5172) moved to PT 100: its RTP header's second byte.
        let moved = try TestPcap.records(of: capture("ffmpeg-h264-mp3.pcap")).map { record -> (nanoseconds: UInt64, frame: [UInt8]) in
            var frame = record.frame
            if frame.count > 43, frame[36] == 0x14, frame[37] == 0x34, frame[43] & 0x7F == 14 { frame[43] = frame[43] & 0x80 | 100 }
            return (record.microseconds * 1000, frame)
        }
        try TestPcap.data(linkType: 1, records: moved).write(to: pcap)
        let listed = String(decoding: try Harness.rtprecv(["--pcap", pcap.path, "--list"]).stdout, as: UTF8.self)
        let lines = listed.split(separator: "\n")
        let audio = try XCTUnwrap(lines.first { $0.contains(" 100 ") }, listed)
        XCTAssertTrue(audio.hasSuffix("(its payloads are MPEG audio as RFC 2250 carries it: --audio-payload-type 100 --audio-codec mpa takes it)"), listed)
        XCTAssertEqual(lines.filter { $0.contains("MPEG audio as") }.count, 1, listed)
        for other in ["ffmpeg-opus.pcap", "ffmpeg-vp8.pcap", "gst-h264-aac.pcap"] {
            let text = String(decoding: try Harness.rtprecv(["--pcap", capture(other).path, "--list"]).stdout, as: UTF8.self)
            XCTAssertFalse(text.contains("MPEG audio as"), "\(other): \(text)")
        }
        let taken = Harness.temporaryFile("mp3-dynamic.mp3"), reference = Harness.temporaryFile("mp3-static.mp3")
        let r = try Harness.rtprecv(["--pcap", pcap.path, "--audio-payload-type", "100", "--audio-codec", "mpa", "--audio", taken.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try Harness.rtprecv(["--pcap", capture("ffmpeg-h264-mp3.pcap").path, "--audio", reference.path]).status, 0)
        XCTAssertGreaterThan(try Data(contentsOf: taken).count, 10_000)
        XCTAssertEqual(try packetMD5(taken), try packetMD5(reference))
    }

    /// Opus in Ogg: each packet is an RTP payload of the capture, as tshark reads them, in order,
    /// and the file lasts what they do.
    func testOpusIsWrittenAsOgg() throws {
        let stats = Harness.temporaryFile("opus.json")
        let out = Harness.temporaryFile("audio.opus")
        let result = try Harness.rtprecv(["--pcap", capture("ffmpeg-opus.pcap").path, "--sdp", capture("ffmpeg-opus.sdp").path,
                                          "--audio", out.path, "--stats-json", stats.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let payloads = try Harness.rtpPayloadMD5(capture("ffmpeg-opus.pcap"), port: 5180, payloadType: 97)
        XCTAssertGreaterThan(payloads.count, 100)
        XCTAssertEqual(try packetMD5(out), payloads)
        XCTAssertEqual(try Harness.probe(out, "stream=codec_name,sample_rate,channels"), "codec_name=opus\nsample_rate=48000\nchannels=2\n")
        let duration = try Harness.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out.path])
        XCTAssertEqual(Double(String(decoding: duration.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0,
                       Double(payloads.count) * 0.02, accuracy: 0.05)
        let audio = try XCTUnwrap(try statistics(stats)["audio_streams"] as? [[String: Any]]).first
        XCTAssertEqual(audio?["codec"] as? String, "Opus")
        XCTAssertEqual(audio?["frames_written"] as? Int, audio?["packets"] as? Int)
        XCTAssertEqual(audio?["gaps"] as? Int, 0, "FFmpeg's timestamps wobble by 8 ticks: not a loss")
        // The same packets, the same file (Ogg's serial number is not left to chance).
        let again = Harness.temporaryFile("audio-again.opus")
        XCTAssertEqual(try Harness.rtprecv(["--pcap", capture("ffmpeg-opus.pcap").path, "--sdp", capture("ffmpeg-opus.sdp").path,
                                            "--audio", again.path]).status, 0)
        XCTAssertEqual(try Data(contentsOf: again), try Data(contentsOf: out))
    }

    /// G.722 in WAV with its own format tag: FFmpeg decodes it to what it decodes from the G.722
    /// FFmpeg encoded, sent here as PT 9 (160 bytes, 20 ms a packet), no SDP needed.
    func testG722IsWrittenAsWAVThatFFmpegDecodes() throws {
        let (raw, pcap) = try Harness.g722Tone(losing: [], name: "g722")
        let out = Harness.temporaryFile("g722.wav")
        let result = try Harness.rtprecv(["--pcap", pcap.path, "--audio", out.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Harness.probe(out, "stream=codec_name,sample_rate,channels"), "codec_name=adpcm_g722\nsample_rate=16000\nchannels=1\n")
        let samples = { (arguments: [String]) throws -> Data in
            try Harness.run("ffmpeg", ["-v", "error"] + arguments + ["-f", "s16le", "-"]).stdout
        }
        let fromFile = try samples(["-i", out.path]), fromSource = try samples(["-f", "g722", "-i", raw.path])
        XCTAssertEqual(fromFile.count, 32000 * 2, "2 s at 16 kHz")
        XCTAssertTrue(fromFile == fromSource, "the samples of the G.722 sent")
    }

    /// Opus without its SDP (a WebRTC capture, whose SDP went over signalling): the hint names
    /// --audio-codec, which then gives what the SDP gives, byte for byte, and --list names it.
    func testOpusWithoutItsSDPIsTakenByAudioCodec() throws {
        let pcap = capture("ffmpeg-opus.pcap").path
        let without = try Harness.rtprecv(["--pcap", pcap, "--out", "/dev/null"])
        XCTAssertTrue(without.stderr.contains("(Opus or MPEG audio: or --audio-payload-type 97 --audio-codec opus or mpa, which --list tells apart)"), without.stderr)
        let bySDP = Harness.temporaryFile("opus-sdp.wav"), byOption = Harness.temporaryFile("opus-option.wav")
        XCTAssertEqual(try Harness.rtprecv(["--pcap", pcap, "--sdp", capture("ffmpeg-opus.sdp").path, "--wav", bySDP.path]).status, 0)
        let r = try Harness.rtprecv(["--pcap", pcap, "--audio-payload-type", "97", "--audio-codec", "opus", "--wav", byOption.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertGreaterThan(try Data(contentsOf: byOption).count, 100_000)
        XCTAssertEqual(try Data(contentsOf: byOption), try Data(contentsOf: bySDP))
        XCTAssertEqual(try Harness.probe(byOption, "stream=codec_name,sample_rate,channels"), "codec_name=pcm_s16le\nsample_rate=48000\nchannels=2\n")
        let list = try Harness.rtprecv(["--pcap", pcap, "--list", "--audio-payload-type", "97", "--audio-codec", "opus"])
        let listed = String(decoding: list.stdout, as: UTF8.self)
        XCTAssertTrue(listed.contains("opus/48000/2, 20 ms packets"), listed)
        // Without it, --list guesses from the timestamps' 48 kHz; not for AAC, whose steps are 1024.
        let guessed = String(decoding: try Harness.rtprecv(["--pcap", pcap, "--list"]).stdout, as: UTF8.self)
        XCTAssertTrue(guessed.contains("unknown: a dynamic payload type") && guessed.contains(
            "(its timestamps run at 48 kHz, as Opus's do: --audio-payload-type 97 --audio-codec opus takes it as Opus)"), guessed)
        let aac = String(decoding: try Harness.rtprecv(["--pcap", capture("gst-h264-aac.pcap").path, "--list"]).stdout, as: UTF8.self)
        XCTAssertTrue(aac.contains("unknown: a dynamic payload type") && !aac.contains("as Opus's do"), aac)
        for (arguments, says) in [(["--audio-codec", "opus"], "give it with '--audio-payload-type N'"),
                                  (["--audio-payload-type", "97", "--audio-codec", "aac"], "AAC needs its config"),
                                  (["--audio-payload-type", "97", "--audio-codec", "speex"], "expected opus, pcmu, pcma, g722, g726-32")] {
            let refused = try Harness.rtprecv(["--pcap", pcap] + arguments)
            XCTAssertEqual(refused.status, 64, refused.stderr)
            XCTAssertTrue(refused.stderr.contains(says), refused.stderr)
        }
    }

    func testAACWithoutItsSDPIsSaidInOneLine() throws {
        let result = try Harness.rtprecv(["--pcap", capture("gst-h264-aac.pcap").path, "--out", "/dev/null"])
        XCTAssertEqual(result.status, 0)
        let hints = result.stderr.split(separator: "\n").filter { $0.contains("needs the SDP for its codec") }
        XCTAssertEqual(hints.count, 1, result.stderr)
        XCTAssertTrue(hints[0].contains("PT 97"), String(hints[0]))
        // With the SDP it is taken, and nothing is said.
        let with = try Harness.rtprecv(["--pcap", capture("gst-h264-aac.pcap").path, "--sdp", capture("gst-h264-aac.sdp").path,
                                        "--out", "/dev/null"])
        XCTAssertFalse(with.stderr.contains("needs the SDP"), with.stderr)
    }

    /// Comfort noise (RFC 3389, static type 13) whose level byte reads as an H.264 slice header, and
    /// slice-like bytes on static audio types: listed by their RFC 3551 names, never tried as video.
    func testStaticPayloadTypesAreNeverTakenForVideo() throws {
        var records: [(nanoseconds: UInt64, frame: [UInt8])] = []
        for i in 0..<60 {
            let pt: UInt8 = i % 3 == 0 ? 13 : i % 3 == 1 ? 0 : 8
            // 0x41: a non-IDR slice's NAL header; 0x65: an IDR's.
            let payload: [UInt8] = [i % 2 == 0 ? 0x41 : 0x65, 0x9A] + (0..<30).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ i) }
            let rtp = TestPcap.rtp(payload, payloadType: pt, marker: true, sequence: UInt16(i / 3), timestamp: UInt32(i / 3 * 160),
                                   ssrc: 0x5151_0000 | UInt32(pt))
            records.append((UInt64(i) * 20_000_000, TestPcap.udpFrame(rtp, ethernet: true)))
        }
        let pcap = Harness.temporaryFile("static-types.pcap")
        try TestPcap.data(linkType: 1, records: records).write(to: pcap)
        let list = String(decoding: try Harness.rtprecv(["--pcap", pcap.path, "--list"]).stdout, as: UTF8.self)
        XCTAssertTrue(list.contains("comfort noise (RFC 3389)"), list)
        XCTAssertFalse(list.contains("H264") || list.contains("H265"), list)
        let out = Harness.temporaryFile("static-types.h264")
        let run = try Harness.rtprecv(["--pcap", pcap.path, "--out", out.path])
        XCTAssertTrue(run.stderr.contains("no H.264, H.265, VP8, VP9, AV1 or Motion JPEG stream found"), run.stderr)
        XCTAssertEqual((try? Data(contentsOf: out))?.count ?? 0, 0, run.stderr)
    }

    /// Without the SDP, the AAC stream beside the video earns a hint; once --payload-type leaves it
    /// out, it is not called "not H.264, H.265, VP8, VP9 or AV1".
    func testAStreamLeftOutByChoiceIsNotCalledNotVideo() throws {
        let out = Harness.temporaryFile("left-out.h264")
        let all = try Harness.rtprecv(["--pcap", capture("ffmpeg-h264-aac.pcap").path, "--out", out.path])
        XCTAssertTrue(all.stderr.contains("is not H.264, H.265, VP8, VP9 or AV1 (Motion JPEG is taken on a dynamic type only when "
                                          + "named: --codec mjpeg --payload-type 97"), all.stderr)
        let chosen = try Harness.rtprecv(["--pcap", capture("ffmpeg-h264-aac.pcap").path, "--out", out.path, "--payload-type", "96"])
        XCTAssertEqual(chosen.status, 0, chosen.stderr)
        XCTAssertFalse(chosen.stderr.contains("is not H.264, H.265"), chosen.stderr)
    }

    func testListNamesEveryTrackAndWhatIsNotTaken() throws {
        func list(_ pcap: String, sdp: String? = nil) throws -> String {
            var args = ["--pcap", capture(pcap).path, "--list"]
            if let sdp {
                let url = Harness.temporaryFile("list.sdp")
                try sdp.write(to: url, atomically: true, encoding: .utf8)
                args += ["--sdp", url.path]
            }
            return String(decoding: try Harness.rtprecv(args).stdout, as: UTF8.self)
        }
        let mp3 = try list("ffmpeg-h264-mp3.pcap")
        // FFmpeg puts several MP3 frames of 24 ms (1152 samples at 48 kHz) in a packet: a multiple of it.
        let duration = try XCTUnwrap(mp3.firstMatch(of: /MPA\/90000, ([0-9.]+) ms packets/)?.1).flatMap { Double($0) }
        XCTAssertEqual(try XCTUnwrap(duration).truncatingRemainder(dividingBy: 24), 0, accuracy: 0.2, mp3)
        let aac = try list("gst-h264-aac.pcap", sdp: String(contentsOf: capture("gst-h264-aac.sdp"), encoding: .utf8))
        XCTAssertTrue(aac.contains("MPEG4-GENERIC/48000/2, 21.3 ms packets\n"), aac)
        // A codec rtprecv does not take is named by its rtpmap, never read as H.264.
        let other = try list("gst-h264-aac.pcap", sdp: "v=0\nm=audio 5112 RTP/AVP 97\na=rtpmap:97 G729/8000\n")
        XCTAssertTrue(other.contains("G729/8000, 128 ms packets (not supported)"), other)  // 48 kHz ticks read at 8 kHz
    }

    func testVideoIsTheSameBesideAudio() throws {
        for name in ["gst-h264-aac", "ffmpeg-h264-aac", "gst-h264-latm"] {
            let with = Harness.temporaryFile(name + "-with.h264"), without = Harness.temporaryFile(name + "-without.h264")
            let sdp = capture(name + ".sdp").path, pcap = capture(name + ".pcap").path
            XCTAssertEqual(try Harness.rtprecv(["--pcap", pcap, "--sdp", sdp, "--out", with.path, "--audio",
                                                Harness.temporaryFile("x.aac").path, "-q"]).status, 0)
            XCTAssertEqual(try Harness.rtprecv(["--pcap", pcap, "--sdp", sdp, "--out", without.path, "--no-audio", "-q"]).status, 0)
            XCTAssertEqual(try Data(contentsOf: with), try Data(contentsOf: without), name)
            XCTAssertEqual(try videoMD5(with), try videoMD5(capture("sync-source.mkv")), name)
        }
    }

    func testLossInOneTrackLeavesTheOtherUntouched() throws {
        let records = try TestPcap.records(of: capture("gst-h264-aac.pcap"))
        func port(_ frame: [UInt8]) -> Int { Int(frame[36]) << 8 | Int(frame[37]) }  // Ethernet, IPv4: UDP dport
        // Every 7th audio packet gone, then every 5th video packet gone.
        for (lossy, other) in [(5112, 5110), (5110, 5112)] {
            var n = 0
            let kept = records.filter { record in
                guard port(record.frame) == lossy else { return true }
                n += 1
                return n % (lossy == 5112 ? 7 : 5) != 0
            }
            let damaged = Harness.temporaryFile("lossy-\(lossy).pcap")
            try TestPcap.data(linkType: 1, records: kept.map { ($0.microseconds * 1000, $0.frame) }).write(to: damaged)
            let clean = try outputs(capture("gst-h264-aac.pcap"), tag: "clean")
            let lossyOut = try outputs(damaged, tag: "lossy-\(lossy)")
            if other == 5110 {
                XCTAssertEqual(lossyOut.video, clean.video, "audio loss leaves the video as it was")
                let received = try packetMD5(lossyOut.audio, adts: true)
                XCTAssertEqual(received.count, sourceAAC.count - n / 7)
                XCTAssertTrue(isSubsequence(received, of: sourceAAC), "what is left of the audio is the source's, in order")
                let audio = try XCTUnwrap(try statistics(lossyOut.stats)["audio_streams"] as? [[String: Any]]).first
                // Each lost packet (one AU each) leaves a gap, but one at the very end: nothing follows it.
                XCTAssertEqual(audio?["gaps"] as? Int, n / 7 - (n % 7 == 0 ? 1 : 0))
            } else {
                XCTAssertEqual(try Data(contentsOf: lossyOut.audio), try Data(contentsOf: clean.audio),
                               "video loss leaves the audio as it was")
                XCTAssertNotEqual(lossyOut.video, clean.video)
            }
        }
    }

    // MARK: Helpers

    private func outputs(_ pcap: URL, tag: String) throws -> (video: Data, audio: URL, stats: URL) {
        let video = Harness.temporaryFile(tag + ".h264"), audio = Harness.temporaryFile(tag + ".aac")
        let stats = Harness.temporaryFile(tag + ".json")
        let result = try Harness.rtprecv(["--pcap", pcap.path, "--sdp", capture("gst-h264-aac.sdp").path, "--out", video.path,
                                          "--audio", audio.path, "--stats-json", stats.path, "-q"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return (try Data(contentsOf: video), audio, stats)
    }

    private func statistics(_ url: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    }

    /// The samples of a WAV file, as ffmpeg reads them.
    private func samples(_ url: URL) throws -> Data {
        let result = try Harness.run("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a", "-c", "copy", "-f", "data", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout
    }

    private func isSubsequence(_ a: [String], of b: [String]) -> Bool {
        var i = b.startIndex
        for x in a {
            guard let found = b[i...].firstIndex(of: x) else { return false }
            i = found + 1
        }
        return true
    }
}
