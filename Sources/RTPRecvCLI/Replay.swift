import PcapInput
import RTPCore
import SystemIO

/// Replays a capture through the receiver into the outputs.
struct Replay {
    let options: Options

    func run() throws -> Int32 {
        var options = self.options
        let capture = try openCapture(options.pcap!)
        options.srtpKeys += try DTLSKeyLogKeys.keys(options, embedded: capture.embeddedTLSKeyLog)
        // From the capture's RTSP signalling: the server's endpoints of each set-up media line, with
        // the line's client port, which what the server sends from there to any port is taken to.
        // Not when --port chooses the port (the SDP's formats go by payload type, whatever the
        // port), nor for --all-streams, whose files are named by their true ports.
        var serverEndpoints: [Endpoint: UInt16] = [:]
        let sessions = try options.recordsSessions ? SessionFanOut.load(options) : nil
        var sdp = try Run.loadSDP(options)
        if sdp == nil, sessions == nil, let found = try signalledSessionDescription(options) {
            sdp = found.description
            options.sdpOrigin = found.origin
            if options.port == nil && !options.allStreams { serverEndpoints = found.serverEndpoints }
            if !options.quiet { Terminal.printError("session description from the capture: \(found.origin)\n") }
        }
        // Built before any packet, so a key that is no key fails the run at once; under --all-streams
        // each stream's run builds one of its own.
        let security = try Security.decryptor(options: options, sdp: sdp, inCapture: true)
        // Each kind of run has a replay of its own (generic, specialized): the packet loop then calls
        // the run directly, not through the protocol.
        if let sessions {
            return try replay(capture, into: SessionFanOut(options: options, sessions: sessions, borrowsPayloads: capture.canKeepRecords),
                              serverEndpoints: [:])
        } else if options.allStreams {
            // SRTP: each stream's run decrypts with a decryptor of its own.
            return try replay(capture, into: StreamFanOut(options: options, sdp: sdp, borrowsPayloads: capture.canKeepRecords),
                              serverEndpoints: [:])
        } else {
            let run = try Run(options: options, sdp: sdp, security: security, borrowsPayloads: capture.canKeepRecords)
            let status = try replay(capture, into: run, serverEndpoints: serverEndpoints)
            if !options.quiet, let hint = try KeyframeElsewhere.hint(after: run, options: options) {
                Terminal.printError(hint + "\n")
            }
            return status
        }
    }

    private func replay<R: Recording>(_ capture: CaptureFile, into run: R, serverEndpoints: [Endpoint: UInt16]) throws -> Int32 {
        if capture.canKeepRecords {
            capture.keepRecords(while: { run.refers(to: $0) }, stopReferring: { run.stopReferring(to: $0) })
        }
        if let mapped = capture.mappedBytes { run.gatherWrites(within: mapped) }
        var skipped: [FrameSkip: Int] = [:]
        var tcp = InterleavedCapture(framing: options.tcpFraming)
        var feed = CapturedPacketFeed(run: run, capture: capture, serverEndpoints: serverEndpoints,
                                      progress: Progress(enabled: options.showsProgress))
        var damage: String?
        // Ctrl-C stops the replay as it stops live reception: what came before is written and counted.
        // (From a pipe, `tcpdump ... | rtprecv --pcap -`, the writer's end of the input ends it too.)
        try StopSignal.install()
        try run.writing {
            guard run.takesMore else { return }
            damage = try Self.walk(capture, into: &feed, skipped: &skipped, tcp: &tcp)
        }
        feed.progress.clear()
        try run.finish()
        // The file may shrink once the walk is past: what was read of it since then reads as zeros.
        if damage == nil { damage = capture.truncationFoundAfterTheWalk()?.damage }
        if StopSignal.received != 0 && !options.quiet { Terminal.printError("stopped by \(StopSignal.name)\n") }
        try run.report(reportInput(capture, datagramsRead: feed.datagramsRead, datagramsOfTheServer: feed.datagramsOfTheServer,
                                   skipped: skipped, tcp: tcp, damage: damage))
        if let failure = run.failure { throw RunError(description: failure) }
        return run.exitStatus(where: "in \(capture.path) (\(feed.datagramsRead) datagrams)", quiet: options.quiet)
    }

    /// Every packet of `capture` into `feed`, walked ahead on a thread of its own where the capture
    /// allows, else in place; the damage that ended the walk early, if any.
    private static func walk<R: Recording>(_ capture: CaptureFile, into feed: inout CapturedPacketFeed<R>,
                                           skipped: inout [FrameSkip: Int], tcp: inout InterleavedCapture) throws -> String? {
        guard let walk = capture.walkAhead(skipped: skipped, tcp: tcp) else {
            let run = feed.run
            return try capture.forEachDatagram(skipped: &skipped, tcp: &tcp, releasing: { run.stopReferring(to: $0) }) {
                try feed.deliver($0, offset: capture.offset)
            }
        }
        var goesOn = true
        while goesOn, let batch = walk.next() {
            for (i, p) in batch.packets.enumerated() {
                batch.prefetch(after: i)
                // The file shrank under the walk: from here on it reads as zeros.
                if walk.isLost(p) { break }
                goesOn = try feed.deliver(p, offset: batch.offset)
                if !goesOn { break }
            }
            if !batch.copies.isEmpty { feed.run.stopReferring(to: batch.copies) }
            walk.recycle(batch)
        }
        let outcome = try walk.finish()
        (skipped, tcp) = (outcome.skipped, outcome.tcp)
        return goesOn ? outcome.damage : nil
    }

    /// What the replay read, for the report: the summary's lines and the statistics' fields.
    private func reportInput(_ capture: CaptureFile, datagramsRead: Int, datagramsOfTheServer: Int, skipped: [FrameSkip: Int],
                             tcp: InterleavedCapture, damage: String?) -> Report.Input {
        let skippedTotal = skipped.values.reduce(0, +)
        // A TCP segment is one record, whatever it carried.
        let records = datagramsRead - tcp.frames + skippedTotal + tcp.statistics.segments
        var summary = "\(capture.path): \(records) records, \(datagramsRead - tcp.frames) UDP datagrams"
        if tcp.frames > 0 || tcp.statistics.gaps > 0 {
            summary += "\n  tcp        \(tcp.frames) packets in \(options.tcpFraming == .rtsp ? "RTSP interleaved" : "RFC 4571") framing; "
                + Report.counts(tcp.statistics.counts.fields).joined(separator: ", ")
            if tcp.skippedBytes > 0 { summary += ", \(tcp.skippedBytes) bytes skipped to resynchronize" }
        }
        if datagramsOfTheServer > 0 {
            summary += "\n  rtsp       \(datagramsOfTheServer) datagrams from the described server's ports to other client ports, "
                + "taken as its media lines' (the DESCRIBE is the server's, whoever set it up)"
        }
        if skippedTotal > 0 {
            summary += "\n  skipped    \(skippedTotal) frames: " + Report.describe(skipped)
        }
        return Report.Input(
            summary: summary, warning: damage.map { "\(capture.path): \($0); kept everything before it" },
            json: [("capture", .string(capture.path)), ("records", .int(records)),
                   ("skipped_frames", Report.json(counts: skipped)),
                   ("tcp", .object([("packets", .int(tcp.frames)), ("skipped_bytes", .int(tcp.skippedBytes))]
                                   + Report.json(tcp.statistics.counts.fields))),
                   ("truncated", damage.map(JSON.string) ?? .null)])
    }
}

/// A replay's packet path: each captured packet into the run, counted, with the progress line.
private struct CapturedPacketFeed<R: Recording> {
    let run: R
    let capture: CaptureFile
    /// The server's endpoints of each media line its signalling set up, with the line's client port.
    let serverEndpoints: [Endpoint: UInt16]
    let progress: Progress
    var channelRoles = InterleavedChannelRoles()
    var datagramsRead = 0
    var datagramsOfTheServer = 0

    /// Hands a packet to the run; false once it takes no more, or Ctrl-C came.
    @inline(__always) mutating func deliver(_ p: CapturedPacket, offset: Int64) throws -> Bool {
        datagramsRead += 1
        // Over TCP the port is the connection's, not a media line's: no port selects.
        let rtcpOnly = p.channel.map { channelRoles.isRTCP(p.bytes, channel: $0) } ?? false
        var destination = p.channel == nil ? p.destination : nil
        if !serverEndpoints.isEmpty, destination != nil, let port = serverEndpoints[p.source], port != p.destination.port {
            destination!.port = port
            datagramsOfTheServer += 1
        }
        try run.receive(datagram: p.bytes, source: p.source, destination: destination, arrival: p.time, rtcpOnly: rtcpOnly)
        if datagramsRead & 0xFFF == 0 && progress.due(now: Terminal.monotonicNanoseconds()) {
            let percent = capture.fileSize > 0 ? "\(offset * 100 / capture.fileSize)% " : ""
            progress.show("reading: \(percent)(\(offset >> 20) MiB), \(run.framesWritten) frames written")
        }
        return run.takesMore && StopSignal.received == 0
    }
}
