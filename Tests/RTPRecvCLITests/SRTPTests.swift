import Foundation
import XCTest

/// SRTP from real senders (GStreamer's srtpenc, FFmpeg's srtp protocol, a real call capture), live and
/// captured, decrypted by rtprecv and checked against the source (framemd5) or against an independent
/// decryption by libsrtp2 through pylibsrtp (`scripts/srtp-decrypt`) followed by a plain replay.
final class SRTPTests: XCTestCase {
    private let source = Harness.captures.appendingPathComponent("gst-stapa-fua.h264")
    private let alice = Harness.realCaptures.appendingPathComponent("rtpproxy_alice_srtp.pcap")
    private let aliceKey = "AES_CM_128_HMAC_SHA1_80:9sOd+W72ilwfNgNt0FzlGYj6YZPMqN1sJJx43UuS"

    private func randomKey(_ count: Int) -> (hex: String, base64: String) {
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255) }
        return (bytes.map { String(format: "%02x", $0) }.joined(), Data(bytes).base64EncodedString())
    }

    /// GStreamer: the source through rtph264pay and srtpenc, to `port`; `paced` at the frame rate, else
    /// as fast as it goes.
    private func gstreamerSRTP(port: UInt16, keyHex: String, cipher: String = "aes-128-icm", auth: String = "hmac-sha1-80",
                               ssrc: UInt32 = 0x1234, sequenceStart: Int? = nil, paced: Bool = false, mki: String? = nil) throws {
        let result = try Harness.run("gst-launch-1.0", [
            "-q", "filesrc", "location=\(source.path)", "!", "h264parse", "!", "rtph264pay", "config-interval=-1", "pt=96",
            "ssrc=\(ssrc)"] + (sequenceStart.map { ["seqnum-offset=\($0)"] } ?? []) + [
            "!", "srtpenc", "key=\(keyHex)"] + (mki.map { ["mki=\($0)"] } ?? []) + [ "rtp-cipher=\(cipher)", "rtp-auth=\(auth)", "rtcp-cipher=\(cipher)", "rtcp-auth=\(auth)",
            "!", "udpsink", "host=127.0.0.1", "port=\(port)", "sync=\(paced)"])
        XCTAssertEqual(result.status, 0, "gst-launch: \(result.stderr)")
    }

    /// rtprecv live on a free port with `arguments`, fed by `send`; its output, stderr and statistics.
    private func receive(_ arguments: [String], name: String = #function, send: (UInt16) throws -> Void)
        throws -> (out: URL, stderr: String, stats: [String: Any]) {
        let stats = Harness.temporaryFile(name + ".json")
        let listener = try LiveTests.Listener(["--port", "0", "--bind", "127.0.0.1", "--stats-json", stats.path] + arguments,
                                              name: name)
        try send(listener.port)
        usleep(300_000)
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        return (listener.out, listener.stderr, json)
    }

    private func srtpCounts(_ stats: [String: Any]) -> [[String: Any]] {
        ((stats["srtp"] as? [String: Any])?["ssrcs"] as? [[String: Any]]) ?? []
    }

    // MARK: Live

    func testGStreamerSRTPEncEverySuiteIsBitExact() throws {
        let expected = try Harness.frameMD5(source)
        for (cipher, auth, suite, length) in [("aes-128-icm", "hmac-sha1-80", "AES_CM_128_HMAC_SHA1_80", 30),
                                              ("aes-128-icm", "hmac-sha1-32", "AES_CM_128_HMAC_SHA1_32", 30),
                                              ("aes-256-icm", "hmac-sha1-80", "AES_256_CM_HMAC_SHA1_80", 46),
                                              ("aes-256-icm", "hmac-sha1-32", "AES_256_CM_HMAC_SHA1_32", 46),
                                              ("aes-128-gcm", "null", "AEAD_AES_128_GCM", 28),
                                              ("aes-256-gcm", "null", "AEAD_AES_256_GCM", 44)] {
            let key = randomKey(length)
            let (out, stderr, stats) = try receive(["--srtp-key", "\(suite):\(key.base64)"], name: "srtp-\(suite)") { port in
                try gstreamerSRTP(port: port, keyHex: key.hex, cipher: cipher, auth: auth)
            }
            XCTAssertEqual(try Harness.frameMD5(out), expected, "\(suite): \(stderr)")
            XCTAssertEqual(srtpCounts(stats).first?["decrypted"] as? Int, 481, suite)
            XCTAssertFalse(stderr.contains(key.base64) || stderr.contains(key.hex), "the key shows in the output")
        }
    }

    /// FFmpeg's own SRTP (libavformat, not libsrtp), with SRTCP sender reports on the same port.
    func testFFmpegSRTPAndSRTCPAreBitExact() throws {
        let expected = try Harness.frameMD5(source)
        for suite in ["AES_CM_128_HMAC_SHA1_80", "AES_CM_128_HMAC_SHA1_32"] {
            let key = randomKey(30)
            let (out, stderr, stats) = try receive(["--srtp-key", "\(suite):\(key.base64)"], name: "ffmpeg-\(suite)") { port in
                let r = try Harness.run("ffmpeg", ["-v", "error", "-re", "-i", source.path, "-c", "copy", "-f", "rtp",
                                                   "-sdp_file", "/dev/null", "-srtp_out_suite", suite, "-srtp_out_params", key.base64,
                                                   "srtp://127.0.0.1:\(port)?rtcpport=\(port)"])
                XCTAssertEqual(r.status, 0, r.stderr)
            }
            XCTAssertEqual(try Harness.frameMD5(out), expected, "\(suite): \(stderr)")
            let counts = try XCTUnwrap(srtpCounts(stats).first)
            XCTAssertGreaterThan(counts["decrypted_rtcp"] as? Int ?? 0, 0, "SRTCP: \(stderr)")
            XCTAssertGreaterThan((stats["streams"] as? [[String: Any]])?.first?["sender_reports"] as? Int ?? 0, 0, stderr)
        }
    }

    /// The sequence numbers wrap after 236 of the 481 packets: the rollover counter follows (RFC 3711 §3.3.1).
    func testSequenceNumbersWrappingMidStreamStayDecrypted() throws {
        let key = randomKey(30)
        let (out, stderr, _) = try receive(["--srtp-key", key.base64]) { port in
            try gstreamerSRTP(port: port, keyHex: key.hex, sequenceStart: 65_300)
        }
        XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(source), stderr)
    }

    /// With an MKI in every packet (RFC 3711 §3.1), which the SDES line announces as value:length.
    func testTheSDPsCryptoLineIsTheKey() throws {
        let key = randomKey(30)
        let sdp = Harness.temporaryFile("crypto.sdp")
        try """
        v=0
        o=- 1 1 IN IP4 127.0.0.1
        s=SRTP
        c=IN IP4 127.0.0.1
        t=0 0
        m=video 0 RTP/SAVP 96
        a=rtpmap:96 H264/90000
        a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(key.base64)|2^31|16909060:4

        """.write(to: sdp, atomically: true, encoding: .utf8)
        let (out, stderr, _) = try receive(["--sdp", sdp.path]) { port in try gstreamerSRTP(port: port, keyHex: key.hex, mki: "01020304") }
        XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(source), stderr)
        XCTAssertTrue(stderr.contains("from SDP line 8"), stderr)
    }

    /// With no key, an SAVP line's packets are counted as encrypted, never parsed as H.264.
    func testSAVPWithoutAKeyIsReportedEncryptedNotDecodedAsGarbage() throws {
        let key = randomKey(30)
        let sdp = Harness.temporaryFile("savp.sdp")
        try "v=0\no=- 1 1 IN IP4 127.0.0.1\ns=-\nc=IN IP4 127.0.0.1\nt=0 0\nm=video 0 RTP/SAVP 96\na=rtpmap:96 H264/90000\n"
            .write(to: sdp, atomically: true, encoding: .utf8)
        let (out, stderr, stats) = try receive(["--sdp", sdp.path]) { port in try gstreamerSRTP(port: port, keyHex: key.hex) }
        XCTAssertEqual(try Data(contentsOf: out).count, 0)
        XCTAssertTrue(stderr.contains("0x00001234: encrypted (SRTP?): the SDP says SAVP and no key was given"), stderr)
        XCTAssertEqual(srtpCounts(stats).first?["no_key"] as? Int, 481)
    }

    /// DTLS-SRTP keying material (RFC 5764 §4.2) holds both sides' keys: the role picks one.
    func testDTLSKeyingMaterialDecryptsTheSideItsRoleNames() throws {
        let client = randomKey(30), server = randomKey(30)
        func bytes(_ hex: String) -> [String] { stride(from: 0, to: hex.count, by: 2).map { String(Array(hex)[$0..<$0 + 2]) } }
        let c = bytes(client.hex), s = bytes(server.hex)
        let material = (c[0..<16] + s[0..<16] + c[16...] + s[16...]).joined()
        for (role, decrypts) in [("client", true), ("server", false), ("auto", true)] {
            let (out, stderr, _) = try receive(["--srtp-keying-material", material, "--dtls-role", role], name: "dtls-\(role)") { port in
                try gstreamerSRTP(port: port, keyHex: client.hex)
            }
            if decrypts {
                XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(source), "\(role): \(stderr)")
            } else {
                XCTAssertTrue(stderr.contains("0x00001234: every packet failed SRTP authentication: wrong key or suite?"), stderr)
            }
            XCTAssertFalse(stderr.contains(material.prefix(16)), "keying material in the output")
        }
    }

    // MARK: Keys that are wrong

    func testWrongTruncatedAndUnknownKeysSaySoInOneLine() throws {
        let sent = randomKey(30), wrong = randomKey(30)
        let (_, stderr, _) = try receive(["--srtp-key", wrong.base64]) { port in try gstreamerSRTP(port: port, keyHex: sent.hex) }
        XCTAssertEqual(stderr.split(separator: "\n").filter { $0.contains("0x00001234: every packet failed SRTP authentication: wrong key or suite?") }.count,
                       1, stderr)
        let capture = Harness.captures.appendingPathComponent("gst-stapa-fua.pcap").path
        for (key, expected) in [("9sOd+W72ilwfNgNt0FzlGYj6YZPMqN1sJJx43", "cut short"),
                                ("AES_CM_128_HMAC_SHA1_80:9sOd+W72ilwfNgNt0FzlGYj6YZPMqN1s", "this key has 24"),
                                ("AES_CM_129_HMAC_SHA1_80:9sOd+W72ilwfNgNt0FzlGYj6YZPMqN1sJJx43UuS", "unknown SRTP suite 'AES_CM_129_HMAC_SHA1_80'")] {
            let r = try Harness.rtprecv(["--pcap", capture, "--srtp-key", key])
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.split(separator: "\n").first?.contains(expected) ?? false, r.stderr)
            XCTAssertFalse(r.stderr.contains("9sOd+W72"), "the key shows: \(r.stderr)")
        }
    }

    /// Ciphertext without its key, in a stream too short for the 256 first-byte values: 40 or 70
    /// packets, as a short call's, are "encrypted (SRTP?)", never H.264 with nonsense sizes, in the
    /// list and in the replay's hint; Opus, whose TOC byte sets the top bit too, is not.
    func testAShortEncryptedStreamIsListedEncrypted() throws {
        var generator = SystemRandomNumberGenerator()
        for count in [40, 70] {
            var records: [(nanoseconds: UInt64, frame: [UInt8])] = []
            for i in 0..<count {
                for (pt, ssrc, first) in [(UInt8(96), UInt32(0xC1FE_0001), Optional<UInt8>.none), (111, 0x0B05_0001, 0xFC)] {
                    let body = (0..<120).map { _ in UInt8.random(in: 0...255, using: &generator) }
                    let payload = first.map { [$0] + body } ?? body
                    let rtp = TestPcap.rtp(payload, payloadType: pt, marker: true, sequence: UInt16(i), timestamp: UInt32(i * 960), ssrc: ssrc)
                    records.append((UInt64(records.count) * 10_000_000, TestPcap.udpFrame(rtp, ethernet: true)))
                }
            }
            let pcap = Harness.temporaryFile("short-encrypted-\(count).pcap")
            try TestPcap.data(linkType: 1, records: records).write(to: pcap)
            let list = String(decoding: try Harness.rtprecv(["--pcap", pcap.path, "--list"]).stdout, as: UTF8.self)
            let rows = list.split(separator: "\n")
            XCTAssertTrue(rows.first { $0.contains("0xc1fe0001") }?.contains("encrypted (SRTP?)") ?? false, list)
            XCTAssertFalse(rows.first { $0.contains("0x0b050001") }?.contains("encrypted") ?? true, list)
            XCTAssertFalse(list.contains("H264") || list.contains("H265"), list)
            let replay = try Harness.rtprecv(["--pcap", pcap.path, "--out", Harness.temporaryFile("short-encrypted.h264").path])
            XCTAssertTrue(replay.stderr.contains("stream 0xc1fe0001 (PT 96, \(count) packets) looks encrypted"), replay.stderr)
            XCTAssertFalse(replay.stderr.contains("0x0b050001 (PT 111, \(count) packets) looks encrypted"), replay.stderr)
        }
    }

    // MARK: Captures

    /// SRTP audio received without its key: its ciphertext would decode as noise, and only the tag
    /// on each payload (4 or 10 bytes) tells it from audio. Said while it happens and in the JSON.
    func testSRTPAudioWithoutItsKeyIsSaidToLookEncrypted() throws {
        for (auth, tag) in [("hmac-sha1-80", 10), ("hmac-sha1-32", 4)] {
            let (_, stderr, stats) = try receive(["--wav", "/dev/null"], name: "srtp-audio-\(auth)") { port in
                let result = try Harness.run("gst-launch-1.0", [
                    "-q", "audiotestsrc", "num-buffers=50", "samplesperbuffer=160", "!", "audio/x-raw,rate=8000,channels=1", "!",
                    "mulawenc", "!", "rtppcmupay", "min-ptime=20000000", "max-ptime=20000000", "!",
                    "srtpenc", "key=\(randomKey(30).hex)", "rtp-cipher=aes-128-icm", "rtp-auth=\(auth)",
                    "rtcp-cipher=aes-128-icm", "rtcp-auth=\(auth)", "!", "udpsink", "host=127.0.0.1", "port=\(port)"])
                XCTAssertEqual(result.status, 0, result.stderr)
            }
            let said = "each packet holds \(tag) bytes more than its samples, as SRTP's authentication tag makes it"
            XCTAssertTrue(stderr.contains(said), "\(auth): \(stderr)")
            let audio = try XCTUnwrap((stats["audio_streams"] as? [[String: Any]])?.first, "\(auth): \(stats.keys)")
            XCTAssertEqual(audio["payload_bytes"] as? Int, 50 * (160 + tag))
            XCTAssertTrue((audio["notices"] as? [String] ?? []).contains { $0.contains(said) }, "\(auth): the JSON says it too")
        }
    }

    /// A real SRTP capture (rtpproxy's test call, G.722): what rtprecv decrypts is what libsrtp2, driven
    /// independently, decrypts, replayed plain.
    func testRealCallCaptureMatchesAnIndependentDecryption() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: alice.path), "../shared/captures-real is absent")
        let ours = Harness.temporaryFile("alice.wav"), plain = Harness.temporaryFile("alice-plain.pcap")
        let theirs = Harness.temporaryFile("alice-plain.wav")
        var r = try Harness.rtprecv(["--pcap", alice.path, "--srtp-key", aliceKey, "--wav", ours.path, "--stats-json", "-", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let stats = try JSONSerialization.jsonObject(with: r.stdout) as! [String: Any]
        XCTAssertEqual(srtpCounts(stats).first?["decrypted"] as? Int, 1556)
        r = try Harness.run(Harness.venvPython, [Harness.packageRoot.appendingPathComponent("scripts/srtp-decrypt").path,
                                                 alice.path, plain.path, aliceKey])
        XCTAssertEqual(r.status, 0, r.stderr)
        r = try Harness.rtprecv(["--pcap", plain.path, "--wav", theirs.path, "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let wav = try Data(contentsOf: ours)
        XCTAssertGreaterThan(wav.count, 900_000, "31 s of 16 kHz audio")
        XCTAssertEqual(wav, try Data(contentsOf: theirs))
        // Without the key, --list and the replay say why it is noise.
        let listed = String(decoding: try Harness.rtprecv(["--pcap", alice.path, "--list"]).stdout, as: UTF8.self)
        XCTAssertTrue(listed.contains("G722/8000/1, 20 ms packets; each packet holds 10 bytes more than its samples"), listed)
        let keyless = try Harness.rtprecv(["--pcap", alice.path, "--wav", "/dev/null"])
        XCTAssertTrue(keyless.stderr.contains("as SRTP's authentication tag makes it"), keyless.stderr)
        let keyed = try Harness.rtprecv(["--pcap", alice.path, "--srtp-key", aliceKey, "--list"])
        XCTAssertFalse(String(decoding: keyed.stdout, as: UTF8.self).contains("authentication tag"))
    }

    /// A call's two directions with two keys in one capture, one of them wrapping its sequence numbers:
    /// each key is tried on each new SSRC, and each direction decrypts.
    func testCallCaptureWithTwoDirectionsAndTwoKeys() throws {
        let port = UInt16(40000 + Int(getpid() % 10000))
        let a = randomKey(30), b = randomKey(30)
        let capture = try Harness.record("srtp-call", port: port, bindingIt: true) {
            // Paced, as a call is: a burst can outrun tcpdump.
            try gstreamerSRTP(port: port, keyHex: a.hex, ssrc: 0xA, paced: true)
            try gstreamerSRTP(port: port, keyHex: b.hex, ssrc: 0xB, sequenceStart: 65_300, paced: true)
        }
        let keys = ["--srtp-key", a.base64, "--srtp-key", b.base64]
        var list = try Harness.rtprecv(["--pcap", capture.path, "--list"] + keys)
        XCTAssertEqual(String(decoding: list.stdout, as: UTF8.self).components(separatedBy: "H264 320x240").count - 1, 2,
                       String(decoding: list.stdout, as: UTF8.self))
        list = try Harness.rtprecv(["--pcap", capture.path, "--list", "--srtp-key", a.base64])
        XCTAssertTrue(String(decoding: list.stdout, as: UTF8.self).contains("encrypted (SRTP): no key given authenticates its 481 packets"),
                      String(decoding: list.stdout, as: UTF8.self))
        list = try Harness.rtprecv(["--pcap", capture.path, "--list"])
        XCTAssertEqual(String(decoding: list.stdout, as: UTF8.self).components(separatedBy: "encrypted (SRTP?): its payloads look random").count - 1,
                       2, String(decoding: list.stdout, as: UTF8.self))
        let garbage = try Harness.rtprecv(["--pcap", capture.path, "--out", "/dev/null"])
        XCTAssertEqual(garbage.stderr.components(separatedBy: "looks encrypted (SRTP?): most of its payloads are no video").count - 1,
                       2, garbage.stderr)
        XCTAssertTrue(garbage.stderr.contains("wrote 0 bytes of "), garbage.stderr)
        let expected = try Harness.frameMD5(source)
        let plain = Harness.temporaryFile("srtp-call-plain.pcap")
        let r = try Harness.run(Harness.venvPython, [Harness.packageRoot.appendingPathComponent("scripts/srtp-decrypt").path,
                                                     capture.path, plain.path, a.base64, b.base64])
        XCTAssertEqual(r.status, 0, r.stderr)
        for ssrc in ["0xa", "0xb"] {
            let out = Harness.temporaryFile("srtp-call-\(ssrc).h264"), reference = Harness.temporaryFile("srtp-call-plain-\(ssrc).h264")
            var run = try Harness.rtprecv(["--pcap", capture.path, "--ssrc", ssrc, "--out", out.path] + keys)
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(try Harness.frameMD5(out), expected, "\(ssrc): \(run.stderr)")
            run = try Harness.rtprecv(["--pcap", plain.path, "--ssrc", ssrc, "--out", reference.path])
            XCTAssertEqual(try Data(contentsOf: out), try Data(contentsOf: reference), "\(ssrc): as libsrtp2 decrypts it")
        }
        // Both directions at once, a file each, as from any other input.
        let directory = Harness.temporaryFile("srtp-call-streams")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let both = try Harness.rtprecv(["--pcap", capture.path, "--out", directory.path + "/{ssrc}.h264"] + keys)
        XCTAssertEqual(both.status, 0, both.stderr)
        for ssrc in ["0000000a", "0000000b"] {
            XCTAssertEqual(try Harness.frameMD5(directory.appendingPathComponent("\(ssrc).h264")), expected, "\(ssrc): \(both.stderr)")
        }
    }
}
