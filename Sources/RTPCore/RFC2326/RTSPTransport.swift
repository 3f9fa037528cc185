/// The Transport header (RFC 2326 §12.39): a transport spec and its parameters, in any order.
///
///     RTP/AVP;unicast;client_port=5000-5001;server_port=6970-6971;ssrc=1A2B3C4D;mode="PLAY"
///     RTP/AVP/TCP;unicast;interleaved=0-1
///     RTP/AVP;multicast;destination=232.0.0.1;port=5000-5001;ttl=16
public struct RTSPTransport: Equatable, Sendable {
    /// "RTP/AVP", "RTP/AVP/UDP" or "RTP/AVP/TCP" (SAVP and AVPF alike).
    public var spec: String
    public var multicast = false
    public var destination: String?
    public var source: String?
    public var clientPorts: ClosedRange<UInt16>?
    public var serverPorts: ClosedRange<UInt16>?
    /// Multicast: the group's ports.
    public var ports: ClosedRange<UInt16>?
    public var interleaved: ClosedRange<UInt8>?
    public var ssrc: UInt32?
    public var ttl: Int?

    public init(spec: String) { self.spec = spec }

    public var isTCP: Bool { spec.uppercased().hasSuffix("/TCP") }

    /// A multicast reply's RTP and RTCP ports: the range's two, or its one and the next; nil when
    /// none is given, or one alone leaves no port for RTCP (65535).
    public var multicastPorts: (rtp: UInt16, rtcp: UInt16)? {
        guard let ports = ports ?? clientPorts else { return nil }
        if ports.count > 1 { return (ports.lowerBound, ports.upperBound) }
        return ports.lowerBound < UInt16.max ? (ports.lowerBound, ports.lowerBound + 1) : nil
    }

    /// A parameter whose value cannot be used: a port outside 1…65535, a channel outside 0…255.
    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public var parameter: String
        public var expected: String
        public var description: String { "Transport parameter '\(parameter)': expected \(expected)" }
    }

    /// The first transport of a header (servers answer with one; a client may offer several); nil
    /// when it is not RTP. Empty parameters are skipped; unknown ones ignored.
    public init?(parsing header: String) throws(Invalid) {
        guard let first = header.split(separator: ",").first else { return nil }
        let parts = first.split(separator: ";").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        guard let spec = parts.first, spec.uppercased().hasPrefix("RTP/") else { return nil }
        self.spec = String(spec)
        for part in parts.dropFirst() {
            let name = part.prefix { $0 != "=" }.lowercased()
            // Cameras pad values with spaces ("ssrc= d6d6627") and quote some.
            let value = String(part.drop { $0 != "=" }.dropFirst().trimmingWhitespace()).trimmingCharacters("\"")
            func portRange() throws(Invalid) -> ClosedRange<UInt16> {
                guard let range = RTSPTransport.range(value, within: 1...65535) else { throw Invalid(parameter: String(part), expected: "a port or ports from 1 to 65535") }
                return UInt16(range.lowerBound)...UInt16(range.upperBound)
            }
            switch name {
            case "multicast": multicast = true
            case "unicast": multicast = false
            case "destination": destination = value.isEmpty ? nil : value
            case "source": source = value.isEmpty ? nil : value
            case "client_port": clientPorts = try portRange()
            case "server_port": serverPorts = try portRange()
            case "port": ports = try portRange()
            case "interleaved":
                guard let range = RTSPTransport.range(value, within: 0...255) else { throw Invalid(parameter: String(part), expected: "a channel or channels from 0 to 255") }
                interleaved = UInt8(range.lowerBound)...UInt8(range.upperBound)
            case "ttl":
                guard let t = Int(value), (0...255).contains(t) else { throw Invalid(parameter: String(part), expected: "a TTL from 0 to 255") }
                ttl = t
            // Hexadecimal, eight digits or fewer (some cameras send fewer, or a leading 0x); junk is
            // left out, as SETUP's SSRC is only a hint.
            case "ssrc": ssrc = UInt32(value.lowercased().hasPrefix("0x") ? String(value.dropFirst(2)) : value, radix: 16)
            default: break
            }
        }
    }

    /// "a-b", or "a" or "a-" (then a single value), each within `bounds`, a ≤ b.
    static func range(_ text: String, within bounds: ClosedRange<Int>) -> ClosedRange<Int>? {
        let ends = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingWhitespace() }
        guard let low = Int(ends[0]), bounds.contains(low) else { return nil }
        guard ends.count > 1, !ends[1].isEmpty else { return low...low }
        guard let high = Int(ends[1]), bounds.contains(high), low <= high else { return nil }
        return low...high
    }

    /// As a request's header: what the client asks for.
    public var header: String {
        var parts = [spec, multicast ? "multicast" : "unicast"]
        if let destination { parts.append("destination=\(destination)") }
        if let clientPorts { parts.append("client_port=\(clientPorts.lowerBound)-\(clientPorts.upperBound)") }
        if let ports { parts.append("port=\(ports.lowerBound)-\(ports.upperBound)") }
        if let interleaved { parts.append("interleaved=\(interleaved.lowerBound)-\(interleaved.upperBound)") }
        return parts.joined(separator: ";")
    }
}

/// The Session header (RFC 2326 §12.37): the id, and the timeout in seconds (60 when not given).
public struct RTSPSessionHeader: Equatable, Sendable {
    public var id: String
    public var timeoutSeconds: Int

    public init?(parsing header: String) {
        let parts = header.split(separator: ";").map { $0.trimmingWhitespace() }
        guard let id = parts.first, !id.isEmpty else { return nil }
        self.id = String(id)
        timeoutSeconds = 60
        for part in parts.dropFirst() where part.lowercased().hasPrefix("timeout=") {
            if let t = Int(part.dropFirst("timeout=".count).trimmingWhitespace()), t > 0 { timeoutSeconds = t }
        }
    }
}

extension String {
    func trimmingCharacters(_ c: Character) -> String {
        var s = Substring(self)
        while s.first == c { s.removeFirst() }
        while s.last == c { s.removeLast() }
        return String(s)
    }
}
