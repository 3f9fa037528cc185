/// The client's side of an RTSP conversation (RFC 2326 §10), over bytes: requests with their CSeq,
/// Session and Authorization, and what each response means. A driver sends what this builds and
/// hands back what the server answers; sockets and timing are the driver's.
public struct RTSPClient: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var url: RTSPURL
        public var headers: [(name: String, value: String)]
    }

    /// What a response means for the request it answers.
    public enum Outcome: Sendable {
        case success(RTSPMessage)
        /// 401 with a challenge that can be answered: send `bytes`, the same request with credentials.
        case retry([UInt8])
        /// 3xx with a Location.
        case redirect(RTSPURL)
        case failure(RTSPError)
    }

    public static let userAgent = "rtprecv"

    public private(set) var cseq = 0
    public private(set) var session: RTSPSessionHeader?
    /// A SETUP's reply named the session, which later replies then cannot change.
    private var sessionSetUp = false
    /// The methods the server's OPTIONS reply lists in Public.
    public private(set) var publicMethods: Set<String> = []
    /// GET_PARAMETER when the server lists it, else OPTIONS; the other after 405, 454 or 501.
    public private(set) var keepAliveMethod = "OPTIONS"
    public var authorization: RTSPAuthorization
    private var pending: [Int: Request] = [:]

    public init(authorization: RTSPAuthorization) {
        self.authorization = authorization
    }

    /// The bytes of a request, with the next CSeq.
    public mutating func request(_ method: String, _ url: RTSPURL, headers: [(name: String, value: String)] = []) -> [UInt8] {
        encode(Request(method: method, url: url, headers: headers))
    }

    private mutating func encode(_ r: Request) -> [UInt8] {
        cseq += 1
        pending[cseq] = r
        if pending.count > 64, let oldest = pending.keys.min() { pending[oldest] = nil }
        let uri = r.url.uri
        var text = "\(r.method) \(uri) RTSP/1.0\r\nCSeq: \(cseq)\r\nUser-Agent: \(RTSPClient.userAgent)\r\n"
        if let session { text += "Session: \(session.id)\r\n" }
        if let value = authorization.header(method: r.method, uri: uri) { text += "Authorization: \(value)\r\n" }
        for h in r.headers { text += "\(h.name): \(h.value)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    /// The method of the request a response answers.
    public func method(answeredBy message: RTSPMessage) -> String? { message.cseq.flatMap { pending[$0]?.method } }

    /// What `message` means as the reply to the request sent last, which the driver waits for: a
    /// CSeq of another request is a protocol error (a reply without one is taken, as cameras send).
    public mutating func receiveReply(_ message: RTSPMessage) -> Outcome {
        if let header = message.header("CSeq"), message.cseq != cseq {
            return .failure(.protocolError("the reply names CSeq '\(header)'; the request was CSeq \(cseq)"))
        }
        return receive(message)
    }

    /// What `message`, a response, means for the request it answers.
    public mutating func receive(_ message: RTSPMessage) -> Outcome {
        let request = message.cseq.flatMap { pending.removeValue(forKey: $0) }
        if let header = message.header("Session"), var parsed = RTSPSessionHeader(parsing: header) {
            // Later replies name the session without its timeout: SETUP's stands.
            if let known = session, known.id == parsed.id, !header.lowercased().contains("timeout=") {
                parsed.timeoutSeconds = known.timeoutSeconds
            }
            // The first SETUP's session is the session: some DVRs ("H264DVR") name another in the
            // second SETUP's reply, yet play only under the first.
            if !sessionSetUp || session?.id == parsed.id { session = parsed }
            if request?.method == "SETUP" && (200..<300).contains(message.statusCode) { sessionSetUp = true }
        }
        switch message.statusCode {
        case 200..<300:
            if request?.method == "OPTIONS", let list = message.header("Public") {
                publicMethods = Set(list.split(separator: ",").map { String($0.trimmingWhitespace()).uppercased() })
                if publicMethods.contains("GET_PARAMETER") { keepAliveMethod = "GET_PARAMETER" }
            }
            return .success(message)
        case 300..<400:
            guard let location = message.header("Location"), let url = try? RTSPURL(parsing: location) else {
                return .failure(.status(message.statusCode, message.reason, request?.method))
            }
            return .redirect(url)
        case 401:
            guard let request else { return .failure(.status(401, message.reason, nil)) }
            do {
                try authorization.challenged(by: message.headers("WWW-Authenticate"))
            } catch {
                return .failure(.authentication(error))
            }
            return .retry(encode(request))
        case 405 where request?.method == keepAliveMethod, 501 where request?.method == keepAliveMethod:
            // The keep-alive method is not allowed: the other one from now on. (454 is no such answer:
            // the session is gone, which the driver hears as a failure.)
            keepAliveMethod = keepAliveMethod == "OPTIONS" ? "GET_PARAMETER" : "OPTIONS"
            return .success(message)
        default:
            return .failure(.status(message.statusCode, message.reason, request?.method))
        }
    }

    /// How often to keep the session alive: half its timeout.
    public var keepAliveIntervalSeconds: Int { max(1, (session?.timeoutSeconds ?? 60) / 2) }
}

/// Why an RTSP exchange failed, in the words a user needs.
public enum RTSPError: Error, CustomStringConvertible, Sendable {
    case status(Int, String, String?)
    case authentication(RTSPAuthorization.Failure)
    case protocolError(String)

    public var description: String {
        switch self {
        case .status(let code, let reason, let method):
            let what = method.map { "\($0): " } ?? ""
            switch code {
            case 401: return what + "401 Unauthorized: the server rejected the credentials"
            case 404: return what + "404 Not Found: the server has no stream at that path"
            case 453: return what + "453 Not Enough Bandwidth: the camera serves no more clients (close another viewer)"
            case 454: return what + "454 Session Not Found: the server no longer knows the session"
            case 461: return what + "461 Unsupported Transport"
            default: return what + "\(code) \(reason)"
            }
        case .authentication(let failure): return failure.description
        case .protocolError(let text): return text
        }
    }

    public var statusCode: Int? {
        if case .status(let code, _, _) = self { return code }
        return nil
    }
}
