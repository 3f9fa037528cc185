import RTPCore
import SRTP
import SystemIO

/// A runtime failure: what it names and why. `rtprecv` prints it and exits 1.
public struct RunError: Error, CustomStringConvertible {
    public var description: String
}

/// What replay and live input share: the receiver configured from the options and the SDP, the
/// output, and the report at the end.
final class Run {
    let options: Options
    let sdp: SessionDescription?
    let receiver: Receiver
    let sink: Outputs
    /// SRTP: what the input's datagrams go through before the receiver, when they are encrypted.
    let security: SRTPDecryptor?
    /// Live: the RTCP this run sends, for the report.
    var feedback: RTCPFeedback?

    /// `sdp`: the options' SDP, loaded (`Run.loadSDP`). `borrowsPayloads`: the input keeps packets in
    /// memory while the receiver refers to them (not SRTP's, which are plain only in the decryptor's
    /// buffer, until the next packet).
    /// `timeline`: a fan-out's, when its runs share one --report page.
    init(options: Options, sdp: SessionDescription?, security: SRTPDecryptor?, borrowsPayloads: Bool = false,
         timeline: ReportTimeline? = nil) throws {
        self.options = options
        self.security = security
        var configuration = options.receiverConfiguration
        configuration.stream.borrowsPayloads = borrowsPayloads && security == nil
        self.sdp = sdp
        if let sdp {
            configuration.take(sdp)
            // Port 0 (an RTSP DESCRIBE's lines) selects nothing.
            if !options.isLive, sdp.port != 0 { configuration.destinationPort = configuration.destinationPort ?? sdp.port }
            if !options.quiet && !options.noAudio { Run.warnAboutAudio(in: sdp, path: options.sdpName) }
        }
        if let line = options.audioCodecLine { configuration.audio.media.insert(line, at: 0) }
        if let rtx = options.rtxPayloadType { configuration.retransmission[rtx] = configuration.payloadType ?? 96 }
        // Live, what is missing is followed for NACKs when they may be sent.
        configuration.stream.tracksMissing = options.isLive && !options.noRTCP && options.asksForNACK(sdp)
        sink = try Outputs(options: options, sdp: sdp, timeline: timeline)
        receiver = Receiver(configuration: configuration, sink: sink)
        sink.receiver = receiver
        if !options.quiet {
            receiver.onNotice = { ssrc, notice in
                Terminal.printError("warning: stream \(hex(ssrc)): \(notice.description)\n")
            }
        }
    }

    /// The options' SDP, if they name one.
    static func loadSDP(_ options: Options, needsMedia: Bool = true) throws -> SessionDescription? {
        try options.sdp.map { try loadSDP($0, quiet: options.quiet, needsMedia: needsMedia) }
    }

    /// Hands `datagram` to the receiver, decrypted first when the run is SRTP.
    @inline(__always)
    func receive(datagram: UnsafeRawBufferPointer, source: Endpoint?, destination: Endpoint?, arrival: Int64,
                 rtcpOnly: Bool) throws {
        guard let plain = Security.unprotect(datagram, with: security) else { return }
        try receiver.receive(datagram: plain, source: source, destination: destination, arrival: arrival, rtcpOnly: rtcpOnly)
    }

    /// `needsMedia`: an SDP with neither a video nor an audio line is an error.
    static func loadSDP(_ path: String, quiet: Bool, needsMedia: Bool = true) throws -> SessionDescription {
        let text: String
        do {
            text = try Terminal.readFile(path)
        } catch let error as SystemError {
            throw RunError(description: "cannot read SDP \(error)")
        }
        let sdp: SessionDescription
        do {
            sdp = try SessionDescription(parsing: text)
        } catch {
            throw RunError(description: "\(path): not a usable SDP: \(error)")
        }
        guard !needsMedia || sdp.video != nil || sdp.media.contains(where: { $0.media == "audio" }) else {
            let lines = sdp.media.map { "m=\($0.media) \($0.port)" }.joined(separator: ", ")
            throw RunError(description: "\(path): not a usable SDP: no m=video or m=audio line" + (lines.isEmpty ? "" : " (it has \(lines))"))
        }
        if !quiet {
            for warning in sdp.warnings { Terminal.printError("warning: \(path): \(warning)\n") }
        }
        return sdp
    }

    /// An audio line rtprecv cannot take is said once, up front: its packets are then left out.
    static func warnAboutAudio(in sdp: SessionDescription, path: String) {
        for line in sdp.media where line.media == "audio" {
            let formats = line.payloadTypes.compactMap { line.formats[$0] }
            guard let format = formats.first(where: AudioFormats.isSupported) else {
                let names = formats.map { $0.encodingName.isEmpty ? "?" : $0.encodingName }.joined(separator: ", ")
                Terminal.printError("warning: \(path): m=audio \(line.port): \(names.isEmpty ? "no format" : names) "
                                    + "is not an audio codec rtprecv takes (\(AudioFormats.names.joined(separator: ", "))); left out\n")
                continue
            }
            do {
                _ = try AudioFormats.depacketizer(for: format)
            } catch {
                Terminal.printError("warning: \(path): m=audio \(line.port): \(error); its audio is left out\n")
            }
        }
    }

    /// Runs `body`, turning a failed write into a message a user can act on.
    func writing(_ body: () throws -> Void) throws { try Run.writing(body) }

    static func writing(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as SystemError {
            if error.isBrokenPipe {
                throw RunError(description: "\(error.subject) was closed by its reader (broken pipe)")
            }
            throw RunError(description: "cannot write \(error)")
        }
    }

    /// Flushes the receiver and closes the output.
    func finish() throws {
        try writing {
            try receiver.finish()
            try sink.finish()
        }
    }

    /// The statistics as JSON (one line, without its newline), as `--stats-json` writes them.
    func statisticsJSON(_ input: Report.Input) -> String { String(statistics(input).json().dropLast()) }

    /// The run's statistics, to print or write.
    func statistics(_ input: Report.Input) -> Report {
        Report(input: input, receiver: receiver, outputs: sink, security: security, feedback: feedback)
    }

    /// What the input is called in a report's title: the capture, the RTSP URL (masked), the port.
    static func inputName(_ options: Options) -> String {
        options.pcap ?? options.rtsp.map(RTSPURL.masked) ?? options.port.map { "UDP port \($0)" } ?? options.sdpName
    }

    func report(_ input: Report.Input) throws {
        let report = statistics(input)
        if !options.quiet {
            if let warning = input.warning { Terminal.printError("warning: \(warning)\n") }
            for warning in report.securityWarnings { Terminal.printError("warning: \(warning)\n") }
            if let sdp, let s = receiver.selected?.snapshot(), s.codec == sdp.videoCodecs[s.payloadType] ?? sdp.codec,
               let contradiction = (sdp.videoFormatParameters[s.payloadType] ?? sdp.formatParameters)?.contradiction(by: s) {
                // The packets decide; say when the SDP disagreed with them.
                Terminal.printError("warning: \(options.sdpName) \(contradiction)\n")
            }
            Terminal.printError(report.text(verbose: options.verbose))
            sayHints()
        }
        // `{codec}` filled in.
        let named = { (path: String) in self.receiver.selected?.statistics.codec.map { OutputTemplate.codec(path, $0) } ?? path }
        if let timeline = sink.timeline, let path = options.report {
            let page = Report.htmlPage(title: Run.inputName(options), input: input, sections: report.htmlSections(timeline),
                                       text: report.text(verbose: true))
            try Run.write(page, to: named(path), what: "the report")
        }
        if let path = options.statsJSON { try Run.write(report.json(), to: named(path), what: "statistics") }
    }

    /// What to try where something was not taken: a stream that looks encrypted, telephone events,
    /// audio on a dynamic payload type, keyframes without their parameter sets.
    private func sayHints() {
        // Ciphertext sets H.264's forbidden bit in half its packets, which keeps it from being taken.
        let looksEncrypted = receiver.otherStreams.values.filter {
            security == nil && VideoPayloadInvalid.looksLikeCiphertext($0.invalidPayload, packets: $0.packets)
        }
        for other in looksEncrypted.sorted(by: { $0.ssrc < $1.ssrc }).prefix(8) {
            // Linear PCM's samples set the bit as often: --list tells the two apart by the payloads' sizes.
            Terminal.printError("hint: stream \(hex(other.ssrc)) (PT \(other.payloadType), \(other.packets) packets) looks "
                                + "encrypted (SRTP?): most of its payloads are no video at all; give the key with --srtp-key "
                                + "(or, where --list finds audio, its SDP with --sdp)\n")
        }
        // Of the streams that could have been video: not those --ssrc or --payload-type left out.
        let dynamic = receiver.otherStreams.values.filter {
            !StaticPayloadType.isStaticRange($0.payloadType) && (options.ssrc ?? $0.ssrc) == $0.ssrc
                && (options.payloadType ?? $0.payloadType) == $0.payloadType
        }
        // Payloads all of 4 bytes are RFC 4733's telephone events (a capture of a call's DTMF alone).
        let events = dynamic.filter { $0.packets > 0 && $0.bytes == $0.packets * TelephoneEvent.payloadSize }
        let mightHaveBeenVideo = dynamic.filter { s in !events.contains { $0.ssrc == s.ssrc } }
        for e in events.sorted(by: { $0.ssrc < $1.ssrc }).prefix(8) {
            Terminal.printError("hint: stream \(hex(e.ssrc)) (PT \(e.payloadType), \(e.packets) packets) holds 4-byte payloads "
                                + "alone, as RFC 4733's telephone events do: --list names their digits\n")
        }
        if sdp == nil, !options.noAudio, receiver.audio == nil, looksEncrypted.isEmpty,
           let other = mightHaveBeenVideo.max(by: { ($0.packets, $1.ssrc) < ($1.packets, $0.ssrc) }) {  // ties: the lowest SSRC
            // A codec taken only when named was not tried: the stream may be one.
            let named = VideoCodec.allCases.filter(\.isTakenOnlyWhenNamed).map {
                " (\($0.name) is taken on a dynamic type only when named: --codec \($0.rawValue) --payload-type \(other.payloadType), "
                    + "where --list finds it)"
            }
            Terminal.printError("hint: stream \(hex(other.ssrc)) (PT \(other.payloadType), \(other.packets) packets) is not "
                                + VideoCodec.listed(among: VideoCodec.allCases.filter { !$0.isTakenOnlyWhenNamed }) + named.joined() + "; "
                                + "audio on a dynamic payload type (AAC, Opus, MPEG audio) needs the SDP for its codec, and AAC for its "
                                + "config: pass it with --sdp FILE (Opus or MPEG audio: or --audio-payload-type \(other.payloadType) "
                                + "--audio-codec opus or mpa, which --list tells apart)\n")
        }
        if let s = receiver.selected?.statistics, s.frames.dropped(.noParameterSets) > 0, sdp?.parameterSets.isEmpty ?? true {
            let sprop = s.codec?.parameterSetsInSDP ?? ""
            Terminal.printError("hint: the stream sent keyframes without their parameter sets; senders such as FFmpeg's "
                                + "RTP muxer put them only in the SDP (\(sprop)): pass it with --sdp FILE\n")
        }
    }

    /// One of the files written at the end.
    static func write(_ text: String, to path: String, what: String) throws {
        do {
            let file = try OutputFile(path: path)
            try file.write(text)
            try file.close()
        } catch let error as SystemError {
            throw RunError(description: "cannot write \(what) \(error)")
        }
    }
}

/// A one-line status on a terminal, at most four times a second.
final class Progress {
    private let enabled: Bool
    private var last: Int64 = 0
    private var shown = false

    init(enabled: Bool) {
        self.enabled = enabled
    }

    /// True when a new line is due; then `show` it.
    func due(now: Int64) -> Bool {
        guard enabled, now - last >= 250_000_000 else { return false }
        last = now
        return true
    }

    func show(_ line: String) {
        Terminal.printError("\r" + line + "\u{1B}[K")
        shown = true
    }

    func clear() {
        if shown { Terminal.printError("\r\u{1B}[K") }
        shown = false
    }
}

extension Run: Recording {
    var takesMore: Bool {
        @inline(__always) get { !receiver.isFull && (sink.rtmp == nil || sink.failure == nil) }
    }
    var framesWritten: Int { sink.accessUnitsWritten }
    func endBeforeNextKeyframe() { receiver.endsBeforeKeyframe = true }
    var failure: String? { sink.failure }
    func refers(to memory: UnsafeRawBufferPointer) -> Bool { receiver.refers(to: memory) }
    func stopReferring(to memory: UnsafeRawBufferPointer) { receiver.stopReferring(to: memory) }
    func gatherWrites(within memory: UnsafeRawBufferPointer) { sink.gatherWrites(within: memory) }
    /// Whether it followed a video stream: a run of `--all-streams` that never did wrote nothing.
    var followedVideo: Bool { receiver.selected != nil || !receiver.previousStreams.isEmpty }
    var followedAudio: Bool { receiver.audio != nil }
    func tick(now: Int64) throws {
        try receiver.tick(now: now)
        feedback?.tick(now: now)
        try sink.audio?.tick()
        try sink.wav?.tick()
    }

    func waitMilliseconds(now: Int64) -> Int {
        receiver.isWaiting ? TurnWait.busy : TurnWait.before(feedback?.reporter.nextDue, now: now)
    }
    func endFeedback(now: Int64) { feedback?.finish(now: now) }
    func reopen() throws { try sink.reopen() }
    var datagrams: Int { receiver.counters.datagrams }
    /// SRTP packets that could not be decrypted came too.
    var rtpPackets: Int { receiver.counters.rtpPackets + (security?.counters.values.reduce(0) { $0 + $1.failed } ?? 0) }
    var bytesWritten: Int { sink.bytesWritten }
    func forEachStream(_ body: (FollowedStream) -> Void) {
        if let video = receiver.selected {
            body(FollowedStream(statistics: video.snapshot(), media: "video", lastArrival: video.lastArrival,
                                written: (sink.bytesWritten, sink.segmentCount, sink.retention?.filesDeleted ?? 0),
                                snapshot: sink.snapshot))
        }
        if let audio = receiver.audio {
            body(FollowedStream(statistics: audio.snapshot(), media: "audio", lastArrival: audio.lastArrival, written: nil, snapshot: nil))
        }
    }

    func forEachRun(_ body: (Run) -> Void) { body(self) }
}
