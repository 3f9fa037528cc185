/// An RTSP message (RFC 2326 §6, §7): a response's status, or a request the server sends (its
/// method), headers looked up without regard to case, and the body Content-Length says.
public struct RTSPMessage: Sendable {
    /// "RTSP/1.0 200 OK": the status code and reason; 0 for a request.
    public var statusCode = 0
    public var reason = ""
    /// A request (from the server: ANNOUNCE, GET_PARAMETER, OPTIONS, …; in a capture, the
    /// client's too): its method and URI.
    public var method: String?
    public var uri: String?
    public var headers: [(name: String, value: String)] = []
    public var body: [UInt8] = []

    public init() {}

    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    public func headers(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    public var cseq: Int? { header("CSeq").flatMap { Int(Substring($0).trimmingWhitespace()) } }
}

/// Splits what comes on an RTSP connection (RFC 2326 §10.12) into messages and interleaved binary
/// frames: `$`, a channel byte, a 16-bit length, then that many bytes of RTP or RTCP. Bytes that
/// are neither (a server's garbage, a frame cut by a lost segment) are skipped up to the next `$`
/// or "RTSP/" and counted.
public struct RTSPStreamReader: Sendable {
    public enum Item {
        case message(RTSPMessage)
        /// A view into the reader's buffer, valid until the next call.
        case interleaved(channel: UInt8, payload: UnsafeRawBufferPointer)
    }

    public enum Invalid: Error, CustomStringConvertible, Sendable {
        case messageTooLarge(Int)
        public var description: String {
            switch self { case .messageTooLarge(let n): "an RTSP message longer than \(n) bytes" }
        }
    }

    /// The bound of one message's headers and body.
    public let maxMessageBytes: Int
    public private(set) var skippedBytes = 0
    private var buffer: [UInt8] = []
    private var start = 0
    /// After garbage or a gap: a `$` counts only before what looks like RTP or RTCP (version 2).
    private var resyncing = false

    public init(maxMessageBytes: Int = 1 << 20) {
        self.maxMessageBytes = maxMessageBytes
        buffer.reserveCapacity(1 << 17)
    }

    /// The buffer that items view into, which `append` may move or reuse.
    public func withBuffer<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try buffer.withUnsafeBytes(body)
    }

    /// Bytes were lost before what comes next (a gap in a captured TCP stream): what was waiting
    /// for them is dropped, and the next frame must look like one.
    public mutating func gap() {
        skippedBytes += buffer.count - start
        buffer.removeAll(keepingCapacity: true)
        start = 0
        resyncing = true
    }

    /// Bytes received, appended.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Hands on every whole item that has arrived, in order.
    public mutating func drain(_ body: (Item) throws -> Void) throws {
        while start < buffer.count {
            let first = buffer[start]
            if first == UInt8(ascii: "$") {
                guard buffer.count - start >= (resyncing ? 5 : 4) else { return }
                if resyncing && buffer[start + 4] >> 6 != 2 {
                    resync()
                    continue
                }
                let length = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
                guard buffer.count - start >= 4 + length else { return }
                let channel = buffer[start + 1]
                let from = start + 4
                start += 4 + length
                resyncing = false
                try buffer.withUnsafeBytes { all in
                    try body(.interleaved(channel: channel, payload: UnsafeRawBufferPointer(rebasing: all[from..<from + length])))
                }
            } else if startsMessage(at: start) {
                guard let message = try parseMessage() else { return }
                try body(.message(message))
            } else {
                resync()
            }
        }
    }

    /// Whether a message (a status line, or a request line's method) may start at `i`: letters up to a space or "/".
    private func startsMessage(at i: Int) -> Bool {
        var j = i
        while j < buffer.count, j - i < 16, (buffer[j] >= 65 && buffer[j] <= 90) || buffer[j] == UInt8(ascii: "_") { j += 1 }
        guard j > i else { return false }
        return j == buffer.count || buffer[j] == UInt8(ascii: " ") || buffer[j] == UInt8(ascii: "/")
    }

    private mutating func resync() {
        resyncing = true
        var i = start + 1
        while i < buffer.count, buffer[i] != UInt8(ascii: "$"), !(buffer[i] == UInt8(ascii: "R") && startsMessage(at: i)) { i += 1 }
        skippedBytes += i - start
        start = i
    }

    /// A whole message from `start`, or nil while its end has not come.
    private mutating func parseMessage() throws -> RTSPMessage? {
        // The header ends at an empty line (CRLF CRLF, or LF LF from sloppy servers).
        var end: Int?, i = start
        while i < buffer.count {
            if buffer[i] == 10 {
                if i + 1 < buffer.count, buffer[i + 1] == 10 { end = i + 2; break }
                if i + 2 < buffer.count, buffer[i + 1] == 13, buffer[i + 2] == 10 { end = i + 3; break }
            }
            i += 1
        }
        guard let headerEnd = end else {
            if buffer.count - start > maxMessageBytes { throw Invalid.messageTooLarge(maxMessageBytes) }
            return nil
        }
        let text = String(decoding: buffer[start..<headerEnd], as: UTF8.self)
        var lines = text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" })
        var message = RTSPMessage()
        let first = lines.isEmpty ? "" : lines.removeFirst()
        let parts = first.split(separator: " ", maxSplits: 2)
        // SIP (RFC 3261) shares the syntax: a capture's SIP over TCP reads the same way.
        if first.hasPrefix("RTSP/") || first.hasPrefix("SIP/") {
            message.statusCode = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            message.reason = parts.count > 2 ? String(parts[2]) : ""
        } else {
            message.method = parts.first.map(String.init)
            message.uri = parts.count > 1 ? String(parts[1]) : nil
        }
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            message.headers.append((String(line[..<colon].trimmingWhitespace()),
                                    String(line[line.index(after: colon)...].trimmingWhitespace())))
        }
        let length = message.header("Content-Length").flatMap { Int(Substring($0).trimmingWhitespace()) } ?? 0
        guard length >= 0, length <= maxMessageBytes else { throw Invalid.messageTooLarge(maxMessageBytes) }
        guard buffer.count - headerEnd >= length else { return nil }
        message.body = Array(buffer[headerEnd..<headerEnd + length])
        start = headerEnd + length
        return message
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && zip(utf8, other.utf8).allSatisfy { a, b in (a | 0x20) == (b | 0x20) }
    }
}
