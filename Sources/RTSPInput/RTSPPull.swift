import RTPCore
import SystemIO
import TLS

/// `rtprecv rtsp://…`: runs `RTSPClient` over the control connection. OPTIONS, DESCRIBE and a
/// SETUP for each media line rtprecv takes, then PLAY, before the live loop starts; keep-alives
/// and interleaved media while it runs; TEARDOWN as it ends. With `--rtsp-transport auto` it asks
/// for UDP first and moves to TCP: in the same session when the server refuses UDP (461) at the
/// first SETUP, in a fresh one when that fails too, when the server answers with another
/// transport, or when nothing comes within 2 s of PLAY. `rtsps://…` runs the same over TLS, its
/// media interleaved in the connection unless `--rtsp-transport` says otherwise.
public final class RTSPPull {
    public enum Transport: String, Sendable {
        case udp, tcp, multicast
        public var words: String {
            switch self {
            case .udp: "UDP"
            case .tcp: "TCP (interleaved)"
            case .multicast: "UDP multicast"
            }
        }
    }

    /// How to reach the server and what to take from it.
    public struct Settings {
        /// The request URL, with the credentials to answer a challenge with.
        public var url: RTSPURL
        public var transport: Preference = .auto
        /// rtsps: the certificates accepted.
        public var trust = TLSTrust()
        /// Whether an audio line is set up beside the video.
        public var takesAudio = true
        /// Where UDP sockets bind, and the interface a multicast group is joined on.
        public var bind: String?
        public var interface: String?
        public var receiveBufferBytes = 8 << 20
        public var maxDatagramBytes = 65536 + 4096
        /// Quiet: nothing said about fallbacks; verbose: every request and reply said.
        public var quiet = false
        public var verbose = false
        /// Why to give up now (a signal, a config's source taken out) while a reply is awaited.
        public var stopReason: () -> String? = { nil }
        /// Where messages go (the caller masks what must stay secret).
        public var say: (String) -> Void = { _ in }

        public init(url: RTSPURL) { self.url = url }
    }

    /// `--rtsp-transport`: UDP then TCP (auto), or only one.
    public enum Preference: String, CaseIterable, Sendable { case auto, udp, tcp, multicast }

    /// A setup or a request that failed: what it names and why.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Media set up, with each the port its packets are delivered as coming to; `rtcpOnly` for an
    /// RTCP channel's.
    public typealias Deliver = (_ payload: UnsafeRawBufferPointer, _ source: Endpoint, _ destination: Endpoint,
                                _ rtcpOnly: Bool) throws -> Void

    /// What the server's session description says, with each taken media line's port set to where
    /// its packets arrive: the client port (UDP), or a stand-in per channel (TCP).
    public internal(set) var sdp: SessionDescription!
    /// What the session runs over; UDP refused at the first SETUP becomes TCP in the same session.
    public internal(set) var transport: Transport
    /// UDP: the RTP and RTCP sockets, bound before SETUP named them, and what each is for.
    public internal(set) var sockets: [UDPReceiver] = []
    public internal(set) var roles: [String] = []
    /// Where receiver reports go: the server's RTCP port for the video (UDP), the server (TCP).
    public internal(set) var rtcpDestination: Endpoint?
    /// The request URL (no credentials) and what was worked around, said once each in the summary.
    public internal(set) var url: RTSPURL
    public internal(set) var notes: [String] = []
    public internal(set) var keepAlives = 0
    public internal(set) var interleavedFrames = 0
    public internal(set) var serverRequests = 0
    /// Why the server's session is over, when a keep-alive was answered 454: its media has stopped.
    public internal(set) var sessionEnded: String?
    /// Why the control connection went away (a read or a write failed); nothing more is sent on it.
    public internal(set) var connectionLost: String?
    /// What SETUP set up, line by line: "video over UDP ports 50000-50001".
    var setUp: [String] = []
    /// The URL and what was set up, for messages about what does (not) come.
    public var mediaSetUp: String { "from \(url) (" + setUp.joined(separator: ", ") + ")" }
    public var keepAliveMethod: String { client.keepAliveMethod }
    public var sessionTimeoutSeconds: Int { client.session?.timeoutSeconds ?? 60 }
    public var skippedBytes: Int { reader.skippedBytes }

    var connection: (any StreamConnection)!
    var client: RTSPClient
    var reader = RTSPStreamReader()
    var readBuffer = [UInt8](repeating: 0, count: 1 << 16)
    /// TCP: each interleaved channel's stand-in port (0: not set up); RTCP's is the RTP one + 1.
    /// An array by channel, since every interleaved frame is looked up in it.
    var channelPorts = [UInt16](repeating: 0, count: 256)
    var videoRTCPChannel: UInt8?
    var nextKeepAlive: Int64 = 0
    /// What the caller asked for: how to bind, what to say, when to give up a wait.
    let settings: Settings
    var tornDown = false
    /// Interleaved frames that came while a reply was awaited, up to 8 MiB.
    var earlyFrames: [(channel: UInt8, bytes: [UInt8])] = []
    var earlyBytes = 0
    /// The SSRC SETUP's reply named for the video, which cameras get wrong.
    var setupVideoSSRC: UInt32?
    var closed = false

    /// Why a UDP attempt gave way to TCP.
    struct Fallback: Error { var reason: String }

    /// Connects and sets up the session by the first transport that works.
    public static func open(settings: Settings) throws -> RTSPPull {
        let url = settings.url
        let transports: [Transport] = switch settings.transport {
        // RTSPS keeps its media in the TLS connection, as FFmpeg does: UDP would send it in the clear.
        case .auto: url.scheme == "rtsps" ? [.tcp] : [.udp, .tcp]
        case .udp: [.udp]
        case .tcp: [.tcp]
        case .multicast: [.multicast]
        }
        var reasons: [String] = []
        for (n, transport) in transports.enumerated() {
            do {
                let pull = try RTSPPull(url: url, transport: transport, settings: settings)
                if !reasons.isEmpty { pull.notes.insert("TCP after UDP failed: " + reasons.joined(separator: "; "), at: 0) }
                return pull
            } catch let fallback as Fallback where n + 1 < transports.count {
                reasons.append(fallback.reason)
                if !settings.quiet { settings.say("rtsp: \(fallback.reason); trying TCP\n") }
            } catch let fallback as Fallback {
                throw Failure(description: "\(url): \(fallback.reason)")
            }
        }
        throw Failure(description: "\(url): no transport worked")
    }

    /// OPTIONS, DESCRIBE, a SETUP for each media line taken, and PLAY.
    private init(url requested: RTSPURL, transport initial: Transport, settings: Settings) throws {
        transport = initial
        self.settings = settings
        url = requested
        client = RTSPClient(authorization: RTSPAuthorization(user: requested.user, password: requested.password,
                                                             seed: UInt64(bitPattern: Terminal.wallclockNanoseconds())))
        let described = try describe(requested)
        // The base for a=control: Content-Base, else Content-Location, else the request URL.
        let base = (described.header("Content-Base") ?? described.header("Content-Location")).map { url.resolving($0) } ?? url
        if let header = described.header("Content-Base"), !header.contains("://") { note("Content-Base without a scheme") }
        var sdp = try sessionDescription(described)
        for (n, index) in try mediaToSetUp(sdp).enumerated() {
            try setUp(&sdp, line: index, number: n, base: base)
        }
        self.sdp = sdp
        let reply = try request("PLAY", base, headers: [("Range", "npt=0.000-")])
        if reply.header("RTP-Info") == nil { note("no RTP-Info in PLAY's reply") }
        nextKeepAlive = Terminal.monotonicNanoseconds() + Int64(client.keepAliveIntervalSeconds) * 1_000_000_000
        if transport == .udp && settings.transport == .auto { try awaitUDP() }
    }
}
