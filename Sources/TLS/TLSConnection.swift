import COpenSSL
import Glibc
import NetworkAddress
import SystemIO

/// A TCP connection with TLS over it (OpenSSL, loaded on first use), as RTSPS uses (RFC 7826
/// §19.2): the handshake with the host's name (SNI), the server's certificate checked against the
/// trust, then records read and written on the same non-blocking socket, so that a loop polls its
/// descriptor as a plain connection's.
public final class TLSConnection: StreamConnection {
    private let tcp: TCPConnection
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    public var descriptor: Int32 { tcp.descriptor }
    public var peer: Endpoint { tcp.peer }
    /// SSL_read gives one record's plaintext at a time: more may wait in the socket or in OpenSSL.
    public var shortReadTakesAll: Bool { false }
    /// The protocol agreed ("TLSv1.3"), and how the certificate was accepted, for the summary.
    public private(set) var version = ""
    public let pinned: Bool
    /// The handshake finished: a close_notify is owed.
    private var established = false

    /// The handshake over `tcp` (connected) with `host`, within `timeoutMilliseconds`.
    public init(over tcp: TCPConnection, host: String, trust: TLSTrust, timeoutMilliseconds: Int32) throws {
        var message = [CChar](repeating: 0, count: 512)
        guard rtprecv_openssl_load(&message, message.count) == 0 else {
            throw TLSError("cannot load OpenSSL: " + Self.string(message))
        }
        let context = try Self.context(trusting: trust)
        guard let ssl = SSL_new(context) else {
            SSL_CTX_free(context)
            throw TLSError(Self.lastError("SSL_new"))
        }
        (self.tcp, self.context, self.ssl, pinned) = (tcp, context, ssl, trust.fingerprint != nil)
        // A write goes on from where it stopped with the same bytes, which a Swift array may hold elsewhere.
        _ = rtprecv_ssl_set_mode(ssl, Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        _ = SSL_set_fd(ssl, tcp.descriptor)
        // SNI names a host, never an address (RFC 6066 §3); the certificate is checked against either.
        if !host.contains(":") && !host.allSatisfy({ $0.isNumber || $0 == "." }) { _ = rtprecv_ssl_set_sni(ssl, host) }
        _ = SSL_set1_host(ssl, host)
        try handshake(timeoutMilliseconds: timeoutMilliseconds)
        established = true
        try check(trust)
        version = String(cString: SSL_get_version(ssl))
    }

    deinit {
        ERR_clear_error()
        // Never after a failed handshake (OpenSSL's rule); SIGPIPE is ignored should the peer be gone.
        if established { _ = SSL_shutdown(ssl) }
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// A client context, whole before a connection is made from it (which copies its options):
    /// the system's authorities, or the file's.
    private static func context(trusting trust: TLSTrust) throws -> OpaquePointer {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw TLSError(lastError("SSL_CTX_new")) }
        // A server that closes without TLS's close_notify has still closed: a read says so plainly.
        _ = SSL_CTX_set_options(context, rtprecv_ssl_op_ignore_unexpected_eof)
        if let file = trust.caFile {
            guard SSL_CTX_load_verify_locations(context, file, nil) == 1 else {
                let why = lastError("SSL_CTX_load_verify_locations")
                SSL_CTX_free(context)
                throw TLSError("cannot read the certificates of \(file): " + why)
            }
        } else {
            _ = SSL_CTX_set_default_verify_paths(context)
        }
        return context
    }

    /// SSL_connect, waiting on the socket as it asks, until done or the time is up.
    private func handshake(timeoutMilliseconds: Int32) throws {
        let deadline = Self.milliseconds() + Int64(timeoutMilliseconds)
        while true {
            ERR_clear_error()
            let result = SSL_connect(ssl)
            if result == 1 { return }
            let left = Int32(clamping: max(0, deadline - Self.milliseconds()))
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ where left > 0 && TCPConnection.wait(descriptor, for: Int32(POLLIN), milliseconds: left): continue
            case SSL_ERROR_WANT_WRITE where left > 0 && TCPConnection.wait(descriptor, for: Int32(POLLOUT), milliseconds: left): continue
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                throw TLSError("the TLS handshake did not finish within \(timeoutMilliseconds / 1000) s")
            default:
                throw TLSError("the TLS handshake failed: " + Self.lastError("SSL_connect"))
            }
        }
    }

    /// The certificate: its fingerprint where one is pinned, else the chain and the name as verified.
    private func check(_ trust: TLSTrust) throws {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { throw TLSError("the server sent no certificate") }
        defer { X509_free(certificate) }
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 32
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1, length == 32 else {
            throw TLSError(Self.lastError("X509_digest"))
        }
        var name = [CChar](repeating: 0, count: 256)
        let subject = X509_NAME_oneline(X509_get_subject_name(certificate), &name, Int32(name.count)).map { String(cString: $0) } ?? "?"
        if let pinned = trust.fingerprint {
            guard digest == pinned else {
                throw UntrustedCertificate(reason: "its fingerprint is not the one pinned (\(TLSTrust.said(fingerprint: pinned)))",
                                           subject: subject, fingerprint: digest)
            }
            return
        }
        let verdict = SSL_get_verify_result(ssl)
        guard verdict == X509_V_OK else {
            throw UntrustedCertificate(reason: String(cString: X509_verify_cert_error_string(verdict)), subject: subject, fingerprint: digest)
        }
    }

    public func write(_ bytes: [UInt8], timeoutMilliseconds: Int32) throws {
        guard !bytes.isEmpty else { return }
        guard bytes.count <= Int32.max else { throw TLSError("a write of \(bytes.count) bytes is too large") }
        while true {
            ERR_clear_error()
            let n = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            if n > 0 { return }  // without partial writes, all of it
            switch SSL_get_error(ssl, n) {
            case SSL_ERROR_WANT_WRITE where TCPConnection.wait(descriptor, for: Int32(POLLOUT), milliseconds: timeoutMilliseconds): continue
            case SSL_ERROR_WANT_READ where TCPConnection.wait(descriptor, for: Int32(POLLIN), milliseconds: timeoutMilliseconds): continue
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                throw ConnectionError("\(tcp.name): the connection accepts nothing more (timed out writing)")
            default:
                throw ConnectionError("\(tcp.name): the connection was lost (" + Self.lastError("SSL_write") + ")")
            }
        }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) throws -> Int {
        // What OpenSSL holds already is read at once; else the socket is waited on.
        if timeoutMilliseconds > 0 && SSL_pending(ssl) == 0
            && !TCPConnection.wait(descriptor, for: Int32(POLLIN), milliseconds: timeoutMilliseconds) { return 0 }
        ERR_clear_error()
        let n = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        if n > 0 { return Int(n) }
        switch SSL_get_error(ssl, n) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return 0  // a record not whole yet, or a ticket
        case SSL_ERROR_ZERO_RETURN: throw ConnectionError("\(tcp.name) closed the connection")
        default: throw ConnectionError("\(tcp.name): the connection was lost (" + Self.lastError("SSL_read") + ")")
        }
    }

    /// OpenSSL's first error queued, in its words, or `call` and errno's.
    private static func lastError(_ call: String) -> String {
        let code = ERR_get_error()
        guard code != 0 else { return errno == 0 ? "\(call) failed" : "\(call): " + String(cString: strerror(errno)) }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return string(text)
    }

    /// A C string OpenSSL wrote into `buffer`.
    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func milliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}
