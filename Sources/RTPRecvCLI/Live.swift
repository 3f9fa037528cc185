import RTPCore
import SystemIO

/// Receives from a UDP port until a signal, `--duration`, `--frames` or `--exit-on-timeout` ends it.
struct Live {
    let options: Options

    func run() throws -> Int32 {
        let run = try Run(options: options)
        let receiver = run.receiver
        // The SDP names the port and, for multicast, the group; flags override it.
        let port = options.port ?? run.sdp?.port.flatMap { $0 == 0 ? nil : $0 } ?? 5004
        let groupFromSDP = run.sdp?.connectionAddress.flatMap { address in
            SocketAddress.parse(address)?.isMulticast == true ? address : nil
        }
        let bindAddress = options.bind ?? groupFromSDP
        if let bindAddress, SocketAddress.parse(bindAddress)?.needsInterface == true, options.interface == nil,
           SocketAddress.zone(bindAddress) == nil {
            throw RunError(description: "\(bindAddress) is link-local: name its interface with --iface NAME "
                           + "or as \(bindAddress)%NAME")
        }
        // One sender, from --source or the SDP's source-filter: filtered here, and joined
        // source-specific when the address is a multicast group.
        let sourceText = options.sourceFilter ?? run.sdp?.sourceFilter
        let flag = options.sourceFilter != nil ? "--source" : "the SDP's source-filter"
        var sourceFilter: Endpoint.Address?
        if let sourceText {
            guard let parsed = SocketAddress.parse(sourceText) else {
                throw RunError(description: "\(flag) '\(sourceText)' is not a numeric IPv4 or IPv6 address")
            }
            if let bindAddress, let group = SocketAddress.parse(bindAddress), group.isMulticast,
               group.isIPv4 != parsed.isIPv4 {
                throw RunError(description: "\(flag) '\(sourceText)' is IPv\(parsed.isIPv4 ? 4 : 6) but the multicast "
                               + "group \(bindAddress) is IPv\(group.isIPv4 ? 4 : 6)")
            }
            sourceFilter = SocketAddress.address(parsed)
        }
        var socketOptions = UDPReceiver.Options(
            bindAddress: bindAddress, port: port, interface: options.interface,
            receiveBufferBytes: options.receiveBufferBytes)
        socketOptions.source = sourceText
        socketOptions.maxDatagramBytes = options.maxPacketBytes + 4096
        let socket: UDPReceiver
        do {
            socket = try UDPReceiver(socketOptions)
        } catch let error as SystemError {
            throw RunError(description: error.description)
        }
        if !options.quiet {
            var line = "listening on udp \(socket.boundDescription)"
            if let group = socket.joinedGroup {
                line += " (joined multicast group \(group)"
                    + (socket.joinedSource.map { ", source-specific for \($0)" } ?? "") + ")"
            }
            if socket.grantedReceiveBufferBytes < options.receiveBufferBytes {
                line += "\nwarning: the kernel granted a receive buffer of \(socket.grantedReceiveBufferBytes) bytes, "
                    + "not the \(options.receiveBufferBytes) asked for (raise net.core.rmem_max, or run as root)"
            }
            Terminal.printError(line + "\n")
        }

        let local = socket.localEndpoint
        StopSignal.install()
        let progress = Progress(enabled: !options.quiet && Terminal.isTerminal(2))
        let status = LiveStatus()
        let start = Terminal.monotonicNanoseconds()
        var lastPacket = start
        var silenceReported = false
        var filtered = 0
        var stopReason = "stopped"
        let duration = options.duration.map { Int64($0 * 1e9) }
        let timeout = options.timeout.map { Int64($0 * 1e9) }

        try run.writing {
            while true {
                if StopSignal.received != 0 {
                    stopReason = "stopped by \(StopSignal.name)"
                    break
                }
                if run.sink.isFull {
                    stopReason = "stopped after \(options.frames!) frames"
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
                let count = try socket.receive()
                now = Terminal.monotonicNanoseconds()
                for i in 0..<count {
                    let (bytes, source) = socket.datagram(i)
                    if let sourceFilter, source?.address != sourceFilter {
                        filtered += 1
                        continue
                    }
                    try receiver.receive(datagram: bytes, source: source, destination: local, arrival: now)
                }
                if count > 0 {
                    lastPacket = now
                    silenceReported = false
                }
                try receiver.tick(now: now)
                if progress.due(now: now) {
                    progress.show(status.line(now: now, start: start, receiver: receiver))
                }
            }
        }
        progress.clear()
        try run.finish()
        if !options.quiet { Terminal.printError("\(stopReason)\n") }
        var summary = "udp \(socket.boundDescription): \(receiver.counters.datagrams) datagrams"
        if filtered > 0 { summary += ", \(filtered) from other senders dropped (\(flag))" }
        summary += "; kernel dropped \(socket.kernelDrops) (receive buffer \(socket.grantedReceiveBufferBytes) bytes)"
        try run.report(Report.Input(
            summary: summary, warning: nil,
            json: [("input", .string("udp \(socket.boundDescription)")),
                   ("kernel_drops", .int(Int(socket.kernelDrops))),
                   ("receive_buffer_bytes", .int(socket.grantedReceiveBufferBytes)),
                   ("other_sender", .int(filtered)),
                   ("seconds", .double(Double(Terminal.monotonicNanoseconds() - start) / 1e9))]))
        return 0
    }
}

/// The live status line: rates since the last line, loss so far, resolution, elapsed time.
final class LiveStatus {
    private var lastTime: Int64 = 0
    private var lastPackets = 0
    private var lastBytes = 0
    private var lastFrames = 0

    func line(now: Int64, start: Int64, receiver: Receiver) -> String {
        let s = receiver.selected?.snapshot()
        let packets = s?.packets ?? 0, bytes = s?.bytes ?? 0, frames = s?.frames.written ?? 0
        let seconds = Double(now - (lastTime == 0 ? start : lastTime)) / 1e9
        defer { (lastTime, lastPackets, lastBytes, lastFrames) = (now, packets, bytes, frames) }
        guard seconds > 0 else { return "" }
        let lossPercent = packets + (s?.lost ?? 0) > 0 ? Double(s?.lost ?? 0) * 100 / Double(packets + (s?.lost ?? 0)) : 0
        let elapsed = Int((now - start) / 1_000_000_000)
        let resolution = s?.sps.map { "\($0.width)x\($0.height)" } ?? "-"
        return "\(Int(Double(packets - lastPackets) / seconds)) pkt/s  "
            + "\(fixed(Double(bytes - lastBytes) * 8 / seconds / 1e6)) Mbit/s  "
            + "\(fixed(Double(frames - lastFrames) / seconds)) fps  loss \(fixed(lossPercent))%  \(resolution)  "
            + "\(elapsed / 60):\(elapsed % 60 < 10 ? "0" : "")\(elapsed % 60)"
    }

    private func fixed(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}
