import RTPCore
import SystemIO

/// A small HTTP/1.1 responder for an event loop (`--metrics`'s): it answers GET and HEAD with what
/// the caller's page function gives for the path. One request per connection, read up to `maxRequestBytes`, at most `maxClients`
/// at once; anything else is answered 400, 404, 405 or 431. Nothing here ever blocks the loop, and
/// clients that hold a place without asking (slowloris) or without reading cannot keep a scrape
/// out: a request is read as soon as its connection is accepted, a client that has not sent its
/// whole request within `headerDeadline`, or taken its answer within `answerDeadline`, is dropped,
/// and a new connection takes the place of the oldest when all are taken. An answer goes out as
/// the socket takes it, between packets.
public final class HTTPEndpoint {
    public struct ListenError: Error, CustomStringConvertible {
        public let description: String
    }

    let listener: TCPListener
    public let maxClients = 8
    public let maxRequestBytes = 8192
    public let headerDeadline: Int64 = 2_000_000_000
    public let answerDeadline: Int64 = 5_000_000_000

    private struct Client {
        let connection: TCPConnection
        let since: Int64
        var request: [UInt8] = []
        /// The answer, once the request is whole, and how much of it has gone out.
        var answer: [UInt8]?
        var sent = 0
    }

    private var clients: [Client] = []
    public private(set) var requestsServed = 0
    /// Changes whenever `descriptors` does, for the loop to remake its poll set.
    public private(set) var generation = 0
    /// `serve`'s poll set, and the generation it was made for.
    private var ownPoll = SocketPoll([])
    private var ownPolled: [Int32] = []
    private var ownGeneration = -1

    public init(_ target: (address: String, port: UInt16)) throws(ListenError) {
        do {
            listener = try TCPListener(address: target.address, port: target.port)
        } catch {
            throw ListenError(description: "\(target.address):\(target.port): \(error)")
        }
    }

    /// Where it listens (the port the system chose, when asked for 0).
    public var localEndpoint: Endpoint { listener.localEndpoint }

    /// The listening socket and every client's, to poll.
    public var descriptors: [Int32] { [listener.descriptor] + clients.map(\.connection.descriptor) }

    /// For a loop that waits on nothing else: requests answered for up to `milliseconds`.
    public func serve(milliseconds: Int, page: (String) -> HTTPAnswer) {
        if generation != ownGeneration {
            (ownPolled, ownGeneration) = (descriptors, generation)
            ownPoll = SocketPoll(ownPolled)
        }
        try? ownPoll.wait(milliseconds: milliseconds) { i in
            ready(ownPolled[i], now: Terminal.monotonicNanoseconds(), page: page)
        }
        tick(now: Terminal.monotonicNanoseconds())
    }

    /// `page(path)`: the answer to a GET of `path`.
    public func ready(_ descriptor: Int32, now: Int64, page: (String) -> HTTPAnswer) {
        if descriptor == listener.descriptor {
            while let connection = listener.accept() {
                if clients.count >= maxClients { drop(0) }
                clients.append(Client(connection: connection, since: now))
                generation += 1
                // A scraper's request has mostly come with its connection.
                receive(clients.count - 1, page: page)
            }
            return
        }
        guard let i = clients.firstIndex(where: { $0.connection.descriptor == descriptor }) else { return }
        receive(i, page: page)
    }

    /// Reads what client `i` sent, and answers once its request is whole.
    private func receive(_ i: Int, page: (String) -> HTTPAnswer) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = (try? buffer.withUnsafeMutableBytes { try clients[i].connection.read(into: $0, timeoutMilliseconds: 0) }) ?? -1
        guard n > 0 else {
            if n < 0 { drop(i) }
            return
        }
        // Once answered, what else comes is read and left, so that it does not keep the poll awake.
        guard clients[i].answer == nil else { return }
        clients[i].request += buffer[0..<n]
        let request = clients[i].request
        guard request.count <= maxRequestBytes else {
            return respond(i, 431, "Request Header Fields Too Large", "text/plain", "request too large\n")
        }
        guard let end = HTTPRequestHead.end(of: request) else { return }
        switch HTTPRequestHead(request[..<end]) {
        case .some(let head) where head.method == "GET" || head.method == "HEAD":
            let answer = page(head.path)
            respond(i, answer.code, answer.reason, answer.type, head.method == "HEAD" ? [] : answer.body, extra: answer.extraHeaders)
        case .some:
            respond(i, 405, "Method Not Allowed", "text/plain", "GET only\n", extra: "Allow: GET, HEAD\r\n")
        case .none:
            respond(i, 400, "Bad Request", "text/plain", "not an HTTP request\n")
        }
    }

    /// Sends what answers the socket takes, and gives up on clients past their deadlines: a whole
    /// request within `headerDeadline`, the answer taken within `answerDeadline`.
    public func tick(now: Int64) {
        var i = clients.count - 1
        while i >= 0 {
            if clients[i].answer != nil { send(i) }
            if i < clients.count,
               now - clients[i].since > (clients[i].answer == nil ? headerDeadline : answerDeadline) { drop(i) }
            i -= 1
        }
    }

    private func respond(_ i: Int, _ code: Int, _ reason: String, _ type: String, _ body: String, extra: String = "") {
        respond(i, code, reason, type, Array(body.utf8), extra: extra)
    }

    private func respond(_ i: Int, _ code: Int, _ reason: String, _ type: String, _ bytes: [UInt8], extra: String) {
        let head = "HTTP/1.1 \(code) \(reason)\r\nContent-Type: \(type)\r\nContent-Length: \(bytes.count)\r\n\(extra)Connection: close\r\n\r\n"
        clients[i].answer = Array(head.utf8) + bytes
        requestsServed += 1
        send(i)
    }

    /// As much of client `i`'s answer as its socket takes now; the client is done once all has gone.
    private func send(_ i: Int) {
        guard let answer = clients[i].answer else { return }
        let sent = answer.withUnsafeBytes { try? clients[i].connection.writeSome(UnsafeRawBufferPointer(rebasing: $0[clients[i].sent...])) }
        guard let sent else { return drop(i) }
        clients[i].sent += sent
        if clients[i].sent == answer.count { drop(i) }
    }

    private func drop(_ i: Int) {
        clients.remove(at: i)
        generation += 1
    }
}

/// What a page is: the status line's code and reason, the content type, the body, and any
/// headers beside them.
public struct HTTPAnswer {
    public var code: Int
    public var reason: String
    public var type: String
    public var body: [UInt8]
    /// Whole header lines, each ending in CRLF.
    public var extraHeaders = ""

    public init(_ code: Int, _ reason: String, _ type: String, _ body: [UInt8], extraHeaders: String = "") {
        (self.code, self.reason, self.type, self.body, self.extraHeaders) = (code, reason, type, body, extraHeaders)
    }

    public init(_ code: Int, _ reason: String, _ type: String, _ text: String, extraHeaders: String = "") {
        self.init(code, reason, type, Array(text.utf8), extraHeaders: extraHeaders)
    }
}
