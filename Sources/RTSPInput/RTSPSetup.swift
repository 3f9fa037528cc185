import RTPCore
import SystemIO

/// Setting an RTSP session up: DESCRIBE, a SETUP for each media line taken, and the sockets and
/// channels its media comes on.
extension RTSPPull {
    /// OPTIONS and DESCRIBE, following redirects (at most 5, never from rtsps to rtsp): DESCRIBE's
    /// reply, `url` set to where it came from.
    func describe(_ requested: RTSPURL) throws -> RTSPMessage {
        var url = requested
        var redirects = 0
        while true {
            connection = try RTSPPull.connect(url, trust: settings.trust)
            var reply = try exchange("OPTIONS", url)
            if case .message = reply {
                reply = try exchange("DESCRIBE", url, headers: [("Accept", "application/sdp")])
            }
            switch reply {
            case .redirect(let to):
                redirects += 1
                guard redirects <= 5 else { throw Failure(description: "\(requested): more than 5 redirects") }
                guard !(url.scheme == "rtsps" && to.scheme == "rtsp") else {
                    throw Failure(description: "\(url): redirected from rtsps to rtsp (\(to)); not followed")
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
    func sessionDescription(_ described: RTSPMessage) throws -> SessionDescription {
        let sdp: SessionDescription
        do {
            sdp = try SessionDescription(parsing: String(decoding: described.body, as: UTF8.self))
        } catch {
            throw Failure(description: "\(url): DESCRIBE gave no usable SDP: \(error)")
        }
        notes += sdp.warnings
        return sdp
    }

    /// The media lines to set up, or why there is none.
    func mediaToSetUp(_ sdp: SessionDescription) throws -> [Int] {
        let taken = sdp.mediaToSetUp(takingAudio: settings.takesAudio)
        guard taken.isEmpty else { return taken }
        let lines = sdp.media.map { "m=\($0.media) \($0.formats.sorted { $0.key < $1.key }.map(\.value.encodingName).joined(separator: "/"))" }
        throw Failure(description: "\(url): the session has no \(VideoCodec.listed()) video or audio rtprecv takes (\(lines.joined(separator: ", ")))")
    }

    /// SETUP of media line `index` of `sdp` (the `number`th set up), whose port becomes where its
    /// packets arrive. UDP refused at the first (461) becomes TCP in the same session, as FFmpeg
    /// does; a fresh session over TCP only if that fails too.
    func setUp(_ sdp: inout SessionDescription, line index: Int, number n: Int, base: RTSPURL) throws {
        let line = sdp.media[index]
        let control = line.control.map { base.resolving($0) } ?? base
        if line.control?.lowercased().hasPrefix("rtsp://") == true { note("absolute a=control") }
        var (asked, pair) = try RTSPPull.transportToAsk(for: line, index: n, transport: transport, settings: settings)
        let reply: RTSPMessage
        do {
            reply = try request("SETUP", control, headers: [("Transport", asked.header)], fallbackOn461: transport == .udp)
        } catch let refused as Fallback where n == 0 && settings.transport == .auto {
            transport = .tcp
            (asked, pair) = try RTSPPull.transportToAsk(for: line, index: n, transport: transport, settings: settings)
            do {
                reply = try request("SETUP", control, headers: [("Transport", asked.header)])
            } catch {
                throw Fallback(reason: "\(refused.reason), and SETUP over TCP in the same session failed (\(error))")
            }
            note("TCP after UDP in the same session: \(refused.reason)")
        }
        let header = reply.header("Transport") ?? ""
        let given = try RTSPPull.transportGiven(header, control: control)
        if transport == .multicast { pair = try RTSPPull.joinMulticast(given, header: header, control: control, settings: settings) }
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
    static func transportGiven(_ header: String, control: RTSPURL) throws -> RTSPTransport {
        do {
            guard let parsed = try RTSPTransport(parsing: header) else {
                throw Failure(description: "\(control): SETUP's reply has no RTP Transport header ('\(header)')")
            }
            return parsed
        } catch let invalid as RTSPTransport.Invalid {
            throw Failure(description: "\(control): SETUP's reply: \(invalid)")
        }
    }

    /// The sockets of the multicast group and ports a SETUP's reply names.
    static func joinMulticast(_ given: RTSPTransport, header: String, control: RTSPURL, settings: Settings) throws -> [UDPReceiver] {
        guard given.multicast, let group = given.destination, let ports = given.ports ?? given.clientPorts else {
            throw Failure(description: "\(control): the server answered a multicast SETUP with '\(header)', not a group and ports")
        }
        guard let pairOfPorts = given.multicastPorts else {
            throw Failure(description: "\(control): SETUP's reply: Transport port \(ports.lowerBound) leaves no port for RTCP")
        }
        return try RTSPPull.bindPair(settings: settings, group: group, ports: pairOfPorts)
    }

    /// TCP: media line `index` comes on interleaved `channels`, given a stand-in port of its own so
    /// that the session tells its media lines apart as by port.
    func place(_ sdp: inout SessionDescription, line index: Int, number n: Int, channels: ClosedRange<UInt8>,
                       asked: ClosedRange<UInt8>?) {
        if channels != asked { note("server chose interleaved channels \(channels)") }
        let port = UInt16(40000 + 2 * n)
        channelPorts[Int(channels.lowerBound)] = port
        channelPorts[Int(channels.upperBound)] = port + 1
        sdp.media[index].port = port
        if sdp.media[index].media == "video" && videoRTCPChannel == nil { videoRTCPChannel = channels.upperBound }
        rtcpDestination = rtcpDestination ?? connection.peer
        setUp.append("\(sdp.media[index].media) over TCP channels \(channels.lowerBound)-\(channels.upperBound)")
    }

    /// UDP (or multicast): media line `index` comes to the pair of `sockets`.
    func place(_ sdp: inout SessionDescription, line index: Int, sockets pair: [UDPReceiver], serverPorts: ClosedRange<UInt16>?) {
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
    func awaitUDP() throws {
        guard let first = sockets.first else { return }
        var poll = SocketPoll([first.descriptor])
        var arrived = false
        let deadline = Terminal.monotonicNanoseconds() + 2_000_000_000
        while !arrived && Terminal.monotonicNanoseconds() < deadline && settings.stopReason() == nil {
            try poll.wait(milliseconds: 50) { _ in arrived = true }
        }
        if !arrived && settings.stopReason() == nil {
            try? teardown()
            throw Fallback(reason: "no RTP over UDP within 2 s of PLAY")
        }
    }

    /// The Transport header a SETUP of `line` (the `index`th set up) asks for, and for UDP the
    /// pair of sockets it names.
    static func transportToAsk(for line: MediaDescription, index: Int, transport: Transport,
                                       settings: Settings) throws -> (RTSPTransport, [UDPReceiver]) {
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
            let pair = try RTSPPull.bindPair(settings: settings)
            asked.clientPorts = pair[0].localEndpoint.port...pair[1].localEndpoint.port
            return (asked, pair)
        }
    }

    /// A pair of UDP sockets on an even port and the next, for RTP and RTCP (RFC 3550 §11).
    /// `group`: a multicast group and its `ports`, which the server chose, joined; else a free pair.
    static func bindPair(settings: Settings, group: String? = nil, ports fixed: (rtp: UInt16, rtcp: UInt16)? = nil) throws -> [UDPReceiver] {
        var generator = SystemRandomNumberGenerator()
        var lastError: Error?
        for _ in 0..<(fixed == nil ? 32 : 1) {
            let port = UInt16(50000 + 2 * Int(generator.next() % 5000))
            do {
                var pair: [UDPReceiver] = []
                for p in fixed.map({ [$0.rtp, $0.rtcp] }) ?? [port, port + 1] {
                    var o = UDPReceiver.Options(bindAddress: group ?? settings.bind, port: p, interface: settings.interface,
                                                receiveBufferBytes: settings.receiveBufferBytes)
                    o.maxDatagramBytes = settings.maxDatagramBytes
                    pair.append(try UDPReceiver(o))
                }
                return pair
            } catch {
                lastError = error
            }
        }
        throw Failure(description: (group.map { "cannot join \($0) on ports \(fixed!.rtp) and \(fixed!.rtcp): " } ?? "no free pair of UDP ports for RTP and RTCP: ")
                       + (lastError.map { "\($0)" } ?? ""))
    }
}
