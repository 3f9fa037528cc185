import RTPCore
import SystemIO
import TLS

/// One request and its reply on the control connection, before the live loop.
extension RTSPPull {
    /// A successful reply, or a redirect where one may be followed.
    enum Reply {
        case message(RTSPMessage)
        case redirect(RTSPURL)
    }

    /// One request and its successful reply; anything else is thrown.
    func request(_ method: String, _ target: RTSPURL, headers: [(name: String, value: String)] = [],
                         fallbackOn461: Bool = false) throws -> RTSPMessage {
        switch try exchange(method, target, headers: headers, fallbackOn461: fallbackOn461) {
        case .message(let m): return m
        case .redirect(let to): throw Failure(description: "\(target): \(method) redirected to \(to), which rtprecv follows only before SETUP")
        }
    }

    /// One request and its response (after any 401 answered with credentials), before the live loop.
    func exchange(_ method: String, _ target: RTSPURL, headers: [(name: String, value: String)] = [],
                          fallbackOn461: Bool = false) throws -> Reply {
        var bytes = client.request(method, target, headers: headers)
        var reopened = false
        for _ in 0..<5 {
            if settings.verbose { settings.say("rtsp: > \(method) \(target)\n") }
            let reply: RTSPMessage
            do {
                try connection.write(bytes)
                reply = try awaitResponse(method: method, target: target)
            } catch let error where (error is ConnectionError || error is SystemError) && !reopened {
                // A server that closes the connection after each reply: the request again, on a new one.
                reopened = true
                try reopen()
                continue
            }
            if settings.verbose { settings.say("rtsp: < \(reply.statusCode) \(reply.reason)\n") }
            switch client.receiveReply(reply) {
            case .retry(let again):
                bytes = again
            case .redirect(let to):
                return .redirect(to)
            case .failure(let error) where error.statusCode == 461 && fallbackOn461:
                throw Fallback(reason: "the server refused UDP (461 Unsupported Transport)")
            case .failure(let error):
                throw Failure(description: "\(target): \(error)")
            case .success(let message):
                return .message(message)
            }
        }
        throw Failure(description: "\(target): \(method) still unauthorized after answering the server's challenges")
    }

    func awaitResponse(method: String, target: RTSPURL) throws -> RTSPMessage {
        let deadline = Terminal.monotonicNanoseconds() + 10_000_000_000
        while Terminal.monotonicNanoseconds() < deadline {
            var found: RTSPMessage?
            try reader.drain { item in
                switch item {
                case .message(let m) where found == nil && m.method == nil:
                    found = m
                case .interleaved(let channel, let payload):
                    // Media before PLAY's reply (some cameras send it first): kept for the session.
                    if earlyBytes + payload.count <= 8 << 20 {
                        earlyFrames.append((channel, Array(payload)))
                        earlyBytes += payload.count
                    }
                default:
                    break
                }
            }
            if let found { return found }
            if let why = settings.stopReason() { throw Failure(description: "\(why) during \(method)") }
            _ = try readSome(timeoutMilliseconds: 200)
        }
        throw Failure(description: "\(target): no reply to \(method) within 10 s")
    }

    /// The control connection to `url`'s server: TCP, with TLS over it for rtsps.
    static func connect(_ url: RTSPURL, trust: TLSTrust) throws -> any StreamConnection {
        do {
            let tcp = try TCPConnection(host: url.host, port: url.port, timeoutMilliseconds: 5000)
            guard url.scheme == "rtsps" else { return tcp }
            return try TLSConnection(over: tcp, host: url.host, trust: trust, timeoutMilliseconds: 5000)
        } catch let untrusted as UntrustedCertificate {
            throw Failure(description: "\(url): \(untrusted); if it is the server's own, pin it with --tls-fingerprint "
                          + TLSTrust.said(fingerprint: untrusted.fingerprint))
        } catch {
            throw Failure(description: "\(url): \(error)")
        }
    }

    static func carryingCredentials(from: RTSPURL, to: RTSPURL) -> RTSPURL {
        var to = to
        if to.user == nil && to.host == from.host { (to.user, to.password) = (from.user, from.password) }
        return to
    }
}
