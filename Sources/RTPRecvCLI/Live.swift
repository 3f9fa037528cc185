import RTPCore
import SystemIO

/// Receives from a UDP port until a signal, `--duration`, `--frames` or `--exit-on-timeout` ends it.
struct Live {
    let options: Options

    /// A socket to open: its port and address, and what arrives there.
    private struct Listen {
        var port: UInt16
        var bindAddress: String?
        var role: String
        /// RTCP sockets are extras: a port that cannot be bound is said, not fatal.
        var required: Bool
    }

    func run() throws -> Int32 {
        // From an RTSP server, its session is set up first: the SDP, and the sockets SETUP named.
        var rtsp = try options.rtsp.map { _ in try RTSPPull.open(options: options) }
        defer { try? rtsp?.teardown() }
        let sdp = try rtsp?.sdp ?? Run.loadSDP(options)
        let security = try Security.decryptor(options: options, sdp: sdp, inCapture: false)
        // The one run that follows the stream selected; with --all-streams one a stream; with
        // several SDPs one a session.
        let sessions = try options.recordsSessions ? SessionFanOut(options: options, sessions: SessionFanOut.load(options),
                                                                   borrowsPayloads: false) : nil
        let single = options.allStreams || sessions != nil ? nil : try Run(options: options, sdp: sdp, security: security)
        let fanOut = options.allStreams ? StreamFanOut(options: options, sdp: sdp, borrowsPayloads: false) : nil
        let run: Recording = single ?? fanOut.map { $0 as Recording } ?? sessions!
        // One sender, from --source or the SDP's source-filter: filtered here, and joined
        // source-specific when the address is a multicast group.
        let sourceText = options.sourceFilter ?? sdp?.sourceFilter
        let flag = options.sourceFilter != nil ? "--source" : "the SDP's source-filter"
        var sourceFilter: Endpoint.Address?
        if let sourceText {
            guard let parsed = SocketAddress.parse(sourceText) else {
                throw RunError(description: "\(flag) '\(sourceText)' is not a numeric IPv4 or IPv6 address")
            }
            sourceFilter = SocketAddress.address(parsed)
        }
        var sockets: [UDPReceiver] = rtsp?.sockets ?? []
        var roles: [String] = rtsp?.roles ?? []
        for listen in options.rtsp != nil ? [] : sessions?.sessions.flatMap({ plan($0.sdp) }) ?? plan(sdp) {
            do {
                sockets.append(try open(listen, source: sourceText, flag: flag))
                roles.append(listen.role)
            } catch let error as RunError where !listen.required {
                if !options.quiet { Terminal.printError("warning: \(error.description); no RTCP from there\n") }
            }
        }
        if !options.quiet, let range = options.portRange, sockets.count > 1 {
            let bound = sockets[0].boundDescription
            Terminal.printError("listening on udp \(bound) to \(range.upperBound) (\(sockets.count) ports)\n")
        } else if !options.quiet && !sockets.isEmpty {
            var lines: [String] = []
            for (socket, role) in zip(sockets, roles) {
                var line = "listening on udp \(socket.boundDescription)" + (sockets.count > 1 ? " (\(role))" : "")
                if let group = socket.joinedGroup {
                    line += " (joined multicast group \(group)"
                        + (socket.joinedSource.map { ", source-specific for \($0)" } ?? "") + ")"
                }
                if socket.grantedReceiveBufferBytes < options.receiveBufferBytes {
                    line += "\nwarning: the kernel granted a receive buffer of \(socket.grantedReceiveBufferBytes) bytes, "
                        + "not the \(options.receiveBufferBytes) asked for (raise net.core.rmem_max, or run as root)"
                }
                lines.append(line)
            }
            Terminal.printError(lines.joined(separator: "\n") + "\n")
        }

        if let rtsp, !options.quiet { Terminal.printError("rtsp: playing \(rtsp.url) over \(rtsp.transport.words)\n") }
        // RTCP goes out of a stream's RTCP socket, or its RTP socket with rtcp-mux; over RTSP's TCP
        // connection in its RTCP channel. A run a stream or a session speaks for its own.
        func talkBack(_ run: Run, from socket: UDPReceiver?) throws -> RTCPFeedback? {
            guard !options.noRTCP else { return nil }
            let send: ([UInt8], Endpoint) throws -> Void
            if let rtsp, rtsp.transport == .tcp {
                send = { packet, _ in try rtsp.sendInterleaved(packet) }
            } else {
                guard let socket = socket ?? sockets.first else { return nil }
                send = { packet, to in try packet.withUnsafeBytes { try socket.send($0, to: to) } }
            }
            return try RTCPFeedback(options: run.options, sdp: run.sdp, receiver: run.receiver, send: send,
                                    destination: rtsp?.rtcpDestination, start: Terminal.monotonicNanoseconds())
        }
        func socket(at port: UInt16) -> UDPReceiver? { sockets.first { $0.localEndpoint.port == port } }
        func singleTalkBack() throws -> RTCPFeedback? {
            try single.flatMap { try talkBack($0, from: zip(sockets, roles).first { $0.1 == "video RTCP" }?.0) }
        }
        // A stream's RTCP port is the one after its RTP port, where that is listened on.
        try fanOut?.giveFeedback { key, run in try talkBack(run, from: socket(at: key.port &+ 1) ?? socket(at: key.port)) }
        try sessions?.giveFeedback { _, run in
            guard let line = run.sdp?.video ?? run.sdp?.media.first else { return nil }
            return try talkBack(run, from: socket(at: line.expectedRTCPPort) ?? socket(at: line.port))
        }
        single?.feedback = try singleTalkBack()
        try StopSignal.install()
        try HangupSignal.install()
        var hangupsSeen = HangupSignal.count
        let progress = Progress(enabled: !options.quiet && Terminal.isTerminal(2))
        let status = LiveStatus()
        let start = Terminal.monotonicNanoseconds()
        var lastPacket = start
        var silenceReported = false
        var filtered = 0
        var stopReason = "stopped"
        let duration = options.durationNanoseconds
        let timeout = options.timeoutNanoseconds
        /// The RTSP connection went away: over TCP the media with it (the run ends, exit 1); over
        /// UDP the media goes on, and the connection is no longer polled.
        var connectionLost: String?
        /// Why the RTSP session's media has stopped: its TCP connection lost, or the session ended.
        var rtspEnded: String? { connectionLost.flatMap { rtsp?.transport == .tcp ? $0 : nil } ?? rtsp?.sessionEnded }
        var pollsConnection = rtsp != nil
        let metrics = try options.metrics.map { try MetricsEndpoint($0) }
        if let metrics, !options.quiet { Terminal.printError("metrics on http://\(metrics.listener.localEndpoint)/metrics\n") }
        // When each socket last had a datagram, for /healthz; nil before its first.
        var lastReceived = [Int64?](repeating: nil, count: sockets.count)
        // Every descriptor the loop waits on: the UDP sockets, the RTSP connection, the metrics
        // endpoint's; remade when that set changes.
        var polled: [Int32] = []
        var poll = SocketPoll([])
        var metricsGeneration = -1
        func makePoll() {
            polled = sockets.map(\.descriptor) + (pollsConnection ? [rtsp!.descriptor] : []) + (metrics?.descriptors ?? [])
            poll = SocketPoll(polled)
            metricsGeneration = metrics?.generation ?? 0
        }
        makePoll()
        // --reconnect: a lost RTSP connection, or a stream silent for --timeout (10 s by default),
        // is set up again, backing off from 1 s to 30 s; the outputs go on.
        var reconnection = RTSPReconnection(silence: timeout ?? 10_000_000_000)
        var received = 0
        /// What the run listens on (or the RTSP session set up), for messages about what does not come.
        func listening() -> String {
            rtsp?.mediaSetUp ?? "on udp " + zip(sockets, roles).prefix(4).map { "\($0.boundDescription) (\($1))" }.joined(separator: ", ")
                + (sockets.count > 4 ? " and \(sockets.count - 4) more ports" : "")
        }
        // Nothing at all within 5 s of the start (a wrong port, a firewall, a server that sends nothing
        // after PLAY) is said once, whatever --timeout says.
        var mediaSeen = false, mediaWarned = false

        /// One batch from `socket`, into the receiver.
        func drain(_ socket: UDPReceiver) throws {
            let count = try socket.receive()
            let now = Terminal.monotonicNanoseconds()
            let local = socket.localEndpoint
            for i in 0..<count {
                let (bytes, source) = socket.datagram(i)
                if let sourceFilter, source?.address != sourceFilter {
                    filtered += 1
                    continue
                }
                try run.receive(datagram: bytes, source: source, destination: local, arrival: now)
            }
            received += count
        }

        /// What the metrics endpoint serves at `path`: status, reason, content type and body.
        func page(_ path: String, now: Int64) -> (Int, String, String, String) {
            switch path {
            case "/metrics":
                var e = PrometheusExposition()
                run.forEachStream { e.stream($0, lastPacketAge: Double(now - $0.lastArrival) / 1e9) }
                e.sample("rtprecv_datagrams_total", type: "counter", help: "datagrams received, RTP and RTCP",
                         value: Double(run.datagrams))
                e.sample("rtprecv_kernel_drops_total", type: "counter", help: "datagrams the kernel dropped (receive buffers full)",
                         value: Double(sockets.reduce(0) { $0 + Int($1.kernelDrops) }))
                e.sample("rtprecv_bytes_written_total", type: "counter", help: "Annex-B bytes written",
                         value: Double(run.bytesWritten))
                e.sample("rtprecv_last_packet_age_seconds", type: "gauge", help: "time since the last packet of any stream",
                         value: Double(now - lastPacket) / 1e9)
                e.sample("rtprecv_rtsp_reconnects_total", type: "counter", help: "RTSP sessions set up again (--reconnect)",
                         value: Double(reconnection.reconnects))
                return (200, "OK", "text/plain; version=0.0.4; charset=utf-8", e.text)
            case "/healthz":
                // Silent: nothing for --timeout (5 s by default) on a port of the run.
                let silence = timeout ?? 5_000_000_000
                // The RTP ports: RTCP ports may rightly hear nothing.
                let silent = sockets.indices.filter { roles[$0].hasSuffix("RTP") && (lastReceived[$0].map { now - $0 > silence } ?? true) }
                    .map { sockets[$0].boundDescription }
                    + (sockets.isEmpty && (received == 0 && run.datagrams == 0 || now - lastPacket > silence)
                        ? [rtsp.map { $0.url.description } ?? "input"] : [])
                return silent.isEmpty ? (200, "OK", "text/plain", "ok\n")
                    : (503, "Service Unavailable", "text/plain", "silent: " + silent.joined(separator: ", ") + "\n")
            default:
                return (404, "Not Found", "text/plain", "/metrics or /healthz\n")
            }
        }

        /// --reconnect: the session set up again in place of `current`, with its sockets, RTCP and
        /// poll; false when the run ends first.
        func resume(_ current: RTSPPull, after why: String) throws -> Bool {
            single?.endFeedback(now: Terminal.monotonicNanoseconds())
            try? current.teardown()
            progress.clear()
            guard let next = reconnection.reconnect(after: why, options: options, until: duration.map { start + $0 }) else { return false }
            rtsp = next
            try next.deliverEarly(run: run, now: Terminal.monotonicNanoseconds())
            (sockets, roles) = (next.sockets, next.roles)
            single?.feedback = try singleTalkBack()
            pollsConnection = true
            lastReceived = [Int64?](repeating: nil, count: sockets.count)
            makePoll()
            connectionLost = nil
            lastPacket = Terminal.monotonicNanoseconds()
            return true
        }

        try run.writing {
            if let rtsp { try rtsp.deliverEarly(run: run, now: Terminal.monotonicNanoseconds()) }
            while true {
                if StopSignal.received != 0 {
                    stopReason = "stopped by \(StopSignal.name)"
                    break
                }
                if let failure = run.failure {
                    stopReason = "stopped: \(failure)"
                    break
                }
                if !run.takesMore {
                    stopReason = "stopped after \(options.frames!) frames"
                    break
                }
                if HangupSignal.count != hangupsSeen {
                    // Log rotation: the files were moved; new ones at their paths, from a keyframe.
                    hangupsSeen = HangupSignal.count
                    try run.reopen()
                    if !options.quiet { Terminal.printError("SIGHUP: the outputs reopen (--out at the next keyframe)\n") }
                }
                if options.reconnect, let current = rtsp,
                   let why = rtspEnded ?? reconnection.silent(now: Terminal.monotonicNanoseconds(), lastPacket: lastPacket) {
                    guard try resume(current, after: why) else {
                        stopReason = StopSignal.received != 0 ? "stopped by \(StopSignal.name)" : "stopped after \(options.duration!) s"
                        break
                    }
                    continue
                }
                if let rtspEnded {
                    stopReason = "stopped: \(rtspEnded)"
                    break
                }
                var now = Terminal.monotonicNanoseconds()
                if let duration, now - start >= duration {
                    stopReason = "stopped after \(options.duration!) s"
                    break
                }
                if let timeout, now - lastPacket >= timeout, !silenceReported {
                    silenceReported = true
                    progress.clear()
                    if !options.quiet { Terminal.printError("no packets for \(options.timeout!) s\n") }
                    if options.exitOnTimeout {
                        stopReason = "stopped: no packets for \(options.timeout!) s"
                        break
                    }
                }
                received = 0
                if sockets.count == 1 && rtsp == nil && metrics == nil {
                    // One socket: block in recvmmsg itself, one system call a batch.
                    try drain(sockets[0])
                } else {
                    try poll.wait(milliseconds: 20) { i in
                        if i < sockets.count {
                            let before = received
                            try drain(sockets[i])
                            if received > before { lastReceived[i] = Terminal.monotonicNanoseconds() }
                        } else if let metrics, metrics.descriptors.contains(polled[i]) {
                            metrics.ready(polled[i], now: Terminal.monotonicNanoseconds()) { path in
                                page(path, now: Terminal.monotonicNanoseconds())
                            }
                        } else if let rtsp, connectionLost == nil {
                            let before = rtsp.interleavedFrames
                            do {
                                try rtsp.readable(run: run, now: Terminal.monotonicNanoseconds())
                            } catch let error as ConnectionError {
                                connectionLost = error.description
                                rtsp.connectionClosed(error.description)
                            }
                            received += rtsp.interleavedFrames - before
                        }
                    }
                    if connectionLost != nil && pollsConnection {
                        pollsConnection = false
                        makePoll()
                    }
                    if let metrics {
                        metrics.tick(now: Terminal.monotonicNanoseconds())
                        if metrics.generation != metricsGeneration { makePoll() }
                    }
                }
                now = Terminal.monotonicNanoseconds()
                if !mediaSeen && !mediaWarned && received == 0 && now - start >= 5_000_000_000 {
                    mediaWarned = true
                    progress.clear()
                    if !options.quiet { Terminal.printError("warning: no media in 5 s \(listening())\n") }
                }
                if received > 0 {
                    mediaSeen = true
                    lastPacket = now
                    silenceReported = false
                    reconnection.received(now: now)
                }
                try run.tick(now: now)
                try rtsp?.tick(now: now)
                if progress.due(now: now) {
                    if let single {
                        progress.show(status.line(now: now, start: start, receiver: single.receiver, rtmp: single.sink.rtmp?.statistics))
                    } else {
                        let followed = fanOut.map { "\($0.videoStreams) video streams" } ?? "\(sessions!.runs.count) sessions"
                        progress.show("\(followed), \(run.framesWritten) frames written, \((now - start) / 1_000_000_000) s")
                    }
                }
            }
        }
        progress.clear()
        run.endFeedback(now: Terminal.monotonicNanoseconds())
        try? rtsp?.teardown()
        try run.finish()
        if !options.quiet { Terminal.printError("\(stopReason)\n") }
        let drops = sockets.reduce(0) { $0 + Int($1.kernelDrops) }
        // A port range as its ends, not a thousand addresses.
        let bound = options.portRange != nil && sockets.count > 1
            ? "\(sockets[0].boundDescription) to \(sockets.last!.localEndpoint.port) (\(sockets.count) ports)"
            : sockets.map(\.boundDescription).joined(separator: ", ")
        let buffer = sockets.first?.grantedReceiveBufferBytes ?? 0
        var summary: String
        var json: [(String, JSON)]
        if let rtsp, sockets.isEmpty {
            summary = "rtsp \(rtsp.url) over TCP: \(run.datagrams) interleaved frames"
            json = [("input", .string(rtsp.url.description))]
        } else {
            summary = "udp \(bound): \(run.datagrams) datagrams"
            if filtered > 0 { summary += ", \(filtered) from other senders dropped (\(flag))" }
            summary += "; kernel dropped \(drops) (receive buffer \(buffer) bytes)"
            json = [("input", .string(rtsp.map { $0.url.description } ?? "udp \(bound)")), ("kernel_drops", .int(drops)),
                    ("receive_buffer_bytes", .int(buffer)), ("other_sender", .int(filtered))]
        }
        if let rtsp {
            if let receiver = single?.receiver {
                rtsp.noteStreams(videoSSRC: receiver.selected?.ssrc ?? receiver.previousStreams.last?.ssrc)
            }
            summary += "\n" + rtsp.summary + reconnection.summary
            json.append(("rtsp", .object(rtsp.json + reconnection.json)))
        }
        json.append(("seconds", .double(Double(Terminal.monotonicNanoseconds() - start) / 1e9)))
        try run.report(Report.Input(summary: summary, warning: nil, json: json))
        if let failure = run.failure { throw RunError(description: failure) }
        // With --reconnect, a session that ended while the run's time ran out was waiting to be set up again.
        if let rtspEnded, !options.reconnect { throw RunError(description: rtspEnded) }
        return run.exitStatus(where: "came \(listening())", quiet: options.quiet)
    }

    /// The sockets of the run: the video port (from --port, the SDP, else 5004); with an SDP, each
    /// audio line's port and every line's RTCP port unless it says rtcp-mux; without one, --audio-port
    /// and, with it, the RTCP ports next to both.
    private func plan(_ sdp: SessionDescription?) -> [Listen] {
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

    private func open(_ listen: Listen, source: String?, flag: String) throws -> UDPReceiver {
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

/// The live status line: rates since the last line, loss so far, resolution, the audio beside it,
/// elapsed time.
final class LiveStatus {
    private var lastTime: Int64 = 0
    private var lastPackets = 0
    private var lastBytes = 0
    private var lastFrames = 0
    private var lastAudioFrames = 0
    private var lastSent = 0

    func line(now: Int64, start: Int64, receiver: Receiver, rtmp: RTMPPublisher.Statistics?) -> String {
        let s = receiver.selected?.snapshot(), a = receiver.audio?.snapshot()
        let packets = s?.packets ?? 0, bytes = s?.bytes ?? 0, frames = s?.frames.written ?? 0
        let audioFrames = a?.frames.written ?? 0
        let seconds = Double(now - (lastTime == 0 ? start : lastTime)) / 1e9
        let sent = rtmp?.bytesSent ?? 0
        defer {
            (lastTime, lastPackets, lastBytes, lastFrames, lastAudioFrames) = (now, packets, bytes, frames, audioFrames)
            lastSent = sent
        }
        guard seconds > 0 else { return "" }
        let elapsed = Int((now - start) / 1_000_000_000)
        let resolution = s?.video.map { "\($0.width)x\($0.height)" } ?? "-"
        var line = "\(Int(Double(packets - lastPackets) / seconds)) pkt/s  "
            + "\(fixed(Double(bytes - lastBytes) * 8 / seconds / 1e6)) Mbit/s  "
            + "\(fixed(Double(frames - lastFrames) / seconds)) fps  loss \(fixed(lossPercent(s)))%  \(resolution)  "
        if let a, let audio = a.audio {
            line += "audio \(audio.track.codec.name) \(fixed(Double(audioFrames - lastAudioFrames) / seconds)) frames/s "
                + "loss \(fixed(lossPercent(a)))%  "
        }
        if rtmp != nil { line += "rtmp \(fixed(Double(sent - lastSent) * 8 / seconds / 1e6)) Mbit/s  " }
        return line + "\(elapsed / 60):\(elapsed % 60 < 10 ? "0" : "")\(elapsed % 60)"
    }

    private func lossPercent(_ s: StreamStatistics?) -> Double {
        guard let s, s.packets + s.lost > 0 else { return 0 }
        return Double(s.lost) * 100 / Double(s.packets + s.lost)
    }

    private func fixed(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}
