import Foundation
import RTPCore
import XCTest

/// SRTP keys as users and SDPs give them: `--srtp-key`, RFC 4568 `a=crypto`, and DTLS-SRTP keying
/// material (RFC 5764 §4.2). No message or description may show a key.
final class SRTPKeyTests: XCTestCase {
    private let tooLong = "WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVzcyBh"  // 33 bytes: too long for AES_CM_128
    private let good = "9sOd+W72ilwfNgNt0FzlGYj6YZPMqN1sJJx43UuS"  // 30 bytes

    func testBareKeyIsTheDefaultSuiteAndSuiteNamesAreTaken() throws {
        let bare = try SRTPMasterKey(option: good, origin: "--srtp-key #1")
        XCTAssertEqual(bare.suite, .aes128CMHMACSHA1_80)
        XCTAssertEqual(bare.keyAndSalt.count, 30)
        XCTAssertEqual(bare.keyAndSalt.prefix(3), [0xF6, 0xC3, 0x9D])
        let named = try SRTPMasterKey(option: "aes_cm_128_hmac_sha1_32:" + good, origin: "x")
        XCTAssertEqual(named.suite, .aes128CMHMACSHA1_32)
        XCTAssertEqual(SRTPSuite(name: "SRTP_AES128_CM_SHA1_80"), .aes128CMHMACSHA1_80)
        XCTAssertEqual(SRTPSuite(name: "SRTP_AEAD_AES_256_GCM"), .aeadAES256GCM)
        XCTAssertFalse(bare.description.contains(good) || bare.description.contains("9sOd"), bare.description)
    }

    func testBadKeysSayWhatIsWrongWithoutTheKey() {
        for (text, expected) in [(tooLong, "takes 30 bytes"), ("FOO_BAR:" + good, "unknown SRTP suite 'FOO_BAR'"),
                                 ("AEAD_AES_128_GCM:" + good, "takes 28 bytes"), ("not*base64", "not base64"),
                                 (String(good.dropLast(4)), "this key has 27"), (String(good.dropLast(3)), "cut short")] {
            XCTAssertThrowsError(try SRTPMasterKey(option: text, origin: "--srtp-key #1")) { error in
                let message = "\(error)"
                XCTAssertTrue(message.contains(expected) && message.hasPrefix("--srtp-key #1"), message)
                XCTAssertFalse(message.contains(good.prefix(12)), "the key shows: \(message)")
            }
        }
    }

    func testCryptoAttributesWithLifetimeAndMKI() throws {
        let sdp = """
        v=0
        o=- 1 1 IN IP4 127.0.0.1
        s=-
        c=IN IP4 127.0.0.1
        t=0 0
        m=audio 5004 RTP/SAVP 0
        a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(good)|2^20|1:4
        a=crypto:2 AES_CM_128_HMAC_SHA1_32 inline:\(good)
        a=crypto:3 F8_128_HMAC_SHA1_80 inline:\(good)
        m=video 5006 RTP/AVP 96
        a=rtpmap:96 H264/90000

        """
        let parsed = try SessionDescription(parsing: sdp)
        let audio = try XCTUnwrap(parsed.media.first)
        XCTAssertTrue(audio.isSecure)
        XCTAssertFalse(parsed.media[1].isSecure)
        XCTAssertEqual(audio.crypto.map(\.tag), [1, 2])
        XCTAssertEqual(audio.crypto[0].keys.first?.mki, [0, 0, 0, 1])
        XCTAssertNil(audio.crypto[1].keys.first?.mki)
        XCTAssertEqual(audio.crypto[1].keys.first?.suite, .aes128CMHMACSHA1_32)
        // The suite rtprecv does not take is said, without its key.
        let warning = try XCTUnwrap(parsed.warnings.first { $0.contains("F8_128_HMAC_SHA1_80") })
        XCTAssertFalse(warning.contains(good.prefix(12)), warning)
    }

    func testDTLSKeyingMaterialSplitsIntoEachSidesKeyAndSalt() throws {
        // client key 0x01.., server key 0x02.., client salt 0x03.., server salt 0x04..
        let bytes = [UInt8](repeating: 1, count: 16) + [UInt8](repeating: 2, count: 16)
            + [UInt8](repeating: 3, count: 14) + [UInt8](repeating: 4, count: 14)
        let hex = bytes.map { String(format: "%02X", $0) }.joined()
        let material = try DTLSKeyingMaterial(option: hex, origin: "--srtp-keying-material")
        XCTAssertEqual(material.client.suite, .aes128CMHMACSHA1_80)
        XCTAssertEqual(material.client.keyAndSalt, [UInt8](repeating: 1, count: 16) + [UInt8](repeating: 3, count: 14))
        XCTAssertEqual(material.server.keyAndSalt, [UInt8](repeating: 2, count: 16) + [UInt8](repeating: 4, count: 14))
        // Colons between bytes, as key logs write them, and a named suite.
        let colons = bytes.prefix(56).map { String(format: "%02x", $0) }.joined(separator: ":")
        XCTAssertEqual(try DTLSKeyingMaterial(option: colons, origin: "x").client.suite, .aeadAES128GCM)
        XCTAssertEqual(try DTLSKeyingMaterial(option: "AES_CM_128_HMAC_SHA1_32:" + hex, origin: "x").server.suite,
                       .aes128CMHMACSHA1_32)
        XCTAssertThrowsError(try DTLSKeyingMaterial(option: String(hex.dropLast(2)), origin: "x")) { error in
            XCTAssertTrue("\(error)".contains("59 bytes of keying material fit no SRTP suite"), "\(error)")
        }
    }
}
