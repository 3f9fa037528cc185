/// The keying material a DTLS-SRTP handshake exports (RFC 5764 §4.2), split into the master keys of its
/// two directions. With it logged (by a browser or an SFU), a WebRTC capture can be decrypted.
///
///     client_write_SRTP_master_key[key] | server_write_SRTP_master_key[key]
///     | client_write_SRTP_master_salt[salt] | server_write_SRTP_master_salt[salt]
public struct DTLSKeyingMaterial: Sendable {
    /// The key the DTLS client's packets are protected with, and the server's.
    public let client: SRTPMasterKey
    public let server: SRTPMasterKey

    /// `text`: `[SUITE:]HEX`. Without a suite, the length tells it, taking the _80 suite where an _80
    /// and a _32 one have the same.
    public init(option text: String, origin: String) throws(SRTPMasterKey.Invalid) {
        var hex = Substring(text)
        var suite: SRTPSuite?
        // Hex may be written with colons between bytes, as key logs do: a suite is a prefix that is not hex.
        if let colon = text.firstIndex(of: ":"), Self.hexBytes(text[..<colon]) == nil {
            let name = text[..<colon]
            guard let named = SRTPSuite(name: name) else {
                throw SRTPMasterKey.Invalid(description: "\(origin): \(SRTPSuite.unknown(name))")
            }
            suite = named
            hex = text[text.index(after: colon)...]
        }
        guard let bytes = Self.hexBytes(hex) else {
            throw SRTPMasterKey.Invalid(description: "\(origin): the keying material is not hexadecimal")
        }
        let lengths = [SRTPSuite.aes128CMHMACSHA1_80, .aeadAES128GCM, .aes256CMHMACSHA1_80, .aeadAES256GCM]
        guard let chosen = suite ?? lengths.first(where: { 2 * ($0.keyLength + $0.saltLength) == bytes.count }) else {
            throw SRTPMasterKey.Invalid(description: "\(origin): \(bytes.count) bytes of keying material fit no SRTP suite "
                                        + "(60 for AES_CM_128, 56 for AEAD_AES_128_GCM, 92 for AES_256_CM, 88 for AEAD_AES_256_GCM)")
        }
        try self.init(exported: bytes, suite: chosen, origin: origin)
    }

    /// `bytes`, exported for `suite`, split into the two directions' keys.
    public init(exported bytes: [UInt8], suite chosen: SRTPSuite, origin: String) throws(SRTPMasterKey.Invalid) {
        let (k, s) = (chosen.keyLength, chosen.saltLength)
        guard bytes.count == 2 * (k + s) else {
            throw SRTPMasterKey.Invalid(description: "\(origin): \(chosen.rawValue) takes \(2 * (k + s)) bytes of keying material; "
                                        + "this has \(bytes.count)")
        }
        client = try SRTPMasterKey(suite: chosen, keyAndSalt: Array(bytes[0..<k] + bytes[2 * k..<2 * k + s]),
                                   origin: "\(origin) (DTLS client's key)")
        server = try SRTPMasterKey(suite: chosen, keyAndSalt: Array(bytes[k..<2 * k] + bytes[2 * k + s..<2 * (k + s)]),
                                   origin: "\(origin) (DTLS server's key)")
    }

    /// Hex with colons or spaces between bytes, as key logs write it; nil when empty or not hex.
    private static func hexBytes(_ text: Substring) -> [UInt8]? {
        let digits = String(text.filter { $0 != ":" && $0 != " " })
        return digits.isEmpty ? nil : RTPCore.hexBytes(digits)
    }
}
