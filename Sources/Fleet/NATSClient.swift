import CNATS
import Glibc

/// What the NATS client library said went wrong, in words (never a password: the library's texts
/// name servers and operations, not credentials).
public struct NATSError: Error, CustomStringConvertible {
    public let description: String
    let status: natsStatus

    init(_ what: String, _ status: natsStatus) {
        self.status = status
        var last = natsStatus(0)
        let detail = nats_GetLastError(&last).map { String(cString: $0) } ?? ""
        let text = String(cString: natsStatus_GetText(status))
        description = "\(what): " + (detail.isEmpty || detail == text ? text : "\(text) (\(detail))")
    }

    init(_ description: String) {
        self.description = description
        status = NATS_ERR
    }

    /// The key or message asked for is not there.
    var isNotFound: Bool { status == NATS_NOT_FOUND }
}

/// One connection to a NATS cluster, with its JetStream context: the one thing of the fleet that
/// talks to libnats. It reconnects by itself, forever, once connected.
public final class NATSClient {
    public struct Settings: Equatable, Sendable {
        public var servers: [String]
        public var user: String?
        public var password: String?
        public var credentialsFile: String?
        public var trustedCertificates: String?
        /// The connection's name on the server's monitoring pages.
        public var name: String
        /// How long a request (a claim, a publish) may wait for its answer.
        public var timeoutMilliseconds: Int64

        public init(servers: [String], name: String, timeoutMilliseconds: Int64) {
            self.servers = servers
            self.name = name
            self.timeoutMilliseconds = timeoutMilliseconds
        }
    }

    let connection: OpaquePointer
    let jetStream: OpaquePointer

    public init(_ settings: Settings) throws(NATSError) {
        var message = [CChar](repeating: 0, count: 512)
        guard rtprecv_nats_load(&message, message.count) == 0 else {
            throw NATSError(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        var options: OpaquePointer?
        try check("natsOptions_Create", natsOptions_Create(&options))
        defer { natsOptions_Destroy(options) }
        try Self.configure(options, settings)
        var connection: OpaquePointer?
        try check("cannot connect to \(settings.servers.joined(separator: ", "))", natsConnection_Connect(&connection, options))
        self.connection = connection!
        var jsOptions = jsOptions()
        _ = jsOptions_Init(&jsOptions)
        jsOptions.Wait = settings.timeoutMilliseconds
        var context: OpaquePointer?
        let status = natsConnection_JetStream(&context, connection, &jsOptions)
        guard status == NATS_OK, let context else {
            natsConnection_Destroy(connection)
            throw NATSError("JetStream", status)
        }
        jetStream = context
    }

    private static func configure(_ options: OpaquePointer?, _ s: Settings) throws(NATSError) {
        var servers = s.servers.map { strdup($0) }
        defer { servers.forEach { free($0) } }
        let status = servers.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) {
                natsOptions_SetServers(options, $0.baseAddress, Int32($0.count))
            }
        }
        try check("the servers", status)
        try check("the name", natsOptions_SetName(options, s.name))
        try check("the timeout", natsOptions_SetTimeout(options, s.timeoutMilliseconds))
        try check("reconnecting", natsOptions_SetMaxReconnect(options, -1))
        try check("reconnecting", natsOptions_SetReconnectWait(options, 500))
        if let user = s.user { try check("the user", natsOptions_SetUserInfo(options, user, s.password)) }
        if let file = s.credentialsFile {
            try check("the credentials file \(file)", natsOptions_SetUserCredentialsFromFiles(options, file, nil))
        }
        if let file = s.trustedCertificates {
            try check("the CA file \(file)", natsOptions_LoadCATrustedCertificates(options, file))
            try check("TLS", natsOptions_SetSecure(options, true))
        }
    }

    /// Whether the connection is up now (not reconnecting, not closed).
    public var isConnected: Bool { natsConnection_Status(connection) == NATS_CONN_STATUS_CONNECTED }

    deinit {
        jsCtx_Destroy(jetStream)
        natsConnection_Close(connection)
        natsConnection_Destroy(connection)
    }
}

func check(_ what: @autoclosure () -> String, _ status: natsStatus) throws(NATSError) {
    if status != NATS_OK { throw NATSError(what(), status) }
}
