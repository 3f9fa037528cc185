import CSRTP
import RTPCore

/// libsrtp's receiving side for one master key: a session whose policy takes any inbound SSRC. libsrtp
/// gives an SSRC a stream of its own (rollover counter per RFC 3711 §3.3.1, replay window) only once a
/// packet of it authenticates, so a wrong key leaves no state behind.
final class SRTPContext {
    let key: SRTPMasterKey
    private var session: srtp_t?
    /// The _32 suites' SRTCP tag is 80 bits by RFC 5764 §4.1.2 and libsrtp, but FFmpeg's SDES sends 32:
    /// a second session takes those, tried when the first fails to authenticate an SRTCP packet.
    private var shortControlTag: srtp_t?
    /// Set once the second session has authenticated SRTCP.
    private(set) var controlTagIsShort = false

    enum Outcome: Equatable {
        case plain(length: Int)
        case failed(SRTPFailure)
    }

    init(key: SRTPMasterKey, replayWindow: Int) throws(SRTPError) {
        try SRTPLibrary.initialize()
        self.key = key
        session = try Self.create(key: key, replayWindow: replayWindow, shortControlTag: false)
        if key.suite == .aes128CMHMACSHA1_32 || key.suite == .aes256CMHMACSHA1_32 {
            shortControlTag = try Self.create(key: key, replayWindow: replayWindow, shortControlTag: true)
        }
    }

    private static func create(key: SRTPMasterKey, replayWindow: Int, shortControlTag: Bool) throws(SRTPError) -> srtp_t? {
        var policy = srtp_policy_t()
        switch key.suite {
        case .aes128CMHMACSHA1_80:
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aes128CMHMACSHA1_32:
            // SRTCP keeps its 80-bit tag with the _32 suites (RFC 4568 §6.2.1).
            srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aes256CMHMACSHA1_80:
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&policy.rtp)
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&policy.rtcp)
        case .aes256CMHMACSHA1_32:
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32(&policy.rtp)
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&policy.rtcp)
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        case .aeadAES256GCM:
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy.rtcp)
        }
        if shortControlTag { policy.rtcp = policy.rtp }
        policy.ssrc.type = ssrc_any_inbound
        policy.window_size = UInt(replayWindow)
        policy.allow_repeat_tx = 0
        policy.next = nil
        // libsrtp derives the session keys in srtp_create and keeps no pointer to these bytes.
        var material = key.keyAndSalt
        var mki = key.mki ?? []
        var session: srtp_t?
        let status = material.withUnsafeMutableBufferPointer { keyBytes in
            mki.withUnsafeMutableBufferPointer { mkiBytes in
                var master = srtp_master_key_t(key: keyBytes.baseAddress, mki_id: mkiBytes.baseAddress,
                                               mki_size: UInt32(mkiBytes.count))
                return withUnsafeMutablePointer(to: &master) { masterPointer in
                    var keys: [UnsafeMutablePointer<srtp_master_key_t>?] = [masterPointer]
                    return keys.withUnsafeMutableBufferPointer { list in
                        if key.mki != nil {
                            policy.keys = list.baseAddress
                            policy.num_master_keys = 1
                        } else {
                            policy.key = keyBytes.baseAddress
                        }
                        return srtp_create(&session, &policy)
                    }
                }
            }
        }
        for i in material.indices { material[i] = 0 }
        guard status == srtp_err_status_ok else {
            throw SRTPError(description: "\(key.origin): libsrtp refused the \(key.suite.rawValue) key (error \(status.rawValue))")
        }
        return session
    }

    deinit {
        if let session { srtp_dealloc(session) }
        if let shortControlTag { srtp_dealloc(shortControlTag) }
    }

    /// Authenticates and decrypts `packet` in place: SRTCP when `control`, else SRTP. A failed
    /// authentication leaves a packet of these suites as it was (the tag is checked before decrypting).
    func unprotect(_ packet: UnsafeMutableRawBufferPointer, control: Bool) -> Outcome {
        var length = Int32(packet.count)
        let usesMKI: UInt32 = key.mki != nil ? 1 : 0
        guard control else {
            return Self.outcome(srtp_unprotect_mki(session, packet.baseAddress, &length, usesMKI), length)
        }
        if controlTagIsShort {
            return Self.outcome(srtp_unprotect_rtcp_mki(shortControlTag, packet.baseAddress, &length, usesMKI), length)
        }
        // The 80-bit reading of a packet with a 32-bit tag fails in more ways than authentication (its
        // SRTCP index is read from the wrong place): any failure tries the other reading.
        let status = srtp_unprotect_rtcp_mki(session, packet.baseAddress, &length, usesMKI)
        guard status != srtp_err_status_ok, let shortControlTag else { return Self.outcome(status, length) }
        var shortLength = Int32(packet.count)
        guard srtp_unprotect_rtcp_mki(shortControlTag, packet.baseAddress, &shortLength, usesMKI) == srtp_err_status_ok else {
            return Self.outcome(status, length)
        }
        controlTagIsShort = true
        return .plain(length: Int(shortLength))
    }

    private static func outcome(_ status: srtp_err_status_t, _ length: Int32) -> Outcome {
        switch status {
        case srtp_err_status_ok: return .plain(length: Int(length))
        case srtp_err_status_auth_fail: return .failed(.authentication)
        case srtp_err_status_replay_fail: return .failed(.replay)
        case srtp_err_status_replay_old: return .failed(.old)
        case srtp_err_status_bad_mki, srtp_err_status_no_ctx: return .failed(.noKey)
        default: return .failed(.malformed)
        }
    }
}

/// libsrtp's one-time setup, and silence: its log handler could otherwise print to stderr.
enum SRTPLibrary {
    /// Why libsrtp2 cannot be used, or nil once it is loaded and initialized.
    private static let failure: String? = {
        var message = [CChar](repeating: 0, count: 600)
        guard rtprecv_srtp_load(&message, message.count) == 0 else {
            return "cannot load libsrtp2: " + String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let status = srtp_init()
        _ = srtp_install_log_handler({ _, _, _ in }, nil)
        return status == srtp_err_status_ok ? nil : "libsrtp2 failed to start (error \(status.rawValue))"
    }()

    static func initialize() throws(SRTPError) {
        if let failure { throw SRTPError(description: failure) }
    }
}

public struct SRTPError: Error, CustomStringConvertible {
    public var description: String
}
