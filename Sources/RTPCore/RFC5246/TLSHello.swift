/// What the hellos of a (D)TLS 1.2 handshake say in the clear (RFC 5246 §7.4.1.2, §7.4.1.3; DTLS adds
/// the ClientHello's cookie, RFC 6347 §4.2.1): the two randoms that a key log's secret is found by and
/// that keys are derived from, the cipher suite (which names the PRF's hash), and the extensions.
public enum TLSHello {
    public static let clientHello: UInt8 = 1
    public static let serverHello: UInt8 = 2

    /// A ClientHello's random, or nil when the body is too short for one.
    ///
    ///     client_version(2) random(32) session_id<0..32> [cookie<0..255>] cipher_suites ...
    public static func clientRandom(_ body: UnsafeRawBufferPointer) -> [UInt8]? {
        var cursor = ByteCursor(body)
        guard cursor.skip(2), let random = cursor.readSlice(32) else { return nil }
        return Array(random)
    }

    public struct Server: Sendable {
        /// The version agreed: 0xFEFD for DTLS 1.2, 0xFEFF for DTLS 1.0.
        public var version: UInt16
        public var random: [UInt8]
        public var cipherSuite: UInt16
        /// Each extension's type and data, in order.
        public var extensions: [(type: UInt16, data: [UInt8])]
    }

    /// A ServerHello's random, cipher suite and extensions, or nil when it does not parse.
    ///
    ///     server_version(2) random(32) session_id<0..32> cipher_suite(2) compression_method(1)
    ///     extensions<0..2^16-1>: (type(2) extension_data<0..2^16-1>)*
    public static func server(_ body: UnsafeRawBufferPointer) -> Server? {
        var cursor = ByteCursor(body)
        guard let version = cursor.readUInt16(), let random = cursor.readSlice(32), let sessionLength = cursor.readUInt8(), sessionLength <= 32,
              cursor.skip(Int(sessionLength)), let suite = cursor.readUInt16(), cursor.skip(1) else { return nil } // bounded: widened
        var server = Server(version: version, random: Array(random), cipherSuite: suite, extensions: [])
        guard let length = cursor.readUInt16(), let block = cursor.readSlice(Int(length)) else { return server } // bounded: widened
        var extensions = ByteCursor(block)
        while let type = extensions.readUInt16(), let size = extensions.readUInt16(), let data = extensions.readSlice(Int(size)) { // bounded: widened
            server.extensions.append((type, Array(data)))
        }
        return server
    }
}
