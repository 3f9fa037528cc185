import RTPCore
import SystemIO

/// The UDP sockets a live run listens on, from the options and the SDP.
enum LiveSockets {
    /// A socket to open: its port and address, and what arrives there.
    struct Listen {
        var port: UInt16
        var bindAddress: String?
        var role: String
        /// RTCP sockets are extras: a port that cannot be bound is said, not fatal.
        var required: Bool
    }

    /// The sockets of the run: the video port (from --port, the SDP, else 5004); with an SDP, each
    /// audio line's port and every line's RTCP port unless it says rtcp-mux; without one, --audio-port
    /// and, with it, the RTCP ports next to both.
    static func plan(_ sdp: SessionDescription?, options: Options) -> [LiveSockets.Listen] {
        func group(_ line: MediaDescription?) -> String? {
            options.bind ?? line?.connectionAddress.flatMap { SocketAddress.parse($0)?.isMulticast == true ? $0 : nil }
        }
        let audioLines = options.noAudio ? [] : (sdp?.media ?? []).filter { line in
            line.media == "audio" && line.port != 0 && line.payloadTypes.contains { line.formats[$0].map(AudioFormats.isSupported) ?? false }
        }
        // A range: every port of it, each a video port (RTCP to port + 1 lands in the range, or is not heard).
        if let range = options.portRange {
            return range.map { Listen(port: $0, bindAddress: options.bind, role: "video RTP", required: true) }
        }
        let video = sdp?.video
        let mainPort = options.port ?? video.flatMap { $0.port == 0 ? nil : $0.port }
            ?? (video == nil ? audioLines.first?.port : nil) ?? 5004
        var plan = [Listen(port: mainPort, bindAddress: group(video ?? audioLines.first),
                           role: video == nil && !audioLines.isEmpty ? "audio RTP" : "video RTP", required: true)]
        func add(_ port: UInt16, _ line: MediaDescription?, _ role: String, required: Bool) {
            guard port != 0, !plan.contains(where: { $0.port == port }) else { return }
            plan.append(Listen(port: port, bindAddress: group(line), role: role, required: required))
        }
        if sdp != nil {
            // Port 0 (any free port) has no port + 1: RTCP is then left to rtcp-mux.
            if let video, !video.rtcpMux, mainPort != 0 {
                add(options.port != nil || video.port == 0 ? mainPort &+ 1 : video.expectedRTCPPort, video, "video RTCP", required: false)
            }
            for line in audioLines {
                add(line.port, line, "audio RTP", required: true)
                if !line.rtcpMux { add(line.expectedRTCPPort, line, "audio RTCP", required: false) }
            }
        } else if let audioPort = options.audioPort {
            add(audioPort, nil, "audio RTP", required: true)
            if mainPort != 0 { add(mainPort &+ 1, nil, "video RTCP", required: false) }
            add(audioPort &+ 1, nil, "audio RTCP", required: false)
        }
        return plan
    }

    static func open(_ listen: Listen, source: String?, flag: String, options: Options) throws -> UDPReceiver {
        if let bindAddress = listen.bindAddress, SocketAddress.parse(bindAddress)?.needsInterface == true, options.interface == nil,
           SocketAddress.zone(bindAddress) == nil {
            throw RunError(description: "\(bindAddress) is link-local: name its interface with --iface NAME "
                           + "or as \(bindAddress)%NAME")
        }
        if let source, let parsed = SocketAddress.parse(source), let bindAddress = listen.bindAddress,
           let group = SocketAddress.parse(bindAddress), group.isMulticast, group.isIPv4 != parsed.isIPv4 {
            throw RunError(description: "\(flag) '\(source)' is IPv\(parsed.isIPv4 ? 4 : 6) but the multicast "
                           + "group \(bindAddress) is IPv\(group.isIPv4 ? 4 : 6)")
        }
        var socketOptions = UDPReceiver.Options(bindAddress: listen.bindAddress, port: listen.port, interface: options.interface,
                                                receiveBufferBytes: options.receiveBufferBytes)
        socketOptions.source = source
        socketOptions.maxDatagramBytes = options.maxPacketBytes + 4096
        do {
            return try UDPReceiver(socketOptions)
        } catch let error as SystemError {
            throw RunError(description: error.description)
        }
    }
}
