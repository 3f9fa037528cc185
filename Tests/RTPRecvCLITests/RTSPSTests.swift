import Foundation
import XCTest

/// `rtprecv rtsps://…` against a real RTSPS server: gst-rtsp-server (scripts/rtsp-server --tls) with
/// certificates the `openssl` command makes, so that what is trusted and every fingerprint come from
/// OpenSSL's tools, not from the code under test. The frames must be the file's, bit for bit.
final class RTSPSTests: XCTestCase {
    private let port = UInt16(37000 + Int(getpid() % 500) * 2)
    private let source = Harness.captures.appendingPathComponent("ffmpeg-inband.h264")

    private func server(_ pem: URL, _ extra: [String] = []) throws -> Process {
        try Harness.startServer("rtsp-server", ["--port", "\(port)", "--h264", source.path, "--tls", pem.path] + extra)
    }

    private func openssl(_ arguments: [String]) throws -> String {
        let r = try Harness.run("openssl", arguments)
        XCTAssertEqual(r.status, 0, r.stderr)
        return String(decoding: r.stdout, as: UTF8.self)
    }

    /// A key and a certificate for it: self-signed with `subject`, or signed by `authority`'s key
    /// with `names` (subjectAltName); the server's PEM (certificate, then key) and the certificate.
    private func certificate(_ name: String, subject: String, names: String? = nil,
                             authority: (certificate: URL, key: URL)? = nil) throws -> (pem: URL, certificate: URL, key: URL) {
        let key = Harness.temporaryFile(name + ".key"), certificate = Harness.temporaryFile(name + ".crt")
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key.path, "-subj", subject]
        if let authority {
            let request = Harness.temporaryFile(name + ".csr"), extensions = Harness.temporaryFile(name + ".ext")
            try "subjectAltName=\(names ?? "")\n".write(to: extensions, atomically: true, encoding: .utf8)
            _ = try openssl(["req"] + newKey + ["-out", request.path])
            _ = try openssl(["x509", "-req", "-in", request.path, "-CA", authority.certificate.path, "-CAkey", authority.key.path,
                             "-CAcreateserial", "-days", "2", "-extfile", extensions.path, "-out", certificate.path])
        } else {
            _ = try openssl(["req", "-x509"] + newKey + ["-days", "2", "-out", certificate.path])
        }
        let pem = Harness.temporaryFile(name + ".pem")
        try (String(contentsOf: certificate, encoding: .utf8) + String(contentsOf: key, encoding: .utf8))
            .write(to: pem, atomically: true, encoding: .utf8)
        return (pem, certificate, key)
    }

    /// OpenSSL's SHA-256 fingerprint of `certificate`, as it prints it ("AB:CD:…").
    private func fingerprint(_ certificate: URL) throws -> String {
        let line = try openssl(["x509", "-in", certificate.path, "-noout", "-fingerprint", "-sha256"])
        return String(line.split(separator: "=").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func pull(_ extra: [String], name: String) throws -> (Harness.Result, URL, String) {
        try RTSPEndToEndTests.pull("rtsps://127.0.0.1:\(port)/test", extra, name: name)
    }

    private func assertSourceFrames(_ out: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        try RTSPEndToEndTests.assertFrames(of: out, are: source, file: file, line: line)
    }

    /// A camera's own certificate (self-signed) is refused with its fingerprint named, the one
    /// OpenSSL prints; pinned with it, the session runs over TLS, media interleaved in the
    /// connection, Digest answered inside it; a pin of another certificate is refused.
    func testSelfSignedCertificateIsRefusedThenPinned() throws {
        let camera = try certificate("rtsps-camera", subject: "/CN=camera")
        let pin = try fingerprint(camera.certificate)
        let s = try server(camera.pem, ["--auth", "digest", "--user", "viewer", "--password", "s3cret"])
        defer { s.terminate(); s.waitUntilExit() }
        setenv("RTSP_PASSWORD", "s3cret", 1)
        defer { unsetenv("RTSP_PASSWORD") }

        var (r, out, stats) = try pull(["--user", "viewer"], name: "rtsps-unpinned")
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("self-signed certificate"), r.stderr)
        XCTAssertTrue(r.stderr.contains("--tls-fingerprint \(pin)"), "names OpenSSL's fingerprint: \(r.stderr)")
        XCTAssertEqual((try? Data(contentsOf: out))?.count ?? 0, 0, "nothing written")

        (r, out, stats) = try pull(["--user", "viewer", "--tls-fingerprint", pin], name: "rtsps-pinned")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(stats.contains("\"transport\":\"tcp\""), "auto keeps the media inside TLS: \(stats)")
        XCTAssertTrue(stats.contains("certificate pinned"), stats)
        XCTAssertFalse(r.stderr.contains("s3cret") || stats.contains("s3cret"), "no password in any output")
        try assertSourceFrames(out)

        let other = try certificate("rtsps-other", subject: "/CN=camera")
        (r, _, _) = try pull(["--user", "viewer", "--tls-fingerprint", try fingerprint(other.certificate).replacingOccurrences(of: ":", with: "")],
                             name: "rtsps-wrong-pin")
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("not the one pinned") && r.stderr.contains(pin), r.stderr)
    }

    /// A certificate an authority signed is verified: its chain against --tls-ca-file (the system's
    /// authorities do not know it), and its names against the URL's host.
    func testAuthoritySignedCertificateIsVerifiedByChainAndName() throws {
        let authority = try certificate("rtsps-ca", subject: "/CN=rtprecv test authority")
        let signed = try certificate("rtsps-signed", subject: "/CN=camera", names: "IP:127.0.0.1",
                                     authority: (authority.certificate, authority.key))
        var s = try server(signed.pem)
        var (r, out, stats) = try pull([], name: "rtsps-system-trust")
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("unable to get local issuer certificate"), r.stderr)
        (r, out, stats) = try pull(["--tls-ca-file", authority.certificate.path], name: "rtsps-ca-file")
        s.terminate()
        s.waitUntilExit()
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(stats.contains("certificate verified"), stats)
        try assertSourceFrames(out)

        let misnamed = try certificate("rtsps-misnamed", subject: "/CN=127.0.0.1", names: "DNS:camera.example",
                                       authority: (authority.certificate, authority.key))
        s = try server(misnamed.pem)
        defer { s.terminate(); s.waitUntilExit() }
        (r, _, _) = try pull(["--tls-ca-file", authority.certificate.path], name: "rtsps-misnamed")
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("IP address mismatch"), "its CN is no name: \(r.stderr)")
        r = try Harness.rtprecv(["rtsps://localhost:\(port)/test", "--tls-ca-file", authority.certificate.path, "--out", "/dev/null",
                                 "--duration", "2"])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("hostname mismatch"), r.stderr)
    }

    /// The camera restarts: its close is said as a close (or as a reset, where the server dies
    /// before it closes its TLS session), not as a TLS error, and --reconnect makes a new TLS
    /// session with the same pin and goes on in the same file.
    func testReconnectOverTLSWhenTheServerRestarts() throws {
        let camera = try certificate("rtsps-restart", subject: "/CN=camera")
        let pin = try fingerprint(camera.certificate)
        let live = { try Harness.startServer("rtsp-server", ["--port", "\(self.port)", "--live", "--tls", camera.pem.path]) }
        var s = try live()
        let out = Harness.temporaryFile("rtsps-restart.h264"), stats = Harness.temporaryFile("rtsps-restart.json")
        let log = Harness.temporaryFile("rtsps-restart.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let pull = Process()
        pull.executableURL = Harness.binary
        pull.arguments = ["rtsps://127.0.0.1:\(port)/test", "--tls-fingerprint", pin, "--reconnect", "--timeout", "2",
                          "--duration", "9", "--out", out.path, "--stats-json", stats.path]
        pull.standardError = try FileHandle(forWritingTo: log)
        try pull.run()
        sleep(3)
        s.terminate()
        s.waitUntilExit()
        sleep(1)
        s = try live()
        defer { s.terminate(); s.waitUntilExit() }
        pull.waitUntilExit()
        let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(pull.terminationStatus, 0, said)
        XCTAssertTrue(said.contains("closed the connection") || said.contains("Connection reset by peer"), said)
        XCTAssertFalse(said.contains("SSL routines"), said)
        XCTAssertTrue(said.contains("reconnected over TCP"), said)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        let rtsp = try XCTUnwrap(json["rtsp"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(rtsp["reconnects"] as? Int ?? 0, 1, "\(rtsp)")
        XCTAssertEqual(rtsp["tls"] as? String, "TLSv1.3, certificate pinned")
        XCTAssertEqual(try Harness.decodeErrors(out), "")
    }

    func testTLSOptionsAreCheckedBeforeAnythingRuns() throws {
        var r = try Harness.rtprecv(["rtsps://127.0.0.1:9/x", "--tls-fingerprint", "AB:CD"])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.stderr.contains("--tls-fingerprint") && r.stderr.contains("SHA-256"), r.stderr)
        r = try Harness.rtprecv(["rtsp://127.0.0.1:9/x", "--tls-ca-file", "/etc/ssl/certs/ca-certificates.crt"])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.stderr.contains("rtsps://"), r.stderr)
        r = try Harness.rtprecv(["--port", "0", "--tls-ca-file", "/etc/ssl/certs/ca-certificates.crt"])
        XCTAssertEqual(r.status, 64)
        r = try Harness.rtprecv(["rtsps://127.0.0.1:9/x", "--tls-ca-file", "/nonexistent/ca.pem"])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.stderr.contains("'--tls-ca-file': /nonexistent/ca.pem: no such file"), r.stderr)
    }
}
