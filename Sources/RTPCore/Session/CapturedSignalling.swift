/// The session descriptions a capture carries in its signalling, for a replay given no `--sdp`:
/// an RTSP DESCRIBE reply (RFC 2326, over TCP on any port), whose media lines SETUP's replies then
/// map to ports; or a SIP INVITE, 200 OK or ACK body (RFC 3261, over UDP or TCP), whose lines carry
/// their own ports. Every description found is merged into one: the first gives the session, the
/// others add their media lines, so both directions of a call keep their ports and codecs.
///
/// A described RTSP stream is the server's, not the one client's that was captured setting it up:
/// the server port a SETUP reply names (RTP, and RTCP beside it) maps to the client port of its
/// media line, so that what the same server sends from there to another client port (a second
/// client, a session set up before the capture began) is that media line's too.
public struct CapturedSignalling: Sendable {
    /// The merged description, once one was found.
    public private(set) var sessionDescription: SessionDescription?
    /// Where each came from, in words ("RTSP DESCRIBE reply from 10.0.0.5:554").
    public private(set) var origins: [String] = []
    /// An RTSP PLAY was seen: the session is set up, nothing more will come before the media.
    public private(set) var sawPlay = false
    public private(set) var sawSIPAnswer = false
    /// The server's RTP and RTCP endpoints of each set-up media line, and the line's client port.
    public private(set) var serverEndpoints: [Endpoint: UInt16] = [:]
    private var base: RTSPURL?
    /// SETUP requests by CSeq, and the media line their URL names.
    private var setups: [Int: Int] = [:]

    public init() {}

    /// An RTSP (or SIP over TCP) message from a captured TCP stream.
    public mutating func message(_ m: RTSPMessage, from source: Endpoint, to destination: Endpoint) {
        if let method = m.method?.uppercased() {
            if method == "PLAY" { sawPlay = true }
            if method == "SETUP", let uri = m.uri, let cseq = m.cseq, let index = mediaIndex(forControl: uri) { setups[cseq] = index }
            if ["INVITE", "ACK"].contains(method) { add(body: m.body, what: "SIP \(method)", from: source) }
            return
        }
        if let cseq = m.cseq, let index = setups.removeValue(forKey: cseq),
           let header = m.header("Transport"), let transport = try? RTSPTransport(parsing: header), var description = sessionDescription {
            // The client's port (unicast UDP: where the media goes, whatever port the DESCRIBE's
            // line names), or the interleaved channel's (TCP, where no port selects).
            if let ports = transport.clientPorts ?? (description.media[index].port == 0 ? transport.ports : nil) {
                description.media[index].port = ports.lowerBound
                description.media[index].rtcpPort = ports.upperBound
                if index == description.media.firstIndex(where: { $0.media == "video" }) { description.port = ports.lowerBound }
            }
            if let server = transport.serverPorts, let client = transport.clientPorts, serverEndpoints.count < 64 {
                serverEndpoints[Endpoint(address: source.address, port: server.lowerBound)] = client.lowerBound
                serverEndpoints[Endpoint(address: source.address, port: server.upperBound)] = client.upperBound
            }
            sessionDescription = description
            return
        }
        let isSIP = m.header("Via") != nil
        // Some servers leave out the Content-Type: a body that parses as an SDP is one.
        if m.statusCode == 200, !m.body.isEmpty {
            if isSIP { sawSIPAnswer = true }
            if !isSIP, let url = (m.header("Content-Base") ?? m.header("Content-Location")).flatMap({ try? RTSPURL(parsing: $0) }) { base = url }
            add(body: m.body, what: isSIP ? "SIP 200 OK" : "RTSP DESCRIBE reply", from: source)
        }
    }

    /// A UDP datagram that may be SIP: a request line or "SIP/2.0", headers, and an SDP body.
    public mutating func datagram(_ bytes: UnsafeRawBufferPointer, from source: Endpoint) {
        guard bytes.count > 16, let first = bytes.first, first == UInt8(ascii: "I") || first == UInt8(ascii: "S") || first == UInt8(ascii: "A")
        else { return }
        let head = String(decoding: bytes.prefix(12), as: UTF8.self)
        let what: String
        if head.hasPrefix("INVITE ") { what = "SIP INVITE" } else if head.hasPrefix("ACK ") { what = "SIP ACK" } else if head.hasPrefix("SIP/2.0 200") {
            what = "SIP 200 OK"
        } else {
            return
        }
        // The body follows the first empty line; a datagram holds one message (RFC 3261 §18.3).
        var i = 0
        while i + 3 < bytes.count {
            if bytes[i] == 13, bytes[i + 1] == 10, bytes[i + 2] == 13, bytes[i + 3] == 10 {
                if what == "SIP 200 OK" { sawSIPAnswer = true }
                add(body: Array(bytes[(i + 4)...]), what: what, from: source)
                return
            }
            i += 1
        }
    }

    private mutating func add(body: [UInt8], what: String, from source: Endpoint) {
        let text = String(decoding: body, as: UTF8.self)
        guard text.hasPrefix("v=0"), let parsed = try? SessionDescription(parsing: text), !parsed.media.isEmpty else { return }
        origins.append("\(what) from \(source)")
        guard var merged = sessionDescription else {
            sessionDescription = parsed
            return
        }
        // The same line again (a re-INVITE, the ACK repeating the offer) adds nothing.
        for line in parsed.media where !merged.media.contains(where: { $0.port == line.port && $0.media == line.media && line.port != 0 }) {
            merged.media.append(line)
        }
        sessionDescription = merged
    }

    /// The media line a SETUP's URL names: its a=control resolved against the DESCRIBE's base.
    private func mediaIndex(forControl uri: String) -> Int? {
        guard let description = sessionDescription, let url = try? RTSPURL(parsing: uri) else { return nil }
        let base = self.base ?? url
        return description.media.firstIndex { line in
            guard let control = line.control else { return false }
            let resolved = base.resolving(control)
            return resolved.path == url.path || url.path.hasSuffix("/" + control)
        }
    }
}
