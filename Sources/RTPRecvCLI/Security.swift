import RTPCore
import SRTP

/// The SRTP keys of a run, from the options and the SDP, and the decryptor they make.
enum Security {
    /// Nil when nothing is encrypted: no key given, and no SDP line that says SAVP. An SAVP line with no
    /// key still gets a decryptor, with no keys: its packets are then counted as encrypted, not parsed.
    static func decryptor(options: Options, sdp: SessionDescription?, inCapture: Bool) throws -> SRTPDecryptor? {
        var keys = options.srtpKeys
        if let material = options.dtlsKeyingMaterial {
            switch options.dtlsRole ?? .auto {
            case .client: keys.append(material.client)
            case .server: keys.append(material.server)
            case .auto: keys += [material.client, material.server]
            }
        }
        keys += sdp?.media.flatMap { $0.crypto.flatMap(\.keys) } ?? []
        guard !keys.isEmpty || sdp?.media.contains(where: \.isSecure) == true else { return nil }
        do {
            return try SRTPDecryptor(keys: keys, inCapture: inCapture, maxPacketBytes: options.maxPacketBytes,
                                     maxSSRCs: 1024)
        } catch {
            throw RunError(description: error.description)
        }
    }

    /// `datagram`'s plain bytes (in the decryptor's buffer until the next datagram), or nil when it
    /// is dropped.
    @inline(__always)
    static func unprotect(_ datagram: UnsafeRawBufferPointer, with decryptor: SRTPDecryptor?) -> UnsafeRawBufferPointer? {
        guard let decryptor else { return datagram }
        return decryptor.unprotect(datagram)
    }
}
