import RTPCore
import SystemIO

/// `--sdp` given more than once, or `--sdp-dir`: a session an SDP, each a `Run` of its own with its
/// video and audio (in one FLV, in sync) as a run of that SDP alone has them, its outputs named
/// from the options' paths with `{sdp}` (the SDP file's name) filled in. Datagrams go to the
/// session whose media lines name their destination port, RTP or RTCP; a port belongs to one
/// session.
final class SessionFanOut: FanOut<SessionFanOut.Key> {
    struct Key: Hashable, CustomStringConvertible {
        var name: String
        var description: String { name }
    }

    private var byPort: [UInt16: Key] = [:]
    /// The sessions, in the order given.
    let sessions: [(path: String, sdp: SessionDescription)]

    /// The SDPs of `--sdp` and `--sdp-dir` (its *.sdp files, by name), loaded.
    static func load(_ options: Options) throws -> [(path: String, sdp: SessionDescription)] {
        var paths = options.sessionSDPs
        if let directory = options.sdpDirectory {
            let names: [String]
            do {
                names = try Directory.entries(directory).filter { $0.hasSuffix(".sdp") }.sorted()
            } catch let error as SystemError {
                throw RunError(description: "cannot read --sdp-dir \(error)")
            }
            guard !names.isEmpty else { throw RunError(description: "--sdp-dir \(directory) holds no .sdp file") }
            paths += names.map { directory.hasSuffix("/") ? directory + $0 : directory + "/" + $0 }
        }
        return try paths.map { ($0, try Run.loadSDP($0, quiet: options.quiet)) }
    }

    init(options: Options, sessions: [(path: String, sdp: SessionDescription)], borrowsPayloads: Bool) throws {
        self.sessions = sessions
        super.init(options: options, noun: "session", sharesReport: options.report.map { !$0.contains(OutputTemplate.sdpField) } ?? false)
        var paths: [Key: String] = [:]
        for (path, sdp) in sessions {
            let key = Key(name: OutputTemplate.session("{sdp}", sdpFile: path))
            if let other = paths[key] { throw RunError(description: "\(other) and \(path) would write the same files ({sdp} is \(key))") }
            paths[key] = path
            for port in Self.ports(of: sdp) {
                if let other = byPort[port] {
                    throw RunError(description: "\(paths[other]!) and \(path) both name port \(port): a port belongs to one session")
                }
                byPort[port] = key
            }
            var o = options
            o.sdp = path
            o.sessionSDPs = []
            o.sdpDirectory = nil
            let fill = { (output: String) in OutputTemplate.session(output, sdpFile: path) }
            o.renameFileOutputs(fill)
            // One statistics file for all, written here, unless each session names its own.
            o.statsJSON = o.statsJSON.flatMap { $0.contains(OutputTemplate.sdpField) ? fill($0) : nil }
            o.report = o.report.flatMap { $0.contains(OutputTemplate.sdpField) ? fill($0) : nil }
            let security = try Security.decryptor(options: o, sdp: sdp, inCapture: !options.isLive)
            try add(key, { try Run(options: o, sdp: sdp, security: security, borrowsPayloads: borrowsPayloads, timeline: timeline) })
        }
    }

    /// The ports a session's datagrams come to: each media line's, and its RTCP port.
    static func ports(of sdp: SessionDescription) -> [UInt16] {
        var ports: [UInt16] = []
        for line in sdp.media where line.port != 0 {
            for port in [line.port, line.expectedRTCPPort] where !ports.contains(port) { ports.append(port) }
        }
        return ports
    }

    override func receive(datagram: UnsafeRawBufferPointer, source: Endpoint?, destination: Endpoint?, arrival: Int64,
                          rtcpOnly: Bool) throws {
        datagramCount += 1
        guard let port = destination?.port, let key = byPort[port], let run = runs[key] else {
            datagramsNotTaken += 1
            return
        }
        try isolating(key) {
            try run.receive(datagram: datagram, source: source, destination: destination, arrival: arrival, rtcpOnly: rtcpOnly)
        }
    }

    /// Each session's report; the statistics JSON, unless each session writes its own, is an
    /// object with every session's report in `sessions`.
    override func report(_ input: Report.Input) throws {
        if !options.quiet {
            if let warning = input.warning { Terminal.printError("warning: \(warning)\n") }
            Terminal.printError(input.summary + "\nsessions: \(order.count) of \(sessions.count) recorded"
                                + (failed.isEmpty ? "" : ", \(failed.count) stopped for their outputs")
                                + (datagramsNotTaken > 0 ? ", \(datagramsNotTaken) datagrams to no session's port" : "") + "\n")
        }
        try reportRuns(order, input)
        try writeReport(input, keys: order)
        guard let path = options.statsJSON, !path.contains(OutputTemplate.sdpField) else { return }
        try writeStatistics(path, input, field: "sessions", keys: order, extra: [("datagrams_not_taken", datagramsNotTaken)])
    }
}
