import XCTest
@testable import RTPCore

/// What `--tls-keylog` rests on: SHA-384, TLS 1.2's PRF, the key log's lines and the hellos of a DTLS
/// handshake. The expected bytes were computed with Python's hmac and hashlib (OpenSSL's), not with
/// this code; the PRF's SHA-256 vector is the one published for TLS 1.2 implementations.
final class DTLSKeyLogTests: XCTestCase {
    private func bytes(_ hex: String) -> [UInt8] { hexBytes(hex)! }

    func testSHA384OfOneBlockAndOfSeveral() {
        XCTAssertEqual(SHA384.hash(Array("abc".utf8)).lowercaseHex,
                       "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")
        XCTAssertEqual(SHA384.hash([UInt8](repeating: UInt8(ascii: "a"), count: 200)).lowercaseHex,
                       "0691b6e978614b67d60557b2a2cddd53406508522efa21c624dbbfa8ab6e726d5c586b489c7c09f24109a64c10211d48")
    }

    func testThePRFGivesThePublishedVectorAndSHA384sOwn() {
        let secret = bytes("9bbe436ba940f017b17652849a71db35"), seed = bytes("a0ba9f936cda311827a6f796ffd5198c")
        XCTAssertEqual(TLSPRF.bytes(.sha256, secret: secret, label: "test label", seed: seed, count: 100).lowercaseHex,
                       "e3f229ba727be17b8d122620557cd453c2aab21d07c3d495329b52d4e61edb5a6b301791e90d35c9c9a46b4e14baf9af"
                       + "0fa022f7077def17abfd3797c0564bab4fbc91666e9def9b97fce34f796789baa48082d122ee42c5a72e5a5110fff70187347b66")
        XCTAssertEqual(TLSPRF.bytes(.sha384, secret: secret, label: "test label", seed: seed, count: 148).lowercaseHex,
                       "dd88775cd827187b67a3f7652b5c13f715791cc46e0274a6d3fb16651103defc544cd8afb68369a219bb918b8b21ddb1"
                       + "764af0a70339e6dec085e574f655851ba692513203536bdfc3675e53768210f0a2389dd324311a440c7c30ef44b391d9"
                       + "14c3b0c7c80f1cb5e134cf4253d859fa8a46e978360d095dd2fba0c18a1f4d7b4cf9f24667b5cb0adc5ab65df3a0dc627c9b73cc")
        XCTAssertEqual(TLSPRF.hash(forCipherSuite: 0xC02C), .sha384, "ECDHE_ECDSA_WITH_AES_256_GCM_SHA384")
        XCTAssertEqual(TLSPRF.hash(forCipherSuite: 0xC02B), .sha256, "ECDHE_ECDSA_WITH_AES_128_GCM_SHA256")
        XCTAssertEqual(TLSPRF.hash(forCipherSuite: 0xCCA9), .sha256, "ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256")
    }

    func testTheKeyLogTakesClientRandomLinesAndSaysWhatElseItHeld() {
        let random = String(repeating: "0a", count: 32), secret = String(repeating: "Bc", count: 48)
        let log = TLSKeyLog(text: "# SSL/TLS secrets log file\r\nCLIENT_RANDOM \(random) \(secret)\r\n\n"
                            + "CLIENT_TRAFFIC_SECRET_0 \(random) \(String(repeating: "00", count: 32))\n"
                            + "CLIENT_RANDOM \(random) abcd\nCLIENT_RANDOM zz \(secret)\nnonsense\n"
                            + "CLIENT_RANDOM \(String(repeating: "11", count: 32)) \(secret) # a comment\n")
        XCTAssertEqual(log.masterSecrets.count, 2)
        XCTAssertEqual(log.masterSecrets[[UInt8](repeating: 0x0a, count: 32)], [UInt8](repeating: 0xbc, count: 48))
        XCTAssertEqual(log.tls13Lines, 1)
        XCTAssertEqual(log.unreadLines, [5, 6, 7])
    }

    /// A record of one whole handshake message of `type`, epoch `epoch`.
    private func record(_ type: UInt8, _ body: [UInt8], epoch: UInt8 = 0, fragmentLength: Int? = nil) -> [UInt8] {
        let n = body.count, f = fragmentLength ?? n
        let message = [type, 0, UInt8(n >> 8), UInt8(n & 0xFF), 0, 0, 0, 0, 0, 0, UInt8(f >> 8), UInt8(f & 0xFF)] + body.prefix(f)
        return [22, 0xFE, 0xFD, 0, epoch, 0, 0, 0, 0, 0, 0, UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
    }

    private let clientRandom = [UInt8](0..<32), serverRandom = [UInt8](32..<64)
    private var clientHello: [UInt8] { [0xFE, 0xFD] + clientRandom + [0, 0, 0, 2, 0xC0, 0x2B, 1, 0, 0, 9, 0, 14, 0, 5, 0, 2, 0, 1, 0] }
    private var serverHello: [UInt8] { [0xFE, 0xFD] + serverRandom + [0, 0xC0, 0x2B, 0, 0, 9, 0, 14, 0, 5, 0, 2, 0, 1, 0] }

    func testAHandshakeIsItsTwoHellosBetweenTheSameEndpoints() throws {
        let a = Endpoint(address: .v4(0x0A00_0001), port: 5000), b = Endpoint(address: .v4(0x0A00_0002), port: 6000)
        var collector = DTLSHandshakeCollector()
        // A ServerHello before any ClientHello, and hellos between other endpoints, make nothing.
        record(2, serverHello).withUnsafeBytes { collector.datagram($0, from: b, to: a) }
        record(1, clientHello).withUnsafeBytes { collector.datagram($0, from: a, to: b) }
        record(2, serverHello).withUnsafeBytes { collector.datagram($0, from: a, to: b) }
        XCTAssertTrue(collector.handshakes.isEmpty)
        // A fragment, and a message of a later epoch, are passed over; two records in one datagram are read.
        (record(2, serverHello, fragmentLength: 20) + record(2, serverHello, epoch: 1)).withUnsafeBytes { collector.datagram($0, from: b, to: a) }
        XCTAssertTrue(collector.handshakes.isEmpty)
        ([20, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1] + record(2, serverHello)).withUnsafeBytes { collector.datagram($0, from: b, to: a) }
        let handshake = try XCTUnwrap(collector.handshakes.first)
        XCTAssertEqual(collector.handshakes.count, 1)
        XCTAssertEqual(handshake.clientRandom, clientRandom)
        XCTAssertEqual(handshake.serverRandom, serverRandom)
        XCTAssertEqual(handshake.suite, .aes128CMHMACSHA1_80)
        // Its keying material, as the PRF gives it: client key, server key, client salt, server salt.
        let material = try handshake.keyingMaterial(masterSecret: [UInt8](repeating: 0xAB, count: 48), origin: "test")
        let exported = bytes("02c8af335fdd95efc088c9c656c2d9354f94ec9c9a2c4955d8dfd1bcfef4f045dbb8bc529e568a00b357c6765394967e27980d64328867fce95372d6")
        XCTAssertEqual(material.client.keyAndSalt, Array(exported[0..<16] + exported[32..<46]))
        XCTAssertEqual(material.server.keyAndSalt, Array(exported[16..<32] + exported[46..<60]))
    }

    func testTruncatedAndHostileBytesFindNothing() {
        let a = Endpoint(address: .v4(1), port: 1), b = Endpoint(address: .v4(2), port: 2)
        var collector = DTLSHandshakeCollector()
        record(1, clientHello).withUnsafeBytes { collector.datagram($0, from: a, to: b) }
        let whole = record(2, serverHello)
        for cut in 0..<whole.count {
            Array(whole.prefix(cut)).withUnsafeBytes { collector.datagram($0, from: b, to: a) }
        }
        // A length that runs past the record, and a use_srtp that names no profile.
        var lying = record(2, serverHello)
        lying[11] = 0xFF
        lying.withUnsafeBytes { collector.datagram($0, from: b, to: a) }
        XCTAssertTrue(collector.handshakes.isEmpty)
        var noProfile = serverHello
        noProfile[noProfile.count - 4] = 0
        record(2, noProfile).withUnsafeBytes { collector.datagram($0, from: b, to: a) }
        XCTAssertEqual(collector.handshakes.first?.suite, nil)
        XCTAssertThrowsError(try collector.handshakes.first?.keyingMaterial(masterSecret: [UInt8](repeating: 1, count: 48), origin: "t"))
    }

    /// DTLS 1.0's PRF is not TLS 1.2's: its keys are not derived as if it were, and that is said.
    func testADTLS10HandshakeIsRefusedNotMisderived() throws {
        let a = Endpoint(address: .v4(1), port: 1), b = Endpoint(address: .v4(2), port: 2)
        var collector = DTLSHandshakeCollector()
        record(1, clientHello).withUnsafeBytes { collector.datagram($0, from: a, to: b) }
        record(2, [0xFE, 0xFF] + serverHello.dropFirst(2)).withUnsafeBytes { collector.datagram($0, from: b, to: a) }
        let handshake = try XCTUnwrap(collector.handshakes.first)
        XCTAssertEqual(handshake.suite, .aes128CMHMACSHA1_80)
        XCTAssertThrowsError(try handshake.keyingMaterial(masterSecret: [UInt8](repeating: 1, count: 48), origin: "log")) {
            XCTAssertTrue("\($0)".contains("version 0xfeff, not DTLS 1.2"), "\($0)")
        }
    }
}
