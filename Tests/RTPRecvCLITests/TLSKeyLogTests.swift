import Foundation
import XCTest

/// `--tls-keylog`: a WebRTC capture decrypted from the key log a browser writes. The captures are made
/// by scripts/dtls-srtp-capture: OpenSSL runs the DTLS handshake and writes the key log, OpenSSL's
/// exporter gives the SRTP keys, and libsrtp protects FFmpeg's VP8 RTP with them. rtprecv, given the
/// capture and the log alone, must write every frame of the encoder's stream.
final class TLSKeyLogTests: XCTestCase {
    private let source = FrameCaptures.capture("ffmpeg-vp8.pcap")
    private let sdp = FrameCaptures.capture("ffmpeg-vp8.sdp").path

    /// A capture of the call and its key log; the keying material OpenSSL exported, in hex.
    private func call(_ name: String, profile: String, cipher: String, of rtp: URL? = nil) throws -> (pcap: URL, keylog: URL, exported: String) {
        let pcap = Harness.temporaryFile(name + ".pcap"), keylog = Harness.temporaryFile(name + ".keylog")
        let script = Harness.packageRoot.appendingPathComponent("scripts/dtls-srtp-capture").path
        let made = try Harness.run(Harness.venvPython, [script, (rtp ?? source).path, pcap.path, keylog.path, "--profile", profile,
                                                        "--cipher", cipher])
        XCTAssertEqual(made.status, 0, made.stderr)
        return (pcap, keylog, String(decoding: made.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func testEveryFrameOfADTLSSRTPCallFromItsKeyLog() throws {
        let expected = try FrameCaptures.packetHashes(FrameCaptures.capture("ffmpeg-vp8.ivf"))
        // SHA-256's PRF with the _80 suite; SHA-384's (an AES-256-GCM cipher suite) with AEAD_AES_128_GCM.
        for (profile, cipher, suite) in [("SRTP_AES128_CM_SHA1_80", "ECDHE-ECDSA-AES128-GCM-SHA256", "AES_CM_128_HMAC_SHA1_80"),
                                         ("SRTP_AEAD_AES_128_GCM", "ECDHE-ECDSA-AES256-GCM-SHA384", "AEAD_AES_128_GCM")] {
            let (pcap, keylog, exported) = try call("dtls-\(profile)", profile: profile, cipher: cipher)
            let ivf = Harness.temporaryFile("dtls-\(profile).ivf")
            let r = try Harness.rtprecv(["--pcap", pcap.path, "--sdp", sdp, "--tls-keylog", keylog.path, "--out", ivf.path])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("tls keylog: 1 DTLS-SRTP handshake in the capture, 1 with its master secret in \(keylog.path) "
                                            + "(\(suite), both directions)"), r.stderr)
            XCTAssertTrue(r.stderr.contains("244 decrypted, \(suite) from the TLS key log of \(keylog.path) (DTLS client's key)"), r.stderr)
            XCTAssertEqual(try FrameCaptures.packetHashes(ivf), expected, "\(profile): every frame, bit-exact")
            // Neither the secret nor the keys derived from it are said anywhere.
            let secret = try String(contentsOf: keylog, encoding: .utf8).split(separator: " ").last.map(String.init) ?? "-"
            XCTAssertFalse(r.stderr.contains(secret.trimmingCharacters(in: .whitespacesAndNewlines)))
            XCTAssertFalse(r.stderr.lowercased().contains(String(exported.prefix(32))))
        }
    }

    /// A browser's call: Opus beside the video, one key for both, and no SDP in the capture (it went
    /// over signalling). With the key log and --audio-codec, the Matroska file has both as sent.
    func testABrowsersCallOfVideoAndOpusFromTheKeyLogAlone() throws {
        let rtp = try TestPcap.merged(["ffmpeg-vp8.pcap", "ffmpeg-opus.pcap"], name: "dtls-call-rtp")
        let (pcap, keylog, _) = try call("dtls-call", profile: "SRTP_AES128_CM_SHA1_80", cipher: "ECDHE-ECDSA-AES128-GCM-SHA256", of: rtp)
        let mkv = Harness.temporaryFile("dtls-call.mkv")
        let r = try Harness.rtprecv(["--pcap", pcap.path, "--tls-keylog", keylog.path, "--audio-payload-type", "97", "--audio-codec", "opus",
                                     "--mkv", mkv.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try Harness.probe(mkv, "stream=codec_name"), "codec_name=vp8\ncodec_name=opus\n")
        XCTAssertEqual(try FrameCaptures.packetHashes(mkv), try FrameCaptures.packetHashes(FrameCaptures.capture("ffmpeg-vp8.ivf")))
        XCTAssertEqual(try Harness.packetMD5(mkv),
                       try Harness.rtpPayloadMD5(Harness.captures.appendingPathComponent("ffmpeg-opus.pcap"), port: 5180, payloadType: 97))
    }

    /// A pcapng file with its key log inside (`editcap --inject-secrets tls,FILE`, as Wireshark users
    /// share decryptable captures) needs nothing more.
    func testAPcapngWithItsOwnKeyLogDecryptsByItself() throws {
        let (pcap, keylog, _) = try call("dtls-embedded", profile: "SRTP_AES128_CM_SHA1_80", cipher: "ECDHE-ECDSA-AES128-GCM-SHA256")
        let pcapng = Harness.temporaryFile("dtls-embedded.pcapng"), ivf = Harness.temporaryFile("dtls-embedded.ivf")
        let injected = try Harness.run("editcap", ["--inject-secrets", "tls,\(keylog.path)", pcap.path, pcapng.path])
        XCTAssertEqual(injected.status, 0, injected.stderr)
        let r = try Harness.rtprecv(["--pcap", pcapng.path, "--sdp", sdp, "--out", ivf.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("1 with its master secret in the capture's secrets block"), r.stderr)
        XCTAssertEqual(try FrameCaptures.packetHashes(ivf), try FrameCaptures.packetHashes(FrameCaptures.capture("ffmpeg-vp8.ivf")))
    }

    func testAKeyLogWithoutTheCallsSecretSaysSoAndListAgrees() throws {
        let (pcap, keylog, _) = try call("dtls-listed", profile: "SRTP_AES128_CM_SHA1_80", cipher: "ECDHE-ECDSA-AES128-GCM-SHA256")
        let listed = try Harness.rtprecv(["--list", "--pcap", pcap.path, "--tls-keylog", keylog.path])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(String(decoding: listed.stdout, as: UTF8.self).contains("VP8 320x240"), String(decoding: listed.stdout, as: UTF8.self))
        let other = Harness.temporaryFile("dtls-other.keylog")
        try ("CLIENT_RANDOM " + String(repeating: "00", count: 32) + " " + String(repeating: "11", count: 48) + "\nnot a line\n")
            .write(to: other, atomically: true, encoding: .utf8)
        let r = try Harness.rtprecv(["--pcap", pcap.path, "--sdp", sdp, "--tls-keylog", other.path, "--out", "/dev/null"])
        XCTAssertTrue(r.stderr.contains("warning: tls keylog: 1 DTLS-SRTP handshake in the capture, 0 with their master secret in "
                                        + "\(other.path); lines not read: 2"), r.stderr)
        // Live, and from standard input, there is no capture to find the handshakes in first.
        for arguments in [["--port", "5004"], ["--pcap", "-"]] {
            let refused = try Harness.rtprecv(arguments + ["--tls-keylog", other.path, "--out", "/dev/null"])
            XCTAssertEqual(refused.status, 64, refused.stderr)
            XCTAssertTrue(refused.stderr.contains("'--tls-keylog \(other.path)' finds the DTLS handshakes of a capture file"), refused.stderr)
        }
        let missing = try Harness.rtprecv(["--pcap", pcap.path, "--tls-keylog", "/nonexistent/keys.log", "--out", "/dev/null"])
        XCTAssertEqual(missing.status, 1, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("--tls-keylog /nonexistent/keys.log"), missing.stderr)
    }
}
