import Foundation
import XCTest

/// The sample-based encodings of RFC 3551 beyond G.711 and G.722: L16, L24 (RFC 3190: AES67 and
/// SMPTE ST 2110-30 send them) and G.726 (cameras), as FFmpeg's RTP muxer sends them, captured
/// on loopback: the samples written are the source's, checked with ffmpeg.
final class SampleAudioTests: XCTestCase {
    private let port = UInt16(46000 + Int(getpid() % 1000) * 2)

    /// Two seconds of a 440 Hz tone at `rate`, in `channels`, at `bits` in a WAV; what FFmpeg sends
    /// of it encoded by `encoder` (`-c:a pcm_s16be`, say), captured; and the SDP it wrote.
    private func send(_ encoder: [String], bits: Int = 16, rate: Int = 48000, channels: Int = 2,
                      name: String) throws -> (source: URL, capture: URL, sdp: URL) {
        let source = Harness.temporaryFile(name + "-source.wav"), sdp = Harness.temporaryFile(name + ".sdp")
        let made = try Harness.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(rate):duration=2",
                                              "-af", "volume=0.9", "-ac", "\(channels)", "-c:a", "pcm_s\(bits)le", source.path])
        XCTAssertEqual(made.status, 0, made.stderr)
        let capture = try Harness.record(name, port: port, bindingIt: true) {
            let sent = try Harness.run("ffmpeg", ["-v", "error", "-y", "-re", "-i", source.path] + encoder
                                       + ["-f", "rtp", "-sdp_file", sdp.path, "rtp://127.0.0.1:\(port)"])
            XCTAssertEqual(sent.status, 0, sent.stderr)
        }
        return (source, capture, sdp)
    }

    /// The samples of `url` as ffmpeg decodes them, in `format` (s16le, s24le).
    private func samples(_ url: URL, _ format: String) throws -> Data {
        let result = try Harness.run("ffmpeg", ["-v", "error", "-i", url.path, "-f", format, "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout
    }

    func testL24IsTheSourceSamplesInEveryOutput() throws {
        let (source, capture, sdp) = try send(["-c:a", "pcm_s24be"], bits: 24, name: "l24")
        XCTAssertTrue(try String(contentsOf: sdp, encoding: .utf8).contains("L24/48000/2"))
        let audio = Harness.temporaryFile("l24.wav"), wav = Harness.temporaryFile("l24-16.wav")
        let mkv = Harness.temporaryFile("l24.mkv"), mp4 = Harness.temporaryFile("l24.mp4"), stats = Harness.temporaryFile("l24.json")
        let result = try Harness.rtprecv(["--pcap", capture.path, "--sdp", sdp.path, "--audio", audio.path, "--wav", wav.path,
                                          "--mkv", mkv.path, "--mp4", mp4.path, "--stats-json", stats.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("MP4 does not carry L24 PCM: it is encoded to AAC"), result.stderr)
        // --audio and Matroska: every sample as sent; --wav its top 16 bits, as ffmpeg cuts them too.
        XCTAssertEqual(try Harness.probe(audio, "stream=codec_name,sample_rate,channels"), "codec_name=pcm_s24le\nsample_rate=48000\nchannels=2\n")
        let sent = try samples(source, "s24le")
        XCTAssertEqual(sent.count, 2 * 48000 * 2 * 3)
        XCTAssertTrue(try samples(audio, "s24le") == sent, "--audio: the samples sent")
        XCTAssertTrue(try samples(mkv, "s24le") == sent, "--mkv: the samples sent")
        XCTAssertTrue(try samples(wav, "s16le") == (try samples(source, "s16le")), "--wav: the samples sent, in 16 bits")
        XCTAssertEqual(try Harness.probe(mp4, "stream=codec_name,sample_rate,channels"), "codec_name=aac\nsample_rate=48000\nchannels=2\n")
        let statistics = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        let stream = try XCTUnwrap((statistics["audio_streams"] as? [[String: Any]])?.first)
        XCTAssertEqual(stream["codec"] as? String, "L24 PCM")
        XCTAssertEqual(stream["gaps"] as? Int, 0)
    }

    /// Without the SDP, --list tells linear PCM by its payloads' sizes, never taking its samples
    /// for H.264 (one in 32 payloads starts as an SPS would, and some parse as one).
    func testListNamesTheRTPMapOfL24WithoutAnSDP() throws {
        let (_, capture, _) = try send(["-c:a", "pcm_s24be"], bits: 24, name: "l24-list")
        let list = try Harness.rtprecv(["--pcap", capture.path, "--list"])
        XCTAssertEqual(list.status, 0, list.stderr)
        let text = String(decoding: list.stdout, as: UTF8.self)
        XCTAssertTrue(text.contains("unknown: a dynamic payload type"), text)
        XCTAssertTrue(text.contains("an SDP with a=rtpmap:97 L24/48000/2 takes it"), text)
        XCTAssertFalse(text.contains("H264"), text)
        XCTAssertFalse(text.contains("Opus"), text)
    }

    /// L16 stereo at 44.1 kHz is RFC 3551's static payload type 10: taken without an SDP.
    func testL16OnItsStaticPayloadTypeNeedsNoSDP() throws {
        let (source, capture, sdp) = try send(["-c:a", "pcm_s16be"], rate: 44100, name: "l16")
        XCTAssertTrue(try String(contentsOf: sdp, encoding: .utf8).contains("m=audio \(port) RTP/AVP 10"))
        let audio = Harness.temporaryFile("l16.wav")
        let result = try Harness.rtprecv(["--pcap", capture.path, "--audio", audio.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Harness.probe(audio, "stream=codec_name,sample_rate,channels"), "codec_name=pcm_s16le\nsample_rate=44100\nchannels=2\n")
        let sent = try samples(source, "s16le")
        XCTAssertEqual(sent.count, 2 * 44100 * 2 * 2)
        XCTAssertTrue(try samples(audio, "s16le") == sent, "--audio: the samples sent")
    }

    /// G.726 at 32 kbit/s as RFC 3551 packs it (G726-32) and at 16 kbit/s as AAL2 does
    /// (AAL2-G726-16): --audio writes WAV (G.726's tag, its codes packed as WAV has them) and --wav
    /// PCM, both the samples of the codes sent, as ffmpeg decodes them from FFmpeg's own encoding;
    /// without the SDP, --audio-codec names it.
    func testG726InEitherPackingIsTheCodesSent() throws {
        for (encoder, format, bits, rtpmap) in [("adpcm_g726le", "g726le", 4, "G726-32/8000"), ("adpcm_g726", "g726", 2, "AAL2-G726-16/8000")] {
            let name = "g726-\(bits)"
            let (source, capture, sdp) = try send(["-c:a", encoder, "-code_size", "\(bits)"], rate: 8000, channels: 1, name: name)
            XCTAssertTrue(try String(contentsOf: sdp, encoding: .utf8).contains(rtpmap), rtpmap)
            // The codes sent: FFmpeg's encoder gives the same for the same samples.
            let codes = Harness.temporaryFile(name + ".raw")
            let encoded = try Harness.run("ffmpeg", ["-v", "error", "-y", "-i", source.path, "-c:a", encoder, "-code_size", "\(bits)",
                                                     "-f", format, codes.path])
            XCTAssertEqual(encoded.status, 0, encoded.stderr)
            let sent = try Harness.run("ffmpeg", ["-v", "error", "-f", format, "-code_size", "\(bits)", "-sample_rate", "8000",
                                                  "-i", codes.path, "-f", "s16le", "-"]).stdout
            XCTAssertEqual(sent.count, 2 * 8000 * 2)
            let audio = Harness.temporaryFile(name + ".wav"), wav = Harness.temporaryFile(name + "-pcm.wav")
            let result = try Harness.rtprecv(["--pcap", capture.path, "--sdp", sdp.path, "--audio", audio.path, "--wav", wav.path])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(try Harness.probe(audio, "stream=codec_name,sample_rate,channels"),
                           "codec_name=adpcm_g726\nsample_rate=8000\nchannels=1\n", rtpmap)
            XCTAssertTrue(try samples(audio, "s16le") == sent, "--audio of \(rtpmap): the codes sent")
            XCTAssertTrue(try samples(wav, "s16le") == sent, "--wav of \(rtpmap): their samples")
            // Without the SDP (a capture without its signalling), the codec named by --audio-codec.
            let payloadType = try String(contentsOf: sdp, encoding: .utf8).components(separatedBy: "a=rtpmap:")[1].prefix(while: \.isNumber)
            let named = Harness.temporaryFile(name + "-named.wav"), codec = rtpmap.prefix(while: { $0 != "/" }).lowercased()
            let byName = try Harness.rtprecv(["--pcap", capture.path, "--audio-payload-type", String(payloadType), "--audio-codec", codec,
                                              "--wav", named.path])
            XCTAssertEqual(byName.status, 0, byName.stderr)
            XCTAssertTrue(try samples(named, "s16le") == sent, "--audio-codec \(codec): the samples")
        }
    }
}
