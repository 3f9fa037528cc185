import RTPCore
import SystemIO

/// `rtprecv rtsp://…`: runs `RTSPClient` over the control connection. OPTIONS, DESCRIBE and a
/// SETUP for each media line rtprecv takes, then PLAY, before the live loop starts; keep-alives
/// and interleaved media while it runs; TEARDOWN as it ends. With `--rtsp-transport auto` it asks
/// for UDP first and moves to TCP: in the same session when the server refuses UDP (461) at the
/// first SETUP, in a fresh one when that fails too, when the server answers with another
/// transport, or when nothing comes within 2 s of PLAY.
final class RTSPPull {
    enum Transport: String {
        case udp, tcp, multicast
        var words: String {
            switch self {
            case .udp: "UDP"
            case .tcp: "TCP (interleaved)"
            case .multicast: "UDP multicast"
            }
        }
    }

    /// What the server's session description says, with each taken media line's port set to where
    /// its packets arrive: the client port (UDP), or a stand-in per channel (TCP).
    private(set) var sdp: SessionDescription!
    /// What the session runs over; UDP refused at the first SETUP becomes TCP in the same session.
    private(set) var transport: Transport
    /// UDP: the RTP and RTCP sockets, bound before SETUP named them, and what each is for.
    private(set) var sockets: [UDPReceiver] = []
    private(set) var roles: [String] = []
    /// Where receiver reports go: the server's RTCP port for the video (UDP), the server (TCP).
    private(set) var rtcpDestination: Endpoint?
    /// The request URL (no credentials) and what was worked around, said once each in the summary.
    private(set) var url: RTSPURL
    private(set) var notes: [String] = []
    private(set) var keepAlives = 0
    private(set) var interleavedFrames = 0
    private(set) var serverRequests = 0
    /// Why the server's session is over, when a keep-alive was answered 454: its media has stopped.
    private(set) var sessionEnded: String?
    /// Why the control connection went away (a read or a write failed); nothing more is sent on it.
    private(set) var connectionLost: String?
    /// What SETUP set up, line by line: "video over UDP ports 50000-50001".
    private var setUp: [String] = []
    /// The URL and what was set up, for messages about what does (not) come.
    var mediaSetUp: String { "from \(url) (" + setUp.joined(separator: ", ") + ")" }

    private var connection: TCPConnection!
    private var client: RTSPClient
    private var reader = RTSPStreamReader()
    private var readBuffer = [UInt8](repeating: 0, count: 1 << 16)
    /// TCP: each interleaved channel's stand-in port; RTCP's is the RTP one + 1.
    private var channelPorts: [UInt8: UInt16] = [:]
    private var videoRTCPChannel: UInt8?
    private var nextKeepAlive: Int64 = 0
    private let verbose: Bool
    /// A config's source taken out while its requests wait for replies.
    private let stopRequest: StopRequest?
    private var tornDown = false
    /// Interleaved frames that came while a reply was awaited, up to 8 MiB.
    private var earlyFrames: [(channel: UInt8, bytes: [UInt8])] = []
    private var earlyBytes = 0
    /// The SSRC SETUP's reply named for the video, which cameras get wrong.
    private var setupVideoSSRC: UInt32?
    private var closed = false

    /// Why a UDP attempt gave way to TCP.
    private struct Fallback: Error { var reason: String }

    /// Connects and sets up the session by the first transport that works.
    static func open(options: Options) throws -> RTSPPull {
        var url = try RTSPURL(parsing: options.rtsp!)
        url.user = options.user ?? url.user
        url.password = options.password ?? url.password ?? Terminal.environment("RTSP_PASSWORD")
        let transports: [Transport] = switch options.rtspTransport {
        case .auto: [.udp, .tcp]
        case .udp: [.udp]
        case .tcp: [.tcp]
        case .multicast: [.multicast]
        }
        var reasons: [String] = []
        for (n, transport) in transports.enumerated() {
            do {
                let pull = try RTSPPull(url: url, transport: transport, options: options)
                if !reasons.isEmpty { pull.notes.insert("TCP after UDP failed: " + reasons.joined(separator: "; "), at: 0) }
                return pull
            } catch let fallback as Fallback where n + 1 < transports.count {
                reasons.append(fallback.reason)
                if !options.quiet { Terminal.printError("rtsp: \(fallback.reason); trying TCP\n") }
            } catch let fallback as Fallback {
                throw RunError(description: "\(url): \(fallback.reason)")
            }
        }
        throw RunError(description: "\(url): no transport worked")
    }

    /// OPTIONS, DESCRIBE, a SETUP for each media line taken, and PLAY.
    private init(url requested: RTSPURL, transport initial: Transport, options: Options) throws {
        transport = initial
        verbose = options.verbose
        stopRequest = options.supervised?.stop
        url = requested
        client = RTSPClient(authorization: RTSPAuthorization(user: requested.user, password: requested.password,
                                                             seed: UInt64(bitPattern: Terminal.wallclockNanoseconds())))
        let described = try describe(requested)
        // The base for a=control: Content-Base, else Content-Location, else the request URL.
        let base = (described.header("Content-Base") ?? described.header("Content-Location")).map { url.resolving($0) } ?? url
        if let header = described.header("Content-Base"), !header.contains("://") { note("Content-Base without a scheme") }
        var sdp = try sessionDescription(described)
        for (n, index) in try mediaToSetUp(sdp, options: options).enumerated() {
            try setUp(&sdp, line: index, number: n, base: base, options: options)
        }
        self.sdp = sdp
        let reply = try request("PLAY", base, headers: [("Range", "npt=0.000-")])
        if reply.header("RTP-Info") == nil { note("no RTP-Info in PLAY's reply") }
        nextKeepAlive = Terminal.monotonicNanoseconds() + Int64(client.keepAliveIntervalSeconds) * 1_000_000_000
        if transport == .udp && options.rtspTransport == .auto { try awaitUDP(options) }
    }

    /// OPTIONS and DESCRIBE, following redirects (at most 5, never from rtsps to rtsp): DESCRIBE's
    /// reply, `url` set to where it came from.
    private func describe(_ requested: RTSPURL) throws -> RTSPMessage {
        var url = requested
        var redirects = 0
        while true {
            connection = try RTSPPull.connect(url)
            var reply = try exchange("OPTIONS", url)
            if case .message = reply {
                reply = try exchange("DESCRIBE", url, headers: [("Accept", "application/sdp")])
            }
            switch reply {
            case .redirect(let to):
                redirects += 1
                guard redirects <= 5 else { throw RunError(description: "\(requested): more than 5 redirects") }
                guard !(url.scheme == "rtsps" && to.scheme == "rtsp") else {
                    throw RunError(description: "\(url): redirected from rtsps to rtsp (\(to)); not followed")
                }
                url = RTSPPull.carryingCredentials(from: url, to: to)
            case .message(let message):
                self.url = url
                if redirects > 0 { note("redirected to \(url)") }
                return message
            }
        }
    }

    /// DESCRIBE's SDP; what it gets wrong (a junk sprop item, say) is said once, as a quirk.
    private func sessionDescription(_ described: RTSPMessage) throws -> SessionDescription {
        let sdp: SessionDescription
        do {
            sdp = try SessionDescription(parsing: String(decoding: described.body, as: UTF8.self))
        } catch {
            throw RunError(description: "\(url): DESCRIBE gave no usable SDP: \(error)")
        }
        notes += sdp.warnings
        return sdp
    }

    /// The media lines to set up, or why there is none.
    private func mediaToSetUp(_ sdp: SessionDescription, options: Options) throws -> [Int] {
        let taken = RTSPPull.mediaToTake(sdp, options: options)
        guard taken.isEmpty else { return taken }
        let lines = sdp.media.map { "m=\($0.media) \($0.formats.sorted { $0.key < $1.key }.map(\.value.encodingName).joined(separator: "/"))" }
        throw RunError(description: "\(url): the session has no \(VideoCodec.listed()) video or audio rtprecv takes (\(lines.joined(separator: ", ")))")
    }

    /// SETUP of media line `index` of `sdp` (the `number`th set up), whose port becomes where its
    /// packets arrive. UDP refused at the first (461) becomes TCP in the same session, as FFmpeg
    /// does; a fresh session over TCP only if that fails too.
    private func setUp(_ sdp: inout SessionDescription, line index: Int, number n: Int, base: RTSPURL, options: Options) throws {
        let line = sdp.media[index]
        let control = line.control.map { base.resolving($0) } ?? base
        if line.control?.lowercased().hasPrefix("rtsp://") == true { note("absolute a=control") }
        var (asked, pair) = try RTSPPull.transportToAsk(for: line, index: n, transport: transport, options: options)
        let reply: RTSPMessage
        do {
            reply = try request("SETUP", control, headers: [("Transport", asked.header)], fallbackOn461: transport == .udp)
        } catch let refused as Fallback where n == 0 && options.rtspTransport == .auto {
            transport = .tcp
            (asked, pair) = try RTSPPull.transportToAsk(for: line, index: n, transport: transport, options: options)
            do {
                reply = try request("SETUP", control, headers: [("Transport", asked.header)])
            } catch {
                throw Fallback(reason: "\(refused.reason), and SETUP over TCP in the same session failed (\(error))")
            }
            note("TCP after UDP in the same session: \(refused.reason)")
        }
        let header = reply.header("Transport") ?? ""
        let given = try RTSPPull.transportGiven(header, control: control)
        if transport == .multicast { pair = try RTSPPull.joinMulticast(given, header: header, control: control, options: options) }
        if transport == .udp && (given.isTCP || given.multicast) {
            try? teardown()
            throw Fallback(reason: "the server answered a UDP SETUP with \(given.spec)\(given.multicast ? " multicast" : "")")
        }
        if transport == .tcp {
            place(&sdp, line: index, number: n, channels: given.interleaved ?? asked.interleaved!, asked: asked.interleaved)
        } else {
            place(&sdp, line: index, sockets: pair, serverPorts: given.serverPorts)
        }
        if let ssrc = given.ssrc, line.media == "video" { setupVideoSSRC = ssrc }
    }

    /// The Transport `header` of SETUP's reply.
    private static func transportGiven(_ header: String, control: RTSPURL) throws -> RTSPTransport {
        do {
            guard let parsed = try RTSPTransport(parsing: header) else {
                throw RunError(description: "\(control): SETUP's reply has no RTP Transport header ('\(header)')")
            }
            return parsed
        } catch let invalid as RTSPTransport.Invalid {
            throw RunError(description: "\(control): SETUP's reply: \(invalid)")
        }
    }

    /// The sockets of the multicast group and ports a SETUP's reply names.
    private static func joinMulticast(_ given: RTSPTransport, header: String, control: RTSPURL, options: Options) throws -> [UDPReceiver] {
        guard given.multicast, let group = given.destination, let ports = given.ports ?? given.clientPorts else {
            throw RunError(description: "\(control): the server answered a multicast SETUP with '\(header)', not a group and ports")
        }
        guard let pairOfPorts = given.multicastPorts else {
            throw RunError(description: "\(control): SETUP's reply: Transport port \(ports.lowerBound) leaves no port for RTCP")
        }
        return try RTSPPull.bindPair(options: options, group: group, ports: pairOfPorts)
    }

    /// TCP: media line `index` comes on interleaved `channels`, given a stand-in port of its own so
    /// that the session tells its media lines apart as by port.
    private func place(_ sdp: inout SessionDescription, line index: Int, number n: Int, channels: ClosedRange<UInt8>,
                       asked: ClosedRange<UInt8>?) {
        if channels != asked { note("server chose interleaved channels \(channels)") }
        let port = UInt16(40000 + 2 * n)
        channelPorts[channels.lowerBound] = port
        channelPorts[channels.upperBound] = port + 1
        sdp.media[index].port = port
        if sdp.media[index].media == "video" && videoRTCPChannel == nil { videoRTCPChannel = channels.upperBound }
        rtcpDestination = rtcpDestination ?? connection.peer
        setUp.append("\(sdp.media[index].media) over TCP channels \(channels.lowerBound)-\(channels.upperBound)")
    }

    /// UDP (or multicast): media line `index` comes to the pair of `sockets`.
    private func place(_ sdp: inout SessionDescription, line index: Int, sockets pair: [UDPReceiver], serverPorts: ClosedRange<UInt16>?) {
        let media = sdp.media[index].media
        sockets += pair
        roles += media == "video" ? ["video RTP", "video RTCP"] : ["audio RTP", "audio RTCP"]
        sdp.media[index].port = pair[0].localEndpoint.port
        sdp.media[index].rtcpPort = pair[1].localEndpoint.port
        sdp.media[index].rtcpMux = false
        setUp.append("\(media) over UDP\(transport == .multicast ? " multicast" : "") "
                     + "ports \(pair[0].localEndpoint.port) and \(pair[1].localEndpoint.port)")
        if media == "video", rtcpDestination == nil, let server = serverPorts {
            rtcpDestination = Endpoint(address: connection.peer.address, port: server.upperBound)
        }
    }

    /// UDP that never comes (a firewall, a NAT): a fresh session over TCP.
    private func awaitUDP(_ options: Options) throws {
        guard let first = sockets.first else { return }
        var poll = SocketPoll([first.descriptor])
        var arrived = false
        let deadline = Terminal.monotonicNanoseconds() + 2_000_000_000
        while !arrived && Terminal.monotonicNanoseconds() < deadline && options.stopReason == nil {
            try poll.wait(milliseconds: 50) { _ in arrived = true }
        }
        if !arrived && options.stopReason == nil {
            try? teardown()
            throw Fallback(reason: "no RTP over UDP within 2 s of PLAY")
        }
    }

    /// The Transport header a SETUP of `line` (the `index`th set up) asks for, and for UDP the
    /// pair of sockets it names.
    private static func transportToAsk(for line: MediaDescription, index: Int, transport: Transport,
                                       options: Options) throws -> (RTSPTransport, [UDPReceiver]) {
        var asked = RTSPTransport(spec: line.proto.uppercased().contains("AVPF") ? "RTP/AVPF" : "RTP/AVP")
        switch transport {
        case .tcp:
            asked.spec += "/TCP"
            asked.interleaved = UInt8(2 * index)...UInt8(2 * index + 1)
            return (asked, [])
        case .multicast:
            // The server names the group and its ports; the sockets are bound once it has.
            asked.multicast = true
            return (asked, [])
        case .udp:
            let pair = try RTSPPull.bindPair(options: options)
            asked.clientPorts = pair[0].localEndpoint.port...pair[1].localEndpoint.port
            return (asked, pair)
        }
    }

    // MARK: During the run

    var descriptor: Int32 { connection.descriptor }

    /// The media that came with PLAY's reply or before it, into `run`, once.
    func deliverEarly(run: some Recording, now: Int64) throws {
        for frame in earlyFrames {
            try frame.bytes.withUnsafeBytes { try receive(channel: frame.channel, payload: $0, run: run, now: now) }
        }
        earlyFrames = []
        earlyBytes = 0
    }

    /// An interleaved frame into `run`, as a datagram to its channel's stand-in port.
    private func receive(channel: UInt8, payload: UnsafeRawBufferPointer, run: some Recording, now: Int64) throws {
        guard let port = channelPorts[channel] else { return }
        interleavedFrames += 1
        let source = connection.peer
        // The stand-in ports of RTCP channels are odd.
        try run.receive(datagram: payload, source: source, destination: Endpoint(address: source.address, port: port), arrival: now,
                        rtcpOnly: port & 1 == 1)
    }

    /// Reads what the connection has into the reader, waiting up to `timeoutMilliseconds`; the count.
    private func readSome(timeoutMilliseconds: Int32) throws -> Int {
        let n = try readBuffer.withUnsafeMutableBytes { try connection.read(into: $0, timeoutMilliseconds: timeoutMilliseconds) }
        if n > 0 { readBuffer.withUnsafeBytes { reader.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) } }
        return n
    }

    /// Reads what the control connection has: interleaved RTP and RTCP into `run`, replies to
    /// keep-alives, and requests from the server (counted, not answered).
    func readable(run: some Recording, now: Int64) throws {
        // What has come, up to 1 MiB a turn, so the UDP sockets beside it wait no longer.
        var total = 0
        while total < 1 << 20 {
            let n = try readSome(timeoutMilliseconds: 0)
            guard n > 0 else { break }
            total += n
            try deliver(run: run, now: now)
        }
    }

    private func deliver(run: some Recording, now: Int64) throws {
        try reader.drain { item in
            switch item {
            case .interleaved(let channel, let payload):
                try receive(channel: channel, payload: payload, run: run, now: now)
            case .message(let message):
                if message.method != nil {
                    serverRequests += 1
                } else if case .failure(let error) = client.receive(message) {
                    // The session expired (a server restarted, or missed keep-alives): its media has stopped.
                    if error.statusCode == 454 { sessionEnded = "the session ended: keep-alive \(error)" }
                    if verbose { Terminal.printError("rtsp: keep-alive: \(error)\n") }
                }
            }
        }
    }

    /// The server closed the control connection: nothing more is sent on it.
    func connectionClosed(_ why: String) {
        connectionLost = connectionLost ?? why
        closed = true
        // Over TCP the media went with it; over UDP it goes on, and keep-alives go on new connections.
        if transport == .tcp { tornDown = true }
    }

    /// Sends a keep-alive when one is due (on a new connection, when the server closed the last).
    func tick(now: Int64) throws {
        guard now >= nextKeepAlive, !tornDown else { return }
        nextKeepAlive = now + Int64(client.keepAliveIntervalSeconds) * 1_000_000_000
        keepAlives += 1
        if closed {
            do { try reopen() } catch { return }
        }
        do { try connection.write(client.request(client.keepAliveMethod, url)) } catch { connectionClosed("\(error)") }
    }

    /// A new control connection, for a server that closes each after its reply (said once).
    private func reopen() throws {
        connection = try RTSPPull.connect(url)
        reader = RTSPStreamReader()
        closed = false
        note("the server closes the connection after each reply")
    }

    /// RTCP over the connection (TCP): in the video's RTCP channel.
    func sendInterleaved(_ packet: [UInt8]) throws {
        guard let channel = videoRTCPChannel, !closed else { return }
        do {
            try connection.write([UInt8(ascii: "$"), channel, UInt8(packet.count >> 8), UInt8(packet.count & 0xFF)] + packet)
        } catch let error as ConnectionError {
            // A report racing a server's restart: the run learns of the loss as a read would tell it.
            connectionClosed(error.description)
        }
    }

    /// TEARDOWN, waiting a moment for the reply; never twice.
    func teardown() throws {
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
    func noteStreams(videoSSRC: UInt32?) {
        if let said = setupVideoSSRC, let seen = videoSSRC, said != seen { note("SETUP named SSRC \(hex(said)), the stream is \(hex(seen))") }
        if reader.skippedBytes > 0 { note("\(reader.skippedBytes) bytes of garbage between interleaved frames skipped") }
    }

    /// A quirk that fired, said once.
    private func note(_ text: String) {
        if !notes.contains(text) { notes.append(text) }
    }

    var summary: String {
        "rtsp       \(url) over \(transport.words); session timeout \(client.session?.timeoutSeconds ?? 60) s, "
            + "\(keepAlives) keep-alives (\(client.keepAliveMethod))"
            + (notes.isEmpty ? "" : "; worked around: " + notes.joined(separator: ", "))
    }

    var json: [(String, JSON)] {
        [("url", .string(url.description)), ("transport", .string(transport.rawValue)),
         ("session_timeout_s", .int(client.session?.timeoutSeconds ?? 60)), ("keep_alives", .int(keepAlives)),
         ("keep_alive_method", .string(client.keepAliveMethod)), ("interleaved_frames", .int(interleavedFrames)),
         ("server_requests", .int(serverRequests)), ("skipped_bytes", .int(reader.skippedBytes)),
         ("worked_around", .array(notes.map { .string($0) }))]
    }

    // MARK: Steps

    /// A successful reply, or a redirect where one may be followed.
    private enum Reply {
        case message(RTSPMessage)
        case redirect(RTSPURL)
    }

    /// One request and its successful reply; anything else is thrown.
    private func request(_ method: String, _ target: RTSPURL, headers: [(name: String, value: String)] = [],
                         fallbackOn461: Bool = false) throws -> RTSPMessage {
        switch try exchange(method, target, headers: headers, fallbackOn461: fallbackOn461) {
        case .message(let m): return m
        case .redirect(let to): throw RunError(description: "\(target): \(method) redirected to \(to), which rtprecv follows only before SETUP")
        }
    }

    /// One request and its response (after any 401 answered with credentials), before the live loop.
    private func exchange(_ method: String, _ target: RTSPURL, headers: [(name: String, value: String)] = [],
                          fallbackOn461: Bool = false) throws -> Reply {
        var bytes = client.request(method, target, headers: headers)
        var reopened = false
        for _ in 0..<5 {
            if verbose { Terminal.printError("rtsp: > \(method) \(target)\n") }
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
            if verbose { Terminal.printError("rtsp: < \(reply.statusCode) \(reply.reason)\n") }
            switch client.receiveReply(reply) {
            case .retry(let again):
                bytes = again
            case .redirect(let to):
                return .redirect(to)
            case .failure(let error) where error.statusCode == 461 && fallbackOn461:
                throw Fallback(reason: "the server refused UDP (461 Unsupported Transport)")
            case .failure(let error):
                throw RunError(description: "\(target): \(error)")
            case .success(let message):
                return .message(message)
            }
        }
        throw RunError(description: "\(target): \(method) still unauthorized after answering the server's challenges")
    }

    private func awaitResponse(method: String, target: RTSPURL) throws -> RTSPMessage {
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
            if StopSignal.received != 0 { throw RunError(description: "stopped by \(StopSignal.name) during \(method)") }
            if let why = stopRequest?.reason { throw RunError(description: "stopped during \(method): \(why)") }
            _ = try readSome(timeoutMilliseconds: 200)
        }
        throw RunError(description: "\(target): no reply to \(method) within 10 s")
    }

    private static func connect(_ url: RTSPURL) throws -> TCPConnection {
        do {
            return try TCPConnection(host: url.host, port: url.port, timeoutMilliseconds: 5000)
        } catch {
            throw RunError(description: "\(url): \(error)")
        }
    }

    private static func carryingCredentials(from: RTSPURL, to: RTSPURL) -> RTSPURL {
        var to = to
        if to.user == nil && to.host == from.host { (to.user, to.password) = (from.user, from.password) }
        return to
    }

    /// The media lines to SET UP: the first video line of a registered codec, and the first audio line of a
    /// codec rtprecv takes (unless --no-audio).
    private static func mediaToTake(_ sdp: SessionDescription, options: Options) -> [Int] {
        var taken: [Int] = []
        if let video = sdp.media.firstIndex(where: { m in
            m.media == "video" && m.payloadTypes.contains { m.formats[$0].flatMap { VideoCodec(encodingName: $0.encodingName) } != nil }
        }) {
            taken.append(video)
        }
        if !options.noAudio, let audio = sdp.media.firstIndex(where: { m in
            m.media == "audio" && m.payloadTypes.contains { m.formats[$0].map(AudioFormats.isSupported) ?? false }
        }) {
            taken.append(audio)
        }
        return taken
    }

    /// A pair of UDP sockets on an even port and the next, for RTP and RTCP (RFC 3550 §11).
    /// `group`: a multicast group and its `ports`, which the server chose, joined; else a free pair.
    private static func bindPair(options: Options, group: String? = nil, ports fixed: (rtp: UInt16, rtcp: UInt16)? = nil) throws -> [UDPReceiver] {
        var generator = SystemRandomNumberGenerator()
        var lastError: Error?
        for _ in 0..<(fixed == nil ? 32 : 1) {
            let port = UInt16(50000 + 2 * Int(generator.next() % 5000))
            do {
                var pair: [UDPReceiver] = []
                for p in fixed.map({ [$0.rtp, $0.rtcp] }) ?? [port, port + 1] {
                    var o = UDPReceiver.Options(bindAddress: group ?? options.bind, port: p, interface: options.interface,
                                                receiveBufferBytes: options.receiveBufferBytes)
                    o.maxDatagramBytes = options.maxPacketBytes + 4096
                    pair.append(try UDPReceiver(o))
                }
                return pair
            } catch {
                lastError = error
            }
        }
        throw RunError(description: (group.map { "cannot join \($0) on ports \(fixed!.rtp) and \(fixed!.rtcp): " } ?? "no free pair of UDP ports for RTP and RTCP: ")
                       + (lastError.map { "\($0)" } ?? ""))
    }
}
