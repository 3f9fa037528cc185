import RTPCore
import SystemIO
import TLS

/// A session while it plays: interleaved media, keep-alives, RTCP over the connection, TEARDOWN.
extension RTSPPull {
    public var descriptor: Int32 { connection.descriptor }

    /// The media that came with PLAY's reply or before it, delivered once.
    public func deliverEarly(_ deliver: Deliver) throws {
        for frame in earlyFrames {
            try frame.bytes.withUnsafeBytes { try receive(channel: frame.channel, payload: $0, deliver) }
        }
        earlyFrames = []
        earlyBytes = 0
    }

    /// An interleaved frame delivered as a datagram to its channel's stand-in port.
    func receive(channel: UInt8, payload: UnsafeRawBufferPointer, _ deliver: Deliver) throws {
        let port = channelPorts[Int(channel)]
        guard port != 0 else { return }
        interleavedFrames += 1
        let source = connection.peer
        // The stand-in ports of RTCP channels are odd.
        try deliver(payload, source, Endpoint(address: source.address, port: port), port & 1 == 1)
    }

    /// Reads what the connection has into the reader, waiting up to `timeoutMilliseconds`; the count.
    func readSome(timeoutMilliseconds: Int32) throws -> Int {
        let n = try readBuffer.withUnsafeMutableBytes { try connection.read(into: $0, timeoutMilliseconds: timeoutMilliseconds) }
        if n > 0 { readBuffer.withUnsafeBytes { reader.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) } }
        return n
    }

    /// Reads what the control connection has: interleaved RTP and RTCP delivered, replies to
    /// keep-alives, and requests from the server (counted, not answered).
    public func readable(_ deliver: Deliver) throws {
        // What has come, up to 1 MiB a turn, so the UDP sockets beside it wait no longer.
        var total = 0
        while total < 1 << 20 {
            let n = try readSome(timeoutMilliseconds: 0)
            guard n > 0 else { break }
            total += n
            try drain(deliver)
            // A plain socket's short read took all it held, and the next poll says when more comes:
            // a read that would find nothing is a system call a wake-up saved.
            if n < readBuffer.count && connection.shortReadTakesAll { break }
        }
    }

    func drain(_ deliver: Deliver) throws {
        try reader.drain { item in
            switch item {
            case .interleaved(let channel, let payload):
                try receive(channel: channel, payload: payload, deliver)
            case .message(let message):
                if message.method != nil {
                    serverRequests += 1
                } else if case .failure(let error) = client.receive(message) {
                    // The session expired (a server restarted, or missed keep-alives): its media has stopped.
                    if error.statusCode == 454 { sessionEnded = "the session ended: keep-alive \(error)" }
                    if settings.verbose { settings.say("rtsp: keep-alive: \(error)\n") }
                }
            }
        }
    }

    /// The server closed the control connection: nothing more is sent on it.
    public func connectionClosed(_ why: String) {
        connectionLost = connectionLost ?? why
        closed = true
        // Over TCP the media went with it; over UDP it goes on, and keep-alives go on new connections.
        if transport == .tcp { tornDown = true }
    }

    /// Sends a keep-alive when one is due (on a new connection, when the server closed the last).
    public func tick(now: Int64) throws {
        guard now >= nextKeepAlive, !tornDown else { return }
        nextKeepAlive = now + Int64(client.keepAliveIntervalSeconds) * 1_000_000_000
        keepAlives += 1
        if closed {
            do { try reopen() } catch { return }
        }
        do { try connection.write(client.request(client.keepAliveMethod, url)) } catch { connectionClosed("\(error)") }
    }

    /// A new control connection, for a server that closes each after its reply (said once).
    func reopen() throws {
        connection = try RTSPPull.connect(url, trust: settings.trust)
        reader = RTSPStreamReader()
        closed = false
        note("the server closes the connection after each reply")
    }

    /// RTCP over the connection (TCP): in the video's RTCP channel.
    public func sendInterleaved(_ packet: [UInt8]) throws {
        guard let channel = videoRTCPChannel, !closed else { return }
        do {
            try connection.write([UInt8(ascii: "$"), channel, UInt8(packet.count >> 8), UInt8(packet.count & 0xFF)] + packet)
        } catch let error as ConnectionError {
            // A report racing a server's restart: the run learns of the loss as a read would tell it.
            connectionClosed(error.description)
        }
    }

    /// TEARDOWN, waiting a moment for the reply; never twice.
    public func teardown() throws {
        guard !tornDown else { return }
        tornDown = true
        guard client.session != nil else { return }
        if closed { try reopen() }
        try connection.write(client.request("TEARDOWN", url))
        let deadline = Terminal.monotonicNanoseconds() + 1_000_000_000
        var answered = false
        while !answered && Terminal.monotonicNanoseconds() < deadline {
            guard try readSome(timeoutMilliseconds: 100) > 0 else { continue }
            try reader.drain { item in
                if case .message(let m) = item, m.method == nil, client.method(answeredBy: m) == "TEARDOWN" { answered = true }
            }
        }
    }

    /// What the run showed beside what SETUP said: the video's SSRC, garbage between frames.
    public func noteStreams(videoSSRC: UInt32?) {
        if let said = setupVideoSSRC, let seen = videoSSRC, said != seen { note("SETUP named SSRC \(hex(said)), the stream is \(hex(seen))") }
        if reader.skippedBytes > 0 { note("\(reader.skippedBytes) bytes of garbage between interleaved frames skipped") }
    }

    /// A quirk that fired, said once.
    func note(_ text: String) {
        if !notes.contains(text) { notes.append(text) }
    }

    /// RTSPS: the TLS version, and how the certificate was accepted.
    public var tlsSaid: String? {
        (connection as? TLSConnection).map { "\($0.version), certificate \($0.pinned ? "pinned" : "verified")" }
    }

    public var summary: String {
        "rtsp       \(url) over \(transport.words)\(tlsSaid.map { " in \($0)" } ?? ""); session timeout \(client.session?.timeoutSeconds ?? 60) s, "
            + "\(keepAlives) keep-alives (\(client.keepAliveMethod))"
            + (notes.isEmpty ? "" : "; worked around: " + notes.joined(separator: ", "))
    }
}
