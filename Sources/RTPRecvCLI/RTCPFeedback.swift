import RTPCore
import SystemIO

/// Live RTCP back to the sender: what `RTCPReporter` builds (receiver reports, keyframe requests,
/// BYE at the end), sent from the video's RTCP socket, or its RTP socket with rtcp-mux. It goes to
/// `--rtcp-to`, else where the sender reports come from, else the RTP source's port + 1 (the same
/// port with rtcp-mux).
final class RTCPFeedback {
    let reporter: RTCPReporter
    private let receiver: Receiver
    private let sendPacket: ([UInt8], Endpoint) throws -> Void
    private let fixedDestination: Endpoint?
    private let rtcpMux: Bool
    private let start: Int64
    private var nextCheck: Int64 = 0
    private var bitsPerSecond: Double = 0
    /// The SDP's b=AS: the session bandwidth RFC 3550 §6.2 means, known before any packet.
    private let declaredBitsPerSecond: Double?
    private var nextRate: Int64 = 0
    /// How long a gap is waited for: a NACK past it is of no use.
    private let latency: Int64
    private(set) var sendFailures = 0
    private(set) var lastDestination: Endpoint?

    /// `send`: how a packet goes out (from a socket, or in an RTSP connection's channel);
    /// `destination`: where, when the session's setup said so (an RTSP server's RTCP port).
    init(options: Options, sdp: SessionDescription?, receiver: Receiver, send: @escaping ([UInt8], Endpoint) throws -> Void,
         destination: Endpoint? = nil, start: Int64) throws {
        var configuration = RTCPReporter.Configuration()
        configuration.requestKeyframes = options.requestKeyframe || options.videoOffers("nack pli", in: sdp)
        configuration.fullIntraRequests = options.videoOffers("ccm fir", in: sdp)
        configuration.negativeAcknowledgements = options.asksForNACK(sdp)
        latency = Int64(options.latencyMilliseconds ?? 50) * 1_000_000
        configuration.wallclockOffset = Terminal.wallclockNanoseconds() - Terminal.monotonicNanoseconds()
        declaredBitsPerSecond = sdp?.bandwidthBitsPerSecond
        reporter = RTCPReporter(configuration: configuration)
        receiver.onDelaySinceLastReceiverReport = { [reporter] in reporter.noteDelay($0, arrival: $1) }
        self.receiver = receiver
        sendPacket = send
        self.start = start
        rtcpMux = sdp?.video?.rtcpMux ?? false
        if let target = options.rtcpTo {
            guard let parsed = SocketAddress.parse(target.address) else {
                throw RunError(description: "--rtcp-to '\(target.address)' is not a numeric IPv4 or IPv6 address")
            }
            fixedDestination = Endpoint(address: SocketAddress.address(parsed), port: target.port)
        } else {
            fixedDestination = destination
        }
    }

    private var destination: Endpoint? {
        if let fixedDestination { return fixedDestination }
        if let source = receiver.senderReportSource { return source }
        guard var rtp = receiver.selected?.statistics.source ?? receiver.audio?.statistics.source else { return nil }
        if !rtcpMux { rtp.port &+= 1 }
        return rtp
    }

    /// Sends what is due; looked at every 10 ms at most, so the packet path pays nothing.
    func tick(now: Int64) {
        guard now >= nextCheck else { return }
        nextCheck = now + 10_000_000
        if let declaredBitsPerSecond {
            bitsPerSecond = declaredBitsPerSecond
        } else if now >= nextRate, now > start {
            // The session's bandwidth, for the report interval: what came in since the start.
            let bytes = (receiver.selected?.statistics.bytes ?? 0) + (receiver.audio?.statistics.bytes ?? 0)
            bitsPerSecond = Double(bytes) * 8e9 / Double(now - start)
            nextRate = now + 250_000_000
        }
        // Nothing to report on before the first packet.
        guard receiver.counters.datagrams > 0, let destination else { return }
        // Each missing packet asked for once a round trip (20 ms before one is known), three times at most.
        let lost = reporter.configuration.negativeAcknowledgements
            ? receiver.retransmissionRequests(now: now, interval: reporter.retransmissionInterval, maxTries: 3, latency: latency) : []
        guard let packet = reporter.poll(now: now, reports: { receiver.receptionReports(now: now) },
                                         keyframeFor: receiver.keyframeRequestTarget, lost: lost, sessionBitsPerSecond: bitsPerSecond)
        else { return }
        send(packet, to: destination)
    }

    /// BYE as the run ends, once anything was said.
    func finish(now: Int64) {
        guard reporter.statistics.receiverReports > 0, let destination else { return }
        send(reporter.goodbye(reports: receiver.receptionReports(now: now)), to: destination)
    }

    private func send(_ packet: [UInt8], to destination: Endpoint) {
        lastDestination = destination
        // A sender that is gone answers with ICMP errors: counted, never fatal.
        do { try sendPacket(packet, destination) } catch { sendFailures += 1 }
    }
}
