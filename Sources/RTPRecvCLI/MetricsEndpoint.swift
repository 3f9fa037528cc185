import RTPCore
import SystemIO

/// `--metrics ADDR:PORT`: a small HTTP/1.1 responder on the live event loop. GET /metrics gives
/// the Prometheus exposition, GET /healthz 200 while every port is receiving (else 503 naming the
/// silent ones). One request per connection, read up to `maxRequestBytes`, at most `maxClients`
/// at once, each given up after 5 s; anything else is answered 400, 404 or 405.
final class MetricsEndpoint {
    let listener: TCPListener
    let maxClients = 8
    let maxRequestBytes = 8192
    private var clients: [(connection: TCPConnection, request: [UInt8], since: Int64)] = []
    private(set) var requestsServed = 0
    /// Changes whenever `descriptors` does, for the loop to remake its poll set.
    private(set) var generation = 0

    init(_ target: (address: String, port: UInt16)) throws {
        do {
            listener = try TCPListener(address: target.address, port: target.port)
        } catch {
            throw RunError(description: "--metrics \(target.address):\(target.port): \(error)")
        }
    }

    var descriptors: [Int32] { [listener.descriptor] + clients.map(\.connection.descriptor) }

    /// `page(path)`: the status line's code and reason, the content type and the body for a GET.
    func ready(_ descriptor: Int32, now: Int64, page: (String) -> (Int, String, String, String)) {
        if descriptor == listener.descriptor {
            while let connection = listener.accept() {
                guard clients.count < maxClients else { continue }  // closed as it goes out of scope
                clients.append((connection, [], now))
                generation += 1
            }
            return
        }
        guard let i = clients.firstIndex(where: { $0.connection.descriptor == descriptor }) else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = (try? buffer.withUnsafeMutableBytes { try clients[i].connection.read(into: $0, timeoutMilliseconds: 0) }) ?? -1
        guard n > 0 else {
            if n < 0 { drop(i) }
            return
        }
        clients[i].request += buffer[0..<n]
        let request = clients[i].request
        guard request.count <= maxRequestBytes else {
            return respond(i, 431, "Request Header Fields Too Large", "text/plain", "request too large\n")
        }
        guard let end = HTTPRequestHead.end(of: request) else { return }
        switch HTTPRequestHead(request[..<end]) {
        case .some(let head) where head.method == "GET" || head.method == "HEAD":
            let (code, reason, type, body) = page(head.path)
            respond(i, code, reason, type, head.method == "HEAD" ? "" : body)
        case .some:
            respond(i, 405, "Method Not Allowed", "text/plain", "GET only\n", extra: "Allow: GET, HEAD\r\n")
        case .none:
            respond(i, 400, "Bad Request", "text/plain", "not an HTTP request\n")
        }
    }

    /// Gives up on clients that have not sent a whole request within 5 s.
    func tick(now: Int64) {
        while let i = clients.firstIndex(where: { now - $0.since > 5_000_000_000 }) { drop(i) }
    }

    private func respond(_ i: Int, _ code: Int, _ reason: String, _ type: String, _ body: String, extra: String = "") {
        let bytes = Array(body.utf8)
        let head = "HTTP/1.1 \(code) \(reason)\r\nContent-Type: \(type)\r\nContent-Length: \(bytes.count)\r\n\(extra)Connection: close\r\n\r\n"
        try? clients[i].connection.write(Array(head.utf8) + bytes, timeoutMilliseconds: 1000)
        requestsServed += 1
        drop(i)
    }

    private func drop(_ i: Int) {
        clients.remove(at: i)
        generation += 1
    }
}

/// An HTTP/1.1 request's first line (RFC 9112 §3): method and path, the query left off.
struct HTTPRequestHead {
    var method: String
    var path: String

    init?(_ bytes: ArraySlice<UInt8>) {
        let line = String(decoding: bytes.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return nil }
        method = String(parts[0])
        path = String(parts[1].prefix { $0 != "?" })
    }

    /// Where the header ends (after its empty line), once it has.
    static func end(of bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i + 4
        }
        return nil
    }
}
