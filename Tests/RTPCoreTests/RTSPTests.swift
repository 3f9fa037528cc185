import RTPCore
import XCTest

/// RTSP's pure parts (RFC 2326): URLs and what they resolve, the Transport and Session headers as
/// cameras write them, the stream of messages and interleaved frames, and Digest as RFC 7616's
/// own examples compute it.
final class RTSPTests: XCTestCase {
    func testURLKeepsCredentialsApartAndNeverPrintsThem() throws {
        let url = try RTSPURL(parsing: "rtsp://admin:p%40ss%3Aword@192.168.1.64:8554/Streaming/Channels/101?transportmode=unicast")
        XCTAssertEqual(url.user, "admin")
        XCTAssertEqual(url.password, "p@ss:word")
        XCTAssertEqual(url.host, "192.168.1.64")
        XCTAssertEqual(url.port, 8554)
        XCTAssertEqual(url.description, "rtsp://192.168.1.64:8554/Streaming/Channels/101?transportmode=unicast")
        XCTAssertEqual(RTSPURL.masked("rtsp://admin:p%40ss@cam/x"), "rtsp://admin:***@cam/x")
        XCTAssertEqual(try RTSPURL(parsing: "rtsp://[::1]/live").description, "rtsp://[::1]:554/live")
        XCTAssertThrowsError(try RTSPURL(parsing: "http://cam/x"))
        XCTAssertThrowsError(try RTSPURL(parsing: "rtsp://cam:99999/x"))
    }

    /// Passwords and query values in every shape a user types a URL, and known secrets anywhere;
    /// what is not a credential is left alone.
    func testCredentialsAreMaskedInEveryShape() throws {
        for (text, shown) in [("rtsp://admin:pw@cam/x", "rtsp://admin:***@cam/x"), ("error: ' rtsp://admin:pw@cam/x'", "error: ' rtsp://admin:***@cam/x'"),
                              ("rtsp:/admin:pw@cam/x", "rtsp:/admin:***@cam/x"), ("rtsp:admin:pw@cam", "rtsp:admin:***@cam"),
                              ("rtsp://admin:p/w@cam/x", "rtsp://admin:***@cam/x"), ("rtsp://admin@cam/x", "rtsp://admin@cam/x"),
                              ("rtsp://cam/x?user=admin&password=pw&channel=1", "rtsp://cam/x?user=***&password=***&channel=1"),
                              ("(rtsp://cam/?token=abc)", "(rtsp://cam/?token=***)"), ("12 frames, 3 lost: ok?", "12 frames, 3 lost: ok?"),
                              ("CNAME user@host", "CNAME user@host")] {
            XCTAssertEqual(CredentialMask.masked(text), shown, text)
        }
        XCTAssertEqual(CredentialMask.masked("key hunter22 in a message", secrets: ["hunter22", "ab"]), "key *** in a message")
        let url = try RTSPURL(parsing: "rtsp://u:p@cam/live?user=u&password=p")
        XCTAssertEqual(url.uri, "rtsp://cam:554/live?user=u&password=p", "the request names the real query")
        XCTAssertEqual(url.description, "rtsp://cam:554/live?user=***&password=***")
    }

    func testControlURLsResolveAsServersMeanThem() throws {
        let base = try RTSPURL(parsing: "rtsp://u:p@cam:554/live/ch0")
        XCTAssertEqual(base.resolving("trackID=1").description, "rtsp://cam:554/live/ch0/trackID=1")
        XCTAssertEqual(base.resolving("*").description, "rtsp://cam:554/live/ch0")
        XCTAssertEqual(base.resolving("rtsp://10.0.0.9/live/ch0/track2").description, "rtsp://10.0.0.9:554/live/ch0/track2")
        XCTAssertEqual(base.resolving("rtsp://10.0.0.9/x").password, "p", "credentials carry over")
        XCTAssertEqual(base.resolving("/other/track1").description, "rtsp://cam:554/other/track1")
        // Content-Base without its scheme, as some cameras write it.
        XCTAssertEqual(base.resolving("10.0.0.5:8554/live/").description, "rtsp://10.0.0.5:8554/live/")
    }

    func testTransportParametersInAnyOrder() throws {
        let t = try XCTUnwrap(RTSPTransport(parsing: "RTP/AVP;ssrc=1A2B3C4D;server_port=6970-6971;unicast;client_port=50000-50001;mode=\"PLAY\""))
        XCTAssertEqual(t.serverPorts, 6970...6971)
        XCTAssertEqual(t.clientPorts, 50000...50001)
        XCTAssertEqual(t.ssrc, 0x1A2B_3C4D)
        XCTAssertFalse(t.isTCP)
        let tcp = try XCTUnwrap(RTSPTransport(parsing: "RTP/AVP/TCP;interleaved=2-3;unicast;ssrc=0x00BC614E"))
        XCTAssertTrue(tcp.isTCP)
        XCTAssertEqual(tcp.interleaved, 2...3)
        XCTAssertEqual(tcp.ssrc, 0x00BC_614E)
        let multicast = try XCTUnwrap(RTSPTransport(parsing: "RTP/AVP;multicast;destination=232.1.1.1;port=5000-5001;ttl=16"))
        XCTAssertTrue(multicast.multicast)
        XCTAssertEqual(multicast.destination, "232.1.1.1")
        XCTAssertEqual(multicast.ports, 5000...5001)
        XCTAssertNil(try RTSPTransport(parsing: "garbage"))
        var asked = RTSPTransport(spec: "RTP/AVP")
        asked.clientPorts = 50000...50001
        XCTAssertEqual(asked.header, "RTP/AVP;unicast;client_port=50000-50001")
    }

    /// Hostile and broken Transport headers: empty parameters are skipped, ports outside 1…65535 and
    /// channels outside 0…255 are errors naming the parameter, never a trap or a value used silently.
    func testTransportWithEmptyOrAbsurdParametersNeverTraps() throws {
        let empty = try XCTUnwrap(RTSPTransport(parsing: "RTP/AVP; ;unicast;;client_port=5000-5001; "))
        XCTAssertEqual(empty.clientPorts, 5000...5001)
        XCTAssertNil(try RTSPTransport(parsing: ""))
        XCTAssertNil(try RTSPTransport(parsing: ";;;"))
        XCTAssertEqual(try RTSPTransport(parsing: "RTP/AVP;multicast;port=65535")?.ports, 65535...65535)
        XCTAssertEqual(try RTSPTransport(parsing: "RTP/AVP;unicast;client_port=5000-")?.clientPorts, 5000...5000)
        for (header, parameter) in [("RTP/AVP;server_port=0-70000", "server_port=0-70000"), ("RTP/AVP;client_port=0", "client_port=0"),
                                    ("RTP/AVP;client_port=6000-5000", "client_port=6000-5000"), ("RTP/AVP;port=99999999999999999999", "port=99999999999999999999"),
                                    ("RTP/AVP/TCP;interleaved=300-301", "interleaved=300-301"), ("RTP/AVP/TCP;interleaved=-1", "interleaved=-1"),
                                    ("RTP/AVP;multicast;ttl=1000", "ttl=1000")] {
            XCTAssertThrowsError(try RTSPTransport(parsing: header), header) { error in
                XCTAssertEqual((error as? RTSPTransport.Invalid)?.parameter, parameter)
            }
        }
    }

    /// 454 is no keep-alive method's refusal: to a keep-alive it is a failure (the session is gone),
    /// to PLAY a failure; 405 and 501 to a keep-alive switch its method. A reply naming another
    /// request's CSeq is a protocol error.
    func testSessionNotFoundIsAFailureAndAWrongCSeqAnError() throws {
        let url = try RTSPURL(parsing: "rtsp://cam/live")
        func reply(_ status: Int, cseq: String?) -> RTSPMessage {
            var m = RTSPMessage()
            m.statusCode = status
            m.reason = "Reason"
            if let cseq { m.headers = [("CSeq", cseq)] }
            return m
        }
        var client = RTSPClient(authorization: RTSPAuthorization(user: nil, password: nil, seed: 1))
        _ = client.request("PLAY", url)
        guard case .failure(let error) = client.receiveReply(reply(454, cseq: "1")) else { return XCTFail("454 to PLAY succeeded") }
        XCTAssertEqual(error.statusCode, 454)
        _ = client.request(client.keepAliveMethod, url)
        guard case .failure(let expired) = client.receive(reply(454, cseq: "2")) else { return XCTFail("454 to a keep-alive succeeded") }
        XCTAssertEqual(expired.statusCode, 454)
        XCTAssertEqual(client.keepAliveMethod, "OPTIONS", "454 does not switch the keep-alive method")
        _ = client.request(client.keepAliveMethod, url)
        guard case .success = client.receive(reply(501, cseq: "3")) else { return XCTFail("501 to a keep-alive") }
        XCTAssertEqual(client.keepAliveMethod, "GET_PARAMETER")
        _ = client.request("SETUP", url)
        guard case .failure(.protocolError(let text)) = client.receiveReply(reply(200, cseq: "9")) else { return XCTFail("a wrong CSeq") }
        XCTAssertTrue(text.contains("CSeq '9'"), text)
        _ = client.request("SETUP", url)
        guard case .success = client.receiveReply(reply(200, cseq: nil)) else { return XCTFail("a reply without CSeq is taken") }
    }

    /// Replies as vendors write them (facts from the retina project's test data, fixtures our own):
    /// an SSRC after a space and of seven digits (Hikvision), of four (others), a CSeq with a trailing
    /// space and a Digest challenge with neither qop nor algorithm (Longse), a session-level
    /// a=control:* before the media's (Reolink), a DESCRIBE without its Content-Type.
    func testVendorRepliesAsCamerasWriteThem() throws {
        XCTAssertEqual(try RTSPTransport(parsing: "RTP/AVP/TCP;unicast;interleaved=0-1;ssrc= d6d6627")?.ssrc, 0x0D6D_6627)
        XCTAssertEqual(try RTSPTransport(parsing: "RTP/AVP/TCP;unicast;interleaved=0-1;ssrc=A046")?.ssrc, 0xA046)
        XCTAssertEqual(RTSPSessionHeader(parsing: "708886412;timeout=60")?.id, "708886412")
        var reader = RTSPStreamReader()
        let unauthorized = "RTSP/1.0 401 Unauthorized\r\nCSeq: 1 \r\nServer: Rtsp Server 1920*1080*20*2048\r\n"
            + "WWW-Authenticate: Digest realm=\"Surveillance Server\", nonce=\"98481030\"\r\n\r\n"
        Array(unauthorized.utf8).withUnsafeBytes { reader.append($0) }
        var messages: [RTSPMessage] = []
        try reader.drain { if case .message(let m) = $0 { messages.append(m) } }
        let reply = try XCTUnwrap(messages.first)
        XCTAssertEqual(reply.cseq, 1)
        var client = RTSPClient(authorization: RTSPAuthorization(user: "admin", password: "12345", seed: 7))
        let url = try RTSPURL(parsing: "rtsp://admin:12345@192.168.1.10/ch0")
        _ = client.request("DESCRIBE", url)
        guard case .retry(let again) = client.receive(reply) else { return XCTFail("a 401 with a challenge is answered") }
        let text = String(decoding: again, as: UTF8.self)
        // RFC 2069's form, H(HA1:nonce:HA2), as hashlib computes it.
        XCTAssertTrue(text.contains("response=\"2e3a7064bf854a0f4e0fa87abf663bfd\""), text)
        XCTAssertFalse(text.contains("qop="), text)
        XCTAssertTrue(text.contains("CSeq: 2"), text)

        let sdp = "v=0\r\ns=preview\r\nt=0 0\r\na=control:*\r\na=range:npt=0-\r\nm=video 0 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n"
            + "a=control:trackID=1\r\nm=audio 0 RTP/AVP 97\r\na=rtpmap:97 MPEG4-GENERIC/16000\r\na=control:trackID=2\r\n"
        let description = try SessionDescription(parsing: sdp)
        let base = try RTSPURL(parsing: "rtsp://192.168.5.206/h264Preview_01_main/")
        XCTAssertEqual(description.media.map { base.resolving($0.control ?? "*").description },
                       ["rtsp://192.168.5.206:554/h264Preview_01_main/trackID=1", "rtsp://192.168.5.206:554/h264Preview_01_main/trackID=2"])
        var signalling = CapturedSignalling()
        var noType = RTSPMessage()
        noType.statusCode = 200
        noType.headers = [("CSeq", "1"), ("Session", "l0TtlUFSR")]
        noType.body = Array(sdp.utf8)
        signalling.message(noType, from: Endpoint(address: .v4(1), port: 554), to: Endpoint(address: .v4(2), port: 40000))
        XCTAssertEqual(signalling.sessionDescription?.media.count, 2, "a DESCRIBE without Content-Type still gives its SDP")
    }

    /// A DVR that names another session in the second SETUP's reply plays under the first, which
    /// every later request then carries; a DESCRIBE's Session before any SETUP gives way to SETUP's.
    func testTheFirstSetupsSessionIsKept() throws {
        let url = try RTSPURL(parsing: "rtsp://dvr/live")
        var client = RTSPClient(authorization: RTSPAuthorization(user: nil, password: nil, seed: 1))
        func answer(_ method: String, session: String) -> String {
            _ = client.request(method, url)
            var m = RTSPMessage()
            m.statusCode = 200
            m.headers = [("CSeq", String(client.cseq)), ("Session", session)]
            _ = client.receiveReply(m)
            return String(decoding: client.request("PLAY", url), as: UTF8.self)
        }
        XCTAssertTrue(answer("DESCRIBE", session: "1111").contains("Session: 1111\r\n"))
        XCTAssertTrue(answer("SETUP", session: "231970;timeout=60").contains("Session: 231970\r\n"))
        XCTAssertTrue(answer("SETUP", session: "231980;timeout=60").contains("Session: 231970\r\n"))
        XCTAssertEqual(client.session?.timeoutSeconds, 60)
    }

    /// An ONVIF back channel (a=sendonly, the client's side) listed before the camera's own audio
    /// is not set up; where every line is so marked (some cameras), the first ones are.
    func testABackChannelIsNotSetUpWhileAnotherLineWouldDo() throws {
        let lines = ["m=audio 0 RTP/AVP 8\r\na=sendonly\r\n", "m=video 0 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\na=recvonly\r\n",
                     "m=application 0 RTP/AVP 107\r\na=rtpmap:107 vnd.onvif.metadata/90000\r\n", "m=audio 0 RTP/AVP 0\r\na=recvonly\r\n"]
        let sdp = try SessionDescription(parsing: "v=0\r\n" + lines.joined())
        XCTAssertEqual(sdp.mediaToSetUp(takingAudio: true), [1, 3])
        XCTAssertEqual(sdp.mediaToSetUp(takingAudio: false), [1])
        let marked = try SessionDescription(parsing: "v=0\r\n" + lines.joined().replacingOccurrences(of: "recvonly", with: "sendonly"))
        XCTAssertEqual(marked.mediaToSetUp(takingAudio: true), [1, 0])
    }

    func testSessionIdWithItsTimeout() {
        XCTAssertEqual(RTSPSessionHeader(parsing: "47112344;timeout=30"), .some(.init(parsing: "47112344;timeout=30")!))
        XCTAssertEqual(RTSPSessionHeader(parsing: "47112344;timeout=30")?.id, "47112344")
        XCTAssertEqual(RTSPSessionHeader(parsing: "47112344;timeout=30")?.timeoutSeconds, 30)
        XCTAssertEqual(RTSPSessionHeader(parsing: "ABCD")?.timeoutSeconds, 60)
    }

    /// Responses, interleaved frames and garbage between them, split at every byte.
    func testStreamReaderSplitsMessagesFramesAndSkipsGarbage() throws {
        let text = "RTSP/1.0 200 OK\r\nCSeq: 3\r\nContent-Length: 4\r\n\r\nv=0\n"
        let bytes = Array(text.utf8) + [0x24, 1, 0, 3, 9, 8, 7] + Array("junk".utf8) + [0x24, 0, 0, 1, 0x80]
            + Array("GET_PARAMETER rtsp://x RTSP/1.0\r\nCSeq: 9\r\n\r\n".utf8)
        for split in 0...bytes.count {
            var reader = RTSPStreamReader()
            var items: [String] = []
            for part in [bytes[..<split], bytes[split...]] {
                Array(part).withUnsafeBytes { reader.append($0) }
                try reader.drain { item in
                    switch item {
                    case .message(let m): items.append("\(m.statusCode) \(m.method ?? "") \(m.cseq ?? -1) \(String(decoding: m.body, as: UTF8.self))")
                    case .interleaved(let channel, let payload): items.append("$\(channel) \(Array(payload))")
                    }
                }
            }
            XCTAssertEqual(items, ["200  3 v=0\n", "$1 [9, 8, 7]", "$0 [128]", "0 GET_PARAMETER 9 "], "split at \(split)")
            XCTAssertEqual(reader.skippedBytes, 4)
        }
    }

    func testHashesAgainstTheirStandardsVectors() {
        XCTAssertEqual(MD5.hash([]).lowercaseHex, "d41d8cd98f00b204e9800998ecf8427e")
        XCTAssertEqual(MD5.hash(Array("The quick brown fox jumps over the lazy dog".utf8)).lowercaseHex, "9e107d9d372bb6826bd81d3542a419d6")
        XCTAssertEqual(SHA256.hash(Array("abc".utf8)).lowercaseHex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hash(Array(repeating: UInt8(ascii: "a"), count: 1000)).lowercaseHex,
                       "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
        XCTAssertEqual(BasicCredentials.authorization(user: "Aladdin", password: "open sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    /// RFC 7616 §3.9.1: the same challenge answered with MD5 and with SHA-256.
    func testDigestAsRFC7616sExample() throws {
        for (algorithm, expected) in [("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
                                      ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1")] {
            let header = "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=\(algorithm), "
                + "nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""
            let challenge = try XCTUnwrap(Challenge.parse(header).first)
            var digest = try DigestAuthentication(challenge: challenge)
            let answer = digest.authorization(user: "Mufasa", password: "Circle of Life", method: "GET", uri: "/dir/index.html",
                                              cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
            XCTAssertTrue(answer.contains("response=\"\(expected)\""), answer)
            XCTAssertTrue(answer.contains("nc=00000001"), answer)
        }
    }

    /// A second 401 for the same nonce is the credentials' fault; a stale one is not; no password, no retry.
    func testAuthorizationGivesUpOnTheSameNonceButRetriesAStaleOne() throws {
        var auth = RTSPAuthorization(user: "u", password: "p", seed: 1)
        let challenge = "Digest realm=\"cam\", nonce=\"abc\""
        try auth.challenged(by: [challenge])
        XCTAssertNotNil(auth.header(method: "DESCRIBE", uri: "rtsp://cam/x"))
        XCTAssertThrowsError(try auth.challenged(by: [challenge])) { XCTAssertTrue("\($0)".contains("rejected")) }
        var stale = RTSPAuthorization(user: "u", password: "p", seed: 1)
        try stale.challenged(by: [challenge])
        XCTAssertNoThrow(try stale.challenged(by: ["Digest realm=\"cam\", nonce=\"abc\", stale=true"]))
        var anonymous = RTSPAuthorization(user: nil, password: nil, seed: 1)
        XCTAssertThrowsError(try anonymous.challenged(by: ["Basic realm=\"IP Camera\""])) { XCTAssertTrue("\($0)".contains("IP Camera")) }
        // Basic and Digest offered together: Digest is taken.
        var both = RTSPAuthorization(user: "u", password: "p", seed: 1)
        try both.challenged(by: ["Basic realm=\"cam\"", "Digest realm=\"cam\", nonce=\"n\", algorithm=MD5"])
        XCTAssertTrue(both.header(method: "PLAY", uri: "rtsp://cam/x")?.hasPrefix("Digest ") ?? false)
    }
}

/// TCP put back in order (RFC 9293) as a capture holds it, sequence numbers wrapping included.
final class TCPReassemblyTests: XCTestCase {
    private func run(_ segments: [(seq: UInt32, bytes: [UInt8], time: Int64)], syn: UInt32? = nil,
                     maxHeldBytes: Int = 1 << 20) -> (String, TCPReassembly.Statistics) {
        var r = TCPReassembly(maxHeldBytes: maxHeldBytes, maxHoldNanoseconds: 1_000)
        var out = ""
        let deliver: (UnsafeRawBufferPointer, Bool) -> Void = { bytes, gap in
            out += (gap ? "|" : "") + String(decoding: bytes, as: UTF8.self)
        }
        if let syn { [UInt8]().withUnsafeBytes { r.segment(sequenceNumber: syn, syn: true, payload: $0, time: 0, deliver) } }
        for s in segments { s.bytes.withUnsafeBytes { r.segment(sequenceNumber: s.seq, syn: false, payload: $0, time: s.time, deliver) } }
        r.finish(deliver)
        return (out, r.statistics)
    }

    func testRetransmissionsOverlapsAndReorderingAcrossTheWrap() {
        let base: UInt32 = 0xFFFF_FFFA  // six bytes before the wrap
        let (out, s) = run([(base &+ 1, Array("abc".utf8), 1), (base &+ 7, Array("ghi".utf8), 2),  // early: held
                            (base &+ 4, Array("def".utf8), 3),                                    // fills the gap
                            (base &+ 1, Array("abc".utf8), 4),                                    // sent again
                            (base &+ 8, Array("hijk".utf8), 5)],                                  // overlaps by 2
                           syn: base)
        XCTAssertEqual(out, "abcdefghijk")
        XCTAssertEqual(s.outOfOrder, 1)
        XCTAssertEqual(s.retransmittedBytes, 3 + 2)
        XCTAssertEqual(s.gaps, 0)
    }

    func testAGapIsGivenUpOnAfterItsTimeOrAtTheEnd() {
        // "def" never comes: held "ghi" waits past the hold time, then goes after a gap.
        let (out, s) = run([(1, Array("abc".utf8), 0), (7, Array("ghi".utf8), 10), (10, Array("jkl".utf8), 5_000)], syn: 0)
        XCTAssertEqual(out, "abc|ghijkl")
        XCTAssertEqual(s.gaps, 1)
        XCTAssertEqual(s.gapBytes, 3)
        let (end, e) = run([(1, Array("abc".utf8), 0), (7, Array("ghi".utf8), 10)], syn: 0)
        XCTAssertEqual(end, "abc|ghi")
        XCTAssertEqual(e.gaps, 1)
    }

    /// A capture that starts mid-connection takes the first segment's sequence number as the start.
    func testACaptureThatStartsMidConnection() {
        XCTAssertEqual(run([(5000, Array("xy".utf8), 0), (5002, Array("z".utf8), 1)]).0, "xyz")
    }
}

/// Session descriptions from a capture's signalling: an RTSP DESCRIBE whose lines SETUP maps to
/// ports, and a SIP offer and answer merged so both directions keep their codecs.
final class CapturedSignallingTests: XCTestCase {
    private func message(_ text: String) throws -> RTSPMessage {
        var reader = RTSPStreamReader()
        Array(text.utf8).withUnsafeBytes { reader.append($0) }
        var found: RTSPMessage?
        try reader.drain { if case .message(let m) = $0 { found = m } }
        return try XCTUnwrap(found)
    }

    func testRTSPDescribeThenSetupsMapTheLinesToTheirPorts() throws {
        let camera = Endpoint(address: .v4(0x0A00_0005), port: 554), client = Endpoint(address: .v4(0x0A00_0001), port: 40000)
        let sdp = "v=0\r\ns=-\r\nt=0 0\r\nm=video 0 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\na=control:trackID=0\r\n"
            + "m=audio 0 RTP/AVP 97\r\na=rtpmap:97 MPEG4-GENERIC/16000/1\r\na=control:trackID=1\r\n"
        var s = CapturedSignalling()
        s.message(try message("RTSP/1.0 200 OK\r\nCSeq: 2\r\nContent-Base: rtsp://10.0.0.5/live/\r\nContent-Type: application/sdp\r\n"
                              + "Content-Length: \(sdp.utf8.count)\r\n\r\n" + sdp), from: camera, to: client)
        s.message(try message("SETUP rtsp://10.0.0.5/live/trackID=1 RTSP/1.0\r\nCSeq: 3\r\n\r\n"), from: client, to: camera)
        s.message(try message("RTSP/1.0 200 OK\r\nCSeq: 3\r\nTransport: RTP/AVP;unicast;client_port=50002-50003;server_port=6972-6973\r\n\r\n"),
                  from: camera, to: client)
        s.message(try message("SETUP rtsp://10.0.0.5/live/trackID=0 RTSP/1.0\r\nCSeq: 4\r\n\r\n"), from: client, to: camera)
        s.message(try message("RTSP/1.0 200 OK\r\nCSeq: 4\r\nTransport: RTP/AVP;unicast;client_port=50000-50001\r\n\r\n"),
                  from: camera, to: client)
        XCTAssertFalse(s.sawPlay)
        s.message(try message("PLAY rtsp://10.0.0.5/live/ RTSP/1.0\r\nCSeq: 5\r\n\r\n"), from: client, to: camera)
        XCTAssertTrue(s.sawPlay)
        let d = try XCTUnwrap(s.sessionDescription)
        XCTAssertEqual(d.media.map(\.port), [50000, 50002])
        XCTAssertEqual(d.port, 50000)
        XCTAssertEqual(s.origins, ["RTSP DESCRIBE reply from 10.0.0.5:554"])
    }

    func testSIPOfferAndAnswerAreMerged() {
        var s = CapturedSignalling()
        let offer = "INVITE sip:b@x SIP/2.0\r\nVia: SIP/2.0/UDP a\r\n\r\nv=0\r\ns=-\r\nt=0 0\r\nm=audio 4000 RTP/AVP 96\r\na=rtpmap:96 opus/48000/2\r\n"
        let answer = "SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP a\r\n\r\nv=0\r\ns=-\r\nt=0 0\r\nm=audio 5000 RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\n"
        let a = Endpoint(address: .v4(1), port: 5060), b = Endpoint(address: .v4(2), port: 5060)
        Array(offer.utf8).withUnsafeBytes { s.datagram($0, from: a) }
        XCTAssertFalse(s.sawSIPAnswer)
        Array(answer.utf8).withUnsafeBytes { s.datagram($0, from: b) }
        XCTAssertTrue(s.sawSIPAnswer)
        XCTAssertEqual(s.sessionDescription?.media.map(\.port), [4000, 5000])
        XCTAssertEqual(s.sessionDescription?.media.last?.formats[111]?.encodingName.lowercased(), "opus")
        // Not SIP: nothing.
        var none = CapturedSignalling()
        Array("INVITATION to nothing\r\n\r\nv=0".utf8).withUnsafeBytes { none.datagram($0, from: a) }
        XCTAssertNil(none.sessionDescription)
    }
}
