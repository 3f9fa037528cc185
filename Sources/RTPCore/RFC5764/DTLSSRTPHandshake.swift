/// A DTLS-SRTP handshake as a capture shows it in the clear: the randoms of its two hellos, the
/// cipher suite (whose PRF the keys are derived with) and the SRTP protection profile the server
/// chose in its use_srtp extension (RFC 5764 §4.1.1). With the master secret a key log holds for
/// its client random, its keying material follows (§4.2, exported as RFC 5705 says):
///
///     PRF(master_secret, "EXTRACTOR-dtls_srtp", client_random + server_random)
public struct DTLSSRTPHandshake: Sendable {
    public var clientRandom: [UInt8]
    public var serverRandom: [UInt8]
    public var cipherSuite: UInt16
    /// The DTLS version the server agreed to (0xFEFD: 1.2).
    public var version: UInt16
    /// Nil when the server's hello had no use_srtp: not a DTLS-SRTP handshake.
    public var profile: UInt16?

    /// The use_srtp extension's type (RFC 5764 §9).
    static let useSRTP: UInt16 = 14

    /// The SRTP suite of the profile chosen (RFC 5764 §4.1.2, RFC 7714 §14.2); nil for the NULL
    /// ciphers and unknown profiles.
    public var suite: SRTPSuite? {
        switch profile {
        case 0x0001: .aes128CMHMACSHA1_80
        case 0x0002: .aes128CMHMACSHA1_32
        case 0x0007: .aeadAES128GCM
        case 0x0008: .aeadAES256GCM
        default: nil
        }
    }

    /// The keying material for `masterSecret` (48 bytes, from a key log), both directions' keys.
    public func keyingMaterial(masterSecret: [UInt8], origin: String) throws(SRTPMasterKey.Invalid) -> DTLSKeyingMaterial {
        guard version == 0xFEFD else {
            // DTLS 1.0's PRF is TLS 1.0's (MD5 and SHA-1 together); WebRTC has used DTLS 1.2 for years.
            throw SRTPMasterKey.Invalid(description: "\(origin): the DTLS handshake agreed to version 0x\(String(version, radix: 16)), "
                                        + "not DTLS 1.2, whose keys rtprecv derives")
        }
        guard let suite else {
            throw SRTPMasterKey.Invalid(description: "\(origin): the DTLS handshake chose "
                                        + (profile.map { "SRTP protection profile \($0)" } ?? "no SRTP protection profile")
                                        + ", which rtprecv does not decrypt")
        }
        let bytes = TLSPRF.bytes(TLSPRF.hash(forCipherSuite: cipherSuite), secret: masterSecret, label: "EXTRACTOR-dtls_srtp",
                                 seed: clientRandom + serverRandom, count: 2 * (suite.keyLength + suite.saltLength))
        return try DTLSKeyingMaterial(exported: bytes, suite: suite, origin: origin)
    }

    /// The handshake of `client`'s ClientHello random and the server's hello `server`.
    init(clientRandom: [UInt8], server: TLSHello.Server) {
        self.clientRandom = clientRandom
        serverRandom = server.random
        cipherSuite = server.cipherSuite
        version = server.version
        profile = server.extensions.first { $0.type == Self.useSRTP }.flatMap { use in
            // SRTPProtectionProfiles<2..2^16-1>, of which the server names one; then srtp_mki.
            // bounded: bytes widened.
            use.data.count >= 4 && use.data[0] == 0 && use.data[1] >= 2 ? UInt16(use.data[2]) << 8 | UInt16(use.data[3]) : nil
        }
    }
}

/// The DTLS-SRTP handshakes in a capture, from its datagrams in order: each ClientHello's random,
/// by the two endpoints, until the ServerHello that answers it. Bounded: 1024 of each.
public struct DTLSHandshakeCollector {
    private struct Pair: Hashable { var client: Endpoint, server: Endpoint }
    private var clientRandoms: [Pair: [UInt8]] = [:]
    public private(set) var handshakes: [DTLSSRTPHandshake] = []

    public init() {}

    /// A datagram from `source` to `destination`; anything but a DTLS hello is passed over.
    public mutating func datagram(_ bytes: UnsafeRawBufferPointer, from source: Endpoint, to destination: Endpoint) {
        guard DTLSHandshakeMessages.isDTLS(bytes) else { return }
        DTLSHandshakeMessages.forEach(in: bytes) { type, body in
            switch type {
            case TLSHello.clientHello:
                guard clientRandoms.count < 1024, let random = TLSHello.clientRandom(body) else { return }
                clientRandoms[Pair(client: source, server: destination)] = random
            case TLSHello.serverHello:
                guard let server = TLSHello.server(body), let random = clientRandoms[Pair(client: destination, server: source)],
                      handshakes.count < 1024, !handshakes.contains(where: { $0.clientRandom == random }) else { return }
                handshakes.append(DTLSSRTPHandshake(clientRandom: random, server: server))
            default:
                break
            }
        }
    }
}
