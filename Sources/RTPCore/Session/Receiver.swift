/// The RTP session: demultiplexes what arrives into the video stream, the audio stream and RTCP,
/// and feeds each.
///
/// Audio is what `AudioSelection` names (the SDP's audio lines, else RFC 3551 static types); one
/// SSRC of it is followed, and another takes over only once it has been silent for a second.
///
/// Without `--ssrc`, every SSRC with a dynamic payload type is a candidate with a pipeline of its
/// own, one per codec its payload type may carry (every registered one when neither the SDP nor
/// `--codec` names it); the first that proves to carry its codec (for H.264 and H.265: a parameter
/// set that parses, a slice when the payload type was given, or three slices) is selected, and its
/// twins tried as other codecs forgotten. A later SSRC takes over only once the selected one has
/// fallen silent: a sender restart, not a second sender.
public final class Receiver {
    public struct Configuration: Sendable {
        public var ssrc: UInt32?
        public var payloadType: UInt8?
        public var destinationPort: UInt16?
        public var stream = RTPStreamConfiguration()
        public var video = VideoFormatConfiguration()
        /// The SDP's fmtp for the video, read by its codec's format (RFC 6184's interleaving,
        /// RFC 7798's DON parameters); each codec's format takes what it reads.
        public var formatParameters: (any VideoFormatParameters)?
        /// Every payload type of the SDP's video line that names a codec, with its fmtp (and
        /// parameter sets): a stream on any is taken as on `payloadType`, since an offer lists
        /// several and the sender may use any. Empty when `payloadType` was chosen.
        public var videoFormatParameters: [UInt8: any VideoFormatParameters] = [:]
        /// The video payload formats a stream may be tried as: the registry's.
        public var formats = VideoPayloadFormats.registered
        /// The codec of each video payload type, as the SDP's a=rtpmap names it.
        public var videoCodecs: [UInt8: VideoCodec] = [:]
        /// The codec of every dynamic payload type the SDP does not name (`--codec`); nil tries each.
        public var codec: VideoCodec?
        /// The selected stream's frames to write (`--frames`); nothing is written or accounted after.
        public var maxFrames = Int.max
        /// Candidate streams followed at once; more SSRCs are counted and ignored.
        public var maxStreams = 16
        /// Parameter sets from the SDP, for the codec of `payloadType`.
        public var parameterSets: [[UInt8]] = []
        public var audio = AudioSelection()
        /// RTX (RFC 4588): each retransmission payload type, and the payload type it carries (apt).
        public var retransmission: [UInt8: UInt8] = [:]
        /// RED (RFC 2198): the payload types whose packets wrap blocks of others (WebRTC's Opus).
        public var redundancy: Set<UInt8> = []
        /// RTCP ports beside the RTP ones (the SDP's a=rtcp); RTP port + 1 is taken anyway.
        public var rtcpPorts: [UInt16] = []

        public init() {}
    }

    public struct Counters: Sendable {
        public var datagrams = 0
        public var invalidRTP: [RTPPacket.Invalid: Int] = [:]
        public var otherPort = 0
        public var otherSSRC = 0
        public var otherPayloadType = 0
        public var streamsOverLimit = 0
        /// RTCP datagrams on the same port or in the same capture (RFC 5761 demultiplexing).
        public var rtcp = 0
        /// The RTCP packets in them, by kind (a compound datagram holds several).
        public var rtcpPackets: [RTCPPacket.Kind: Int] = [:]
        public var ssrcChanges = 0
        /// Audio SSRCs after the first that took over from a silent one.
        public var audioSSRCChanges = 0
        /// RTX packets (RFC 4588) unwrapped into their stream, and those of no stream followed.
        public var retransmissions = 0
        public var retransmissionsUnmatched = 0
        /// RED packets (RFC 2198) taken as their primary block, those that did not parse, and the
        /// redundant blocks that stood in for audio packets lost before them.
        public var redundantPackets = 0
        public var redundantPacketsInvalid = 0
        public var redundantBlocksTaken = 0

        /// Datagrams that parsed as RTP, on the session's ports.
        public var rtpPackets: Int { datagrams - otherPort - rtcp - invalidRTP.values.reduce(0, +) }

        /// Every count of the session, in the statistics JSON's order.
        public var counts: [Count] {
            [Count(name: "datagrams", help: "datagrams received, RTP and RTCP", value: datagrams),
             Count(name: "invalid_rtp", help: "datagrams that did not parse as RTP, by why",
                   kinds: invalidRTP.map { ($0.key.rawValue, $0.value) }.sorted { $0.kind < $1.kind }),
             Count(name: "other_port", help: "datagrams to a port outside the session", value: otherPort),
             Count(name: "rtcp", help: "RTCP datagrams (RFC 5761 demultiplexing)", value: rtcp),
             Count(name: "rtcp_packets", help: "RTCP packets in them, by kind",
                   kinds: RTCPPacket.Kind.allCases.map { ($0.rawValue, rtcpPackets[$0] ?? 0) }),
             Count(name: "streams_over_limit", help: "packets of streams beyond --max-streams", value: streamsOverLimit),
             Count(name: "ssrc_changes", help: "times another SSRC took over the video stream", value: ssrcChanges),
             Count(name: "audio_ssrc_changes", help: "audio SSRCs that took over from a silent one", value: audioSSRCChanges),
             Count(name: "other_ssrc", help: "RTP packets of SSRCs other than --ssrc", value: otherSSRC),
             Count(name: "other_payload_type", help: "RTP packets of payload types not taken", value: otherPayloadType),
             Count(name: "retransmissions", help: "RTX packets (RFC 4588) unwrapped into their stream", value: retransmissions),
             Count(name: "retransmissions_unmatched", help: "RTX packets of no stream followed",
                   value: retransmissionsUnmatched),
             Count(name: "red_packets", help: "RED packets (RFC 2198) taken as their primary block", value: redundantPackets),
             Count(name: "red_packets_invalid", help: "RED packets whose block headers run past the payload",
                   value: redundantPacketsInvalid),
             Count(name: "red_blocks_taken", help: "redundant blocks that stood in for audio packets lost", value: redundantBlocksTaken)]
        }
    }

    public let configuration: Configuration
    private let formatChoices: VideoFormatChoices
    public private(set) var counters = Counters()
    /// Access units of the selected streams written.
    public private(set) var framesWritten = 0
    /// The frame limit is reached, or the keyframe it was to end before came: the run is over.
    public var isFull: Bool { framesWritten >= configuration.maxFrames || endedAtKeyframe }
    /// Set to end the run before the selected stream's next keyframe: it and all after are not taken.
    public var endsBeforeKeyframe = false
    private var endedAtKeyframe = false
    public private(set) var selected: VideoStream? {
        didSet { selectedReference = selected.map(Unmanaged.passUnretained) }
    }
    /// `selected` without the retain and release of every use: the packet path's hottest branch.
    private var selectedReference: Unmanaged<VideoStream>?

    /// Whether `stream` is the selected one, asked without retaining either (once an access unit).
    @inline(__always)
    private func isSelected(_ stream: VideoStream) -> Bool {
        selectedReference?.toOpaque() == Unmanaged.passUnretained(stream).toOpaque()
    }
    /// Keyed by SSRC, payload type and codec, so that a foreign payload type on an SSRC cannot pose as it.
    private var candidates: [UInt64: VideoStream] = [:]
    /// The timestamp step between the audio's RED packets, which says how many packets back a block is.
    private var redundancyStep = RedundancyStep()
    /// What a stream taking over output before the packet that proved it went through (`hold`).
    private var heldOutput: HeldOutput?
    /// Every SSRC seen but not selected, with its packet count and addresses.
    public private(set) var otherStreams: [UInt32: StreamStatistics] = [:]
    /// Finished streams that were selected before a change of SSRC.
    public private(set) var previousStreams: [StreamStatistics] = []
    /// The audio stream followed, and those it took over from.
    public private(set) var audio: AudioStream?
    public private(set) var previousAudioStreams: [StreamStatistics] = []
    /// Another audio SSRC's packets, held while the followed one talks.
    private var takeover: AudioTakeover?
    /// Audio streams whose payload format could not be set up (an fmtp without its config), said once each.
    public private(set) var unusableAudio: [UInt32: String] = [:]
    /// Ports other than `destinationPort` that belong to the session: audio, and RTCP.
    public let sessionPorts: Set<UInt16>
    private let sink: AccessUnitSink
    /// Sender reports for SSRCs with no stream yet (FFmpeg sends one before its first RTP packet),
    /// the latest of each, given to the stream when it comes; at most `maxStreams` × 4 of them.
    private var unclaimedReports: [UInt32: (report: RTCPPacket.SenderReport, arrival: Int64)] = [:]
    /// Every stream's times on one timeline, set by arrival and then by sender reports.
    public let clock = MediaClock()
    /// DLRR blocks (RFC 3611) as they arrive, with their arrival: the reporter finds its round trip in them.
    public var onDelaySinceLastReceiverReport: (ExtendedReport.DelaySinceLastReceiverReport, Int64) -> Void = { _, _ in }
    /// What the selected stream does that is worked around, said once each as it happens.
    public var onNotice: (UInt32, StreamNotice) -> Void = { _, _ in }

    public init(configuration: Configuration, sink: AccessUnitSink) {
        self.configuration = configuration
        formatChoices = VideoFormatChoices(configuration.formats, codecs: configuration.videoCodecs,
                                           otherwise: configuration.codec)
        self.sink = sink
        var ports = Set(configuration.rtcpPorts)
        if let port = configuration.destinationPort { ports.insert(port &+ 1) }
        for line in configuration.audio.media where line.port != 0 {
            ports.insert(line.port)
            ports.insert(line.rtcpPort ?? line.port &+ 1)
        }
        sessionPorts = ports
    }

    /// Whether an access unit in progress, in any stream, refers to bytes in `memory`.
    public func refers(to memory: UnsafeRawBufferPointer) -> Bool {
        candidates.values.contains { $0.refers(to: memory) }
    }


    /// Copies what access units in progress hold of `memory`, which may then be reused.
    public func stopReferring(to memory: UnsafeRawBufferPointer) {
        for stream in candidates.values { stream.stopReferring(to: memory) }
    }

    /// `datagram` is a UDP payload, `arrival` nanoseconds on the packet clock. `rtcpOnly`: it came
    /// where only RTCP goes (an interleaved RTCP channel), so what is not RTCP is malformed RTCP.
    public func receive(datagram: UnsafeRawBufferPointer, source: Endpoint?, destination: Endpoint?,
                        arrival: Int64, rtcpOnly: Bool = false) throws {
        counters.datagrams += 1
        if let port = configuration.destinationPort, let destination, destination.port != port,
           !sessionPorts.contains(destination.port) {
            counters.otherPort += 1
            return
        }
        if rtcpOnly || RTCP.isPacket(datagram) {
            receiveRTCP(datagram, source: source, arrival: arrival)
            return
        }
        let packet: RTPPacket
        do {
            packet = try RTPPacket(parsing: datagram)
        } catch {
            counters.invalidRTP[error, default: 0] += 1
            return
        }
        if !configuration.redundancy.isEmpty && configuration.redundancy.contains(packet.payloadType) {
            return try receiveRedundant(packet, in: datagram, source: source, destination: destination, arrival: arrival)
        }
        try receive(packet, in: datagram, source: source, destination: destination, arrival: arrival)
    }

    /// An RTP packet of `datagram`, to the stream it belongs to.
    @inline(__always)
    private func receive(_ packet: RTPPacket, in datagram: UnsafeRawBufferPointer, source: Endpoint?, destination: Endpoint?,
                         arrival: Int64) throws {
        let payload = datagram.view(packet.payloadRange)
        if let reference = selectedReference {
            // `selected` keeps it alive, and nothing below changes `selected`.
            let handled = try reference._withUnsafeGuaranteedRef { stream in
                guard packet.ssrc == stream.ssrc else { return false }
                if packet.payloadType == stream.payloadType {
                    try stream.receive(packet, payload: payload, headerExtension: dependencyDescriptor(of: packet, in: datagram),
                                       arrival: arrival)
                } else {
                    try stream.receive(otherPayloadType: packet, payload: payload, arrival: arrival)
                }
                return true
            }
            if handled { return }
        }
        if !configuration.retransmission.isEmpty, let original = configuration.retransmission[packet.payloadType] {
            try receiveRetransmission(packet, payload: payload, headerExtension: dependencyDescriptor(of: packet, in: datagram),
                                      originalPayloadType: original, arrival: arrival)
            return
        }
        if try receiveAudio(packet, payload: payload, source: source, destination: destination, arrival: arrival) { return }
        guard accepts(packet) else {
            noteOther(packet, payload: payload, source: source, destination: destination)
            return
        }
        for format in formatChoices.formats(payloadType: packet.payloadType) {
            guard let candidate = candidate(for: packet, format: format, source: source, destination: destination,
                                            arrival: arrival) else {
                counters.streamsOverLimit += 1
                return
            }
            try candidate.receive(packet, payload: payload, headerExtension: dependencyDescriptor(of: packet, in: datagram),
                                  arrival: arrival)
            try settle(candidate)
            if selected === candidate { return }
        }
    }

    /// A RED packet (RFC 2198) goes on as its primary block: a packet of the block's payload type
    /// with the RED packet's sequence number and timestamp (§3: the primary's are the packet's).
    /// Then, for the audio stream, each redundant block whose packet was lost stands in for it.
    private func receiveRedundant(_ red: RTPPacket, in datagram: UnsafeRawBufferPointer, source: Endpoint?, destination: Endpoint?,
                                  arrival: Int64) throws {
        let payload = datagram.view(red.payloadRange)
        guard let primary = RedundantPayload.primary(of: payload, redundant: { _ in }) else {
            counters.redundantPacketsInvalid += 1
            return
        }
        counters.redundantPackets += 1
        var packet = red
        packet.payloadType = primary.payloadType
        packet.payloadRange = red.payloadRange.lowerBound + primary.range.lowerBound..<red.payloadRange.lowerBound + primary.range.upperBound
        try receive(packet, in: datagram, source: source, destination: destination, arrival: arrival)
        guard let audio, audio.ssrc == red.ssrc, audio.payloadType == primary.payloadType,
              let step = redundancyStep.next(red) else { return }
        _ = try RedundantPayload.primary(of: payload) { block in
            // A block of the audio's own type, whole packets back: that packet, if it never came.
            guard block.payloadType == audio.payloadType, block.timestampOffset % step == 0 else { return }
            let back = block.timestampOffset / step
            guard (1...16).contains(back) else { return }
            var lost = red
            (lost.payloadType, lost.marker, lost.padding) = (block.payloadType, false, false)
            lost.sequenceNumber = red.sequenceNumber &- UInt16(back)  // bounded: at most 16
            lost.timestamp = red.timestamp &- block.timestampOffset
            guard !audio.hasArrived(lost.sequenceNumber) else { return }
            counters.redundantBlocksTaken += 1
            try audio.receive(lost, payload: payload.view(block.range), arrival: arrival, retransmitted: true)
        }
    }

    /// The data of the dependency descriptor in `packet`, where the session names its ID; empty otherwise.
    @inline(__always)
    private func dependencyDescriptor(of packet: RTPPacket, in datagram: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard let id = configuration.video.dependencyDescriptorID, let elements = packet.headerExtensionElements(in: datagram) else {
            return .empty
        }
        for element in elements where element.id == id { return element.data }
        return .empty
    }

    /// An RTX packet (RFC 4588 §4): the original sequence number (OSN) in its first two bytes, then the
    /// original payload. It goes into the stream of the payload type it carries, as that packet; an
    /// RTX stream is never a candidate of its own.
    /// `headerExtension`: the RTX packet's, which the sender copies from the original.
    private func receiveRetransmission(_ packet: RTPPacket, payload: UnsafeRawBufferPointer, headerExtension: UnsafeRawBufferPointer,
                                       originalPayloadType: UInt8, arrival: Int64) throws {
        guard payload.count >= 2 else {
            counters.retransmissionsUnmatched += 1
            return
        }
        var original = packet
        original.sequenceNumber = UInt16(payload[0]) << 8 | UInt16(payload[1])
        original.payloadType = originalPayloadType
        let inner = payload.view(2..<payload.count)
        if let video = selected ?? candidates.values.filter({ $0.payloadType == originalPayloadType }).max(by: { $0.statistics.packets < $1.statistics.packets }),
           video.payloadType == originalPayloadType {
            original.ssrc = video.ssrc
            counters.retransmissions += 1
            try video.receive(original, payload: inner, headerExtension: headerExtension, arrival: arrival, retransmitted: true)
        } else if let audio, audio.payloadType == originalPayloadType {
            original.ssrc = audio.ssrc
            counters.retransmissions += 1
            try audio.receive(original, payload: inner, arrival: arrival, retransmitted: true)
        } else {
            counters.retransmissionsUnmatched += 1
        }
    }

    /// Every followed stream's NACK requests due now: the media SSRC and the sequence numbers.
    public func retransmissionRequests(now: Int64, interval: Int64, maxTries: Int, latency: Int64) -> [(ssrc: UInt32, lost: [UInt16])] {
        guard configuration.stream.tracksMissing else { return [] }
        var requests: [(ssrc: UInt32, lost: [UInt16])] = []
        if let selected {
            let lost = selected.retransmissionRequests(now: now, interval: interval, maxTries: maxTries, latency: latency)
            if !lost.isEmpty { requests.append((selected.ssrc, lost)) }
        }
        if let audio {
            let lost = audio.retransmissionRequests(now: now, interval: interval, maxTries: maxTries, latency: latency)
            if !lost.isEmpty { requests.append((audio.ssrc, lost)) }
        }
        return requests
    }

    /// Counts what a compound RTCP datagram holds, and gives each stream its sender reports,
    /// CNAME and BYE.
    private func receiveRTCP(_ datagram: UnsafeRawBufferPointer, source: Endpoint?, arrival: Int64) {
        counters.rtcp += 1
        do {
            try RTCPPacket.forEach(in: datagram) { packet in
                counters.rtcpPackets[packet.kind, default: 0] += 1
                switch packet {
                case .senderReport(let report):
                    if report.ssrc == selected?.ssrc || selected == nil { senderReportSource = source }
                    let outcome = clock.senderReport(ssrc: report.ssrc, ntp: report.ntpTimestamp, rtp: report.rtpTimestamp, arrival: arrival)
                    if let stream = stream(ssrc: report.ssrc) {
                        stream.noteSenderReport(report, arrival: arrival, outcome: outcome)
                    } else if unclaimedReports.count < 4 * configuration.maxStreams || unclaimedReports[report.ssrc] != nil {
                        unclaimedReports[report.ssrc] = (report, arrival)
                    }
                case .sourceDescription(let names):
                    for name in names { stream(ssrc: name.ssrc)?.noteCNAME(name.cname) }
                case .goodbye(let sources):
                    for ssrc in sources { stream(ssrc: ssrc)?.noteGoodbye() }
                case .extendedReport(_, let delays):
                    for block in delays { onDelaySinceLastReceiverReport(block, arrival) }
                case .receiverReport, .other:
                    break
                }
            }
        } catch {
            counters.rtcpPackets[.invalid, default: 0] += 1
        }
    }

    /// The stream followed under `ssrc`: the selected one, a candidate, or the audio stream.
    private func stream(ssrc: UInt32) -> RTCPReceiving? {
        if let selected, selected.ssrc == ssrc { return selected }
        if let audio, audio.ssrc == ssrc { return audio }
        let twins = candidates.values.filter { $0.ssrc == ssrc }
        return twins.isEmpty ? nil : CandidateTwins(streams: twins)
    }

    // MARK: Audio

    /// Feeds the audio stream; true when the packet was audio (taken or counted).
    private func receiveAudio(_ packet: RTPPacket, payload: UnsafeRawBufferPointer, source: Endpoint?,
                              destination: Endpoint?, arrival: Int64) throws -> Bool {
        if let audio, audio.ssrc == packet.ssrc {
            try Self.feed(audio, packet, payload: payload, arrival: arrival)
            return true
        }
        let waiting = takeover?.ssrc == packet.ssrc
        guard waiting || audioFormat(of: packet, at: destination) != nil else { return false }
        if let current = audio {
            // Another sender while this one talks is not a restart: held, in case it becomes one.
            guard arrival &- current.lastArrival > 1_000_000_000 else {
                hold(packet, payload: payload, source: source, destination: destination, arrival: arrival)
                return true
            }
            try current.finish()
            previousAudioStreams.append(current.statistics)
            counters.audioSSRCChanges += 1
            audio = nil
        }
        let held = waiting ? takeover?.held ?? [] : []
        if waiting { takeover = nil } else { releaseTakeover() }
        // The stream begins at its first packet of an audio payload type (the others, events and
        // comfort noise, go on it).
        let first = held.first { audioFormat(of: $0.packet, at: destination) != nil }.map { ($0.packet, $0.arrival) } ?? (packet, arrival)
        guard let stream = try startAudio(first.0, source: source, destination: destination, arrival: first.1) else {
            for h in held { h.payload.withUnsafeBytes { noteOther(h.packet, payload: $0, source: source, destination: destination) } }
            noteOther(packet, payload: payload, source: source, destination: destination)
            return true
        }
        for h in held { try h.payload.withUnsafeBytes { try Self.feed(stream, h.packet, payload: $0, arrival: h.arrival) } }
        try Self.feed(stream, packet, payload: payload, arrival: arrival)
        return true
    }

    /// A packet of the audio stream, of its payload type or another on its SSRC (events, comfort noise).
    private static func feed(_ stream: AudioStream, _ packet: RTPPacket, payload: UnsafeRawBufferPointer, arrival: Int64) throws {
        if packet.payloadType == stream.payloadType {
            try stream.receive(packet, payload: payload, arrival: arrival)
        } else {
            try stream.receive(otherPayloadType: packet, payload: payload, arrival: arrival)
        }
    }

    private func audioFormat(of packet: RTPPacket, at destination: Endpoint?) -> MediaDescription.Format? {
        configuration.audio.format(payloadType: packet.payloadType, ssrc: packet.ssrc, port: destination?.port)
    }

    /// Holds a packet of another audio SSRC while the followed one talks: of the first such SSRC
    /// (any other is counted and dropped), what falls out of the hold counted too.
    private func hold(_ packet: RTPPacket, payload: UnsafeRawBufferPointer, source: Endpoint?, destination: Endpoint?, arrival: Int64) {
        if takeover == nil { takeover = AudioTakeover(ssrc: packet.ssrc, source: source, destination: destination) }
        guard takeover?.ssrc == packet.ssrc else {
            noteOther(packet, payload: payload, source: source, destination: destination)
            return
        }
        takeover!.hold(packet, payload: payload, arrival: arrival) { dropped in
            dropped.payload.withUnsafeBytes { noteOther(dropped.packet, payload: $0, source: source, destination: destination) }
        }
    }

    /// The packets held for a takeover that did not come, counted as another SSRC's.
    private func releaseTakeover() {
        guard let takeover else { return }
        self.takeover = nil
        for h in takeover.held {
            h.payload.withUnsafeBytes { noteOther(h.packet, payload: $0, source: takeover.source, destination: takeover.destination) }
        }
    }

    /// The audio stream of `packet`'s SSRC and payload type, or nil where its payload format
    /// cannot be set up (said once, in `unusableAudio`).
    private func startAudio(_ packet: RTPPacket, source: Endpoint?, destination: Endpoint?, arrival: Int64) throws -> AudioStream? {
        guard let rtpmap = audioFormat(of: packet, at: destination) else { return nil }
        let depacketizer: (any AudioDepacketizer)?
        do {
            depacketizer = try AudioFormats.depacketizer(for: rtpmap, maxFrameBytes: configuration.audio.maxFrameBytes)
        } catch {
            if unusableAudio[packet.ssrc] == nil && unusableAudio.count < 16 { unusableAudio[packet.ssrc] = "\(error)" }
            return nil
        }
        guard let depacketizer else { return nil }
        let format = AudioPayloadFormat(ssrc: packet.ssrc, depacketizer: depacketizer)
        var streamConfiguration = configuration.stream
        // Audio frames are copied out of their packets: nothing is borrowed.
        streamConfiguration.borrowsPayloads = false
        let stream = AudioStream(ssrc: packet.ssrc, payloadType: packet.payloadType, arrival: arrival, format: format,
                                 configuration: streamConfiguration)
        stream.setEndpoints(source: source, destination: destination)
        if let early = unclaimedReports.removeValue(forKey: packet.ssrc) {
            stream.noteSenderReport(early.report, arrival: early.arrival)
        }
        format.output = { [unowned(unsafe) self, unowned(unsafe) stream] record, frame in
            var record = record
            record.retransmittedPackets = stream.takeRetransmitted(first: record.firstSequenceNumber, last: record.lastSequenceNumber)
            if var frame {
                frame.time = self.clock.time(ssrc: frame.record.ssrc, ticks: frame.pts, clockRate: frame.track.clockRate,
                                             arrival: frame.arrival, backIsJump: true)
                try self.sink.write(audio: frame)
            }
            _ = try self.sink.account(record)
        }
        let selection = configuration.audio, port = destination?.port
        format.companion = { selection.companion(payloadType: $0, port: port) }
        format.telephoneEventOutput = { [unowned(unsafe) self] in try self.sink.write(telephoneEvent: $0) }
        stream.onNotice = { [unowned self] stream, notice in self.onNotice(stream.ssrc, notice) }
        audio = stream
        return stream
    }

    private func accepts(_ packet: RTPPacket) -> Bool {
        if let ssrc = configuration.ssrc, packet.ssrc != ssrc { return false }
        if let pt = configuration.payloadType {
            return packet.payloadType == pt || configuration.videoFormatParameters[packet.payloadType] != nil
        }
        // H.264 and H.265 have no static payload type (RFC 3551 §6): any type outside the static
        // range may carry them, 35 to 95 included (WebRTC stacks use those when 96 to 127 run out).
        // A static one where it is a registered codec's (JPEG's 26), or the SDP names one for it.
        return !StaticPayloadType.isStaticRange(packet.payloadType) || StaticPayloadType.videoCodec(packet.payloadType) != nil
            || configuration.videoFormatParameters[packet.payloadType] != nil
    }

    private func noteOther(_ packet: RTPPacket, payload: UnsafeRawBufferPointer, source: Endpoint?, destination: Endpoint?) {
        if configuration.ssrc != nil && packet.ssrc != configuration.ssrc { counters.otherSSRC += 1 } else {
            counters.otherPayloadType += 1
        }
        if otherStreams[packet.ssrc] == nil {
            guard otherStreams.count < 1024 else { return }
            var s = StreamStatistics(ssrc: packet.ssrc, payloadType: packet.payloadType)
            s.source = source
            s.destination = destination
            otherStreams[packet.ssrc] = s
        }
        otherStreams[packet.ssrc]!.packets += 1
        otherStreams[packet.ssrc]!.bytes += payload.count
    }

    /// `format`: the index in `configuration.formats` of the payload format the stream is tried as.
    private func candidate(for packet: RTPPacket, format index: Int, source: Endpoint?, destination: Endpoint?,
                           arrival: Int64) -> VideoStream? {
        // bounded: widenings, and an index of the registry (a handful)
        let key = UInt64(packet.ssrc) << 16 | UInt64(packet.payloadType) << 8 | UInt64(index)
        if let existing = candidates[key] { return existing }
        // The limit counts streams (SSRC and payload type), not the codecs each is tried as.
        let isTwin = candidates.keys.contains { $0 >> 8 == key >> 8 }
        if !isTwin && Set(candidates.keys.lazy.map { $0 >> 8 }).count >= configuration.maxStreams {
            // Make room by forgetting the stream silent longest, if it has been silent a while.
            guard let (_, stalest) = candidates.filter({ $0.value !== selected }).min(by: { $0.value.lastArrival < $1.value.lastArrival }),
                  arrival &- stalest.lastArrival > 2_000_000_000 else { return nil }
            retire(stalest)
            candidates = candidates.filter { $0.value.ssrc != stalest.ssrc || $0.value.payloadType != stalest.payloadType }
        }
        var video = configuration.video
        // The de-interleaving buffer waits for a missing unit as long as the reorder buffer waits for a packet.
        video.latencyNanoseconds = configuration.stream.reorder.latencyNanoseconds
        // The SDP's fmtp and parameter sets for the stream's payload type.
        let listed = configuration.videoFormatParameters[packet.payloadType]
        let format = configuration.formats[index].makeFormat(packet.ssrc, video, listed ?? configuration.formatParameters)
        if let listed {
            format.base.addParameterSets(listed.parameterSets)
        } else if configuration.payloadType.map({ $0 == packet.payloadType }) ?? true {
            format.base.addParameterSets(configuration.parameterSets)
        }
        let stream = VideoStream(ssrc: packet.ssrc, payloadType: packet.payloadType, arrival: arrival, format: format,
                                 configuration: configuration.stream)
        stream.setEndpoints(source: source, destination: destination)
        if let early = unclaimedReports.removeValue(forKey: packet.ssrc) {
            stream.noteSenderReport(early.report, arrival: early.arrival)
        }
        // The receiver owns its streams, and this runs once per access unit: no reference counting.
        format.output = { [unowned(unsafe) self, unowned(unsafe) stream] record, accessUnit in
            if self.isSelected(stream) { return try self.take(record, accessUnit, of: stream) }
            guard self.takesOver(stream) else { return false }
            // Selecting it here would finish the stream before from within this one's output.
            guard self.selected == nil else { return self.hold(record, accessUnit, of: stream) }
            try self.select(stream)
            return try self.take(record, accessUnit, of: stream)
        }
        stream.onNotice = { [unowned self] stream, notice in
            if stream === self.selected { self.onNotice(stream.ssrc, notice) }
        }
        candidates[key] = stream
        return stream
    }

    private func isConvincing(_ stream: VideoStream) -> Bool {
        // Ciphertext now and then parses as an SPS or slices: not convincing however it parses.
        let packets = stream.statistics.packets
        if packets >= 4 && VideoPayloadInvalid.looksEncrypted(stream.format.invalidPayload, packets: packets) { return false }
        // A static type names its codec as an SDP would.
        let named = configuration.payloadType != nil || configuration.ssrc != nil || StaticPayloadType.isStaticRange(stream.payloadType)
        return stream.format.provesCodec(given: named)
    }

    /// What the selected stream outputs: its record to the ledger, and its access unit (if written)
    /// to the sink on the session timeline, up to the frame limit; whether it was taken.
    private func take(_ record: FrameRecord, _ accessUnit: AccessUnit?, of stream: VideoStream) throws -> Bool {
        var record = record
        record.retransmittedPackets = stream.takeRetransmitted(first: record.firstSequenceNumber, last: record.lastSequenceNumber)
        if endsBeforeKeyframe && accessUnit?.isKeyframe == true { endedAtKeyframe = true }
        guard !isFull else { return false }
        if var accessUnit {
            (accessUnit.time, accessUnit.discontinuities) = clock.place(
                ssrc: stream.ssrc, ticks: accessUnit.pts, clockRate: stream.format.clockRate, arrival: accessUnit.arrival)
            try sink.write(accessUnit)
            framesWritten += 1
        }
        try sink.account(record)
        return true
    }

    /// Output of a stream taking over from a silent one, before the packet that proved it has gone
    /// through: held until `settle` finishes the stream before. Whether it will be taken: only the
    /// frames the stream before still holds may reach the frame limit first, and then the stream's
    /// tally takes back those it was told were taken.
    private func hold(_ record: FrameRecord, _ accessUnit: AccessUnit?, of stream: VideoStream) -> Bool {
        if heldOutput == nil { heldOutput = HeldOutput(stream: stream) }
        // Its first output is a keyframe, which ends a run that ends before one.
        let promised = !isFull && !endsBeforeKeyframe
        heldOutput?.hold(record, accessUnit, promised: promised)
        return promised
    }

    /// After a candidate's packet: the hand-over its output began, or its selection if it now convinces.
    private func settle(_ candidate: VideoStream) throws {
        if let held = heldOutput {
            heldOutput = nil
            try select(held.stream)
            try held.forEach { record, accessUnit, promised in
                if try !take(record, accessUnit, of: held.stream) && promised { held.stream.format.base.outputWithdrew(record) }
            }
        } else if selected !== candidate {
            try considerSelecting(candidate)
        }
    }

    private func considerSelecting(_ stream: VideoStream) throws {
        if takesOver(stream) { try select(stream) }
    }

    /// Whether `stream` proves its codec, and the selected one (if any) has been silent since it began.
    private func takesOver(_ stream: VideoStream) -> Bool {
        guard isConvincing(stream) else { return false }
        // Another sender while the selected one still talks is not a restart.
        return selected.map { $0.lastArrival < stream.firstArrival } ?? true
    }

    /// Selects `stream`, after finishing the one before, whose last frames are written first.
    private func select(_ stream: VideoStream) throws {
        if let current = selected {
            try current.finish()
            previousStreams.append(current.statistics)
            candidates = candidates.filter { $0.value !== current }
            counters.ssrcChanges += 1
        }
        selected = stream
        // Its twins tried as other codecs were wrong.
        candidates = candidates.filter { $0.value === stream || $0.value.ssrc != stream.ssrc || $0.value.payloadType != stream.payloadType }
        // What it said while only a candidate.
        for notice in stream.statistics.notices { onNotice(stream.ssrc, notice) }
    }

    private func retire(_ stream: VideoStream) {
        var s = stream.snapshot()
        s.packets = stream.statistics.packets
        if otherStreams.count < 1024 { otherStreams[s.ssrc] = s }
    }

    // MARK: What RTCP reports and asks for

    /// Where the video's sender reports come from: where RTCP back to it goes.
    public private(set) var senderReportSource: Endpoint?

    /// Report blocks (RFC 3550 §6.4.1) for the video stream (or, before one is selected, the first
    /// candidates) and the audio stream; each call starts their next interval.
    public func receptionReports(now: Int64) -> [ReceptionReport] {
        var ssrcs = Set<UInt32>()
        let video = selected.map { [$0] }
            ?? candidates.values.sorted { $0.firstArrival < $1.firstArrival }.filter { ssrcs.insert($0.ssrc).inserted }.prefix(4).map { $0 }
        return video.compactMap { $0.receptionReport(now: now) } + (audio?.receptionReport(now: now).map { [$0] } ?? [])
    }

    /// The video source to ask for a keyframe: the selected stream while its output waits for one,
    /// or, before any is selected (joining mid-GOP, with no SPS yet), the busiest candidate.
    public var keyframeRequestTarget: UInt32? {
        if let selected { return selected.format.wantsKeyframe ? selected.ssrc : nil }
        return candidates.values.max { $0.statistics.packets < $1.statistics.packets }?.ssrc
    }

    /// Ends the input: flushes the selected stream and accounts for the others.
    public func finish() throws {
        // Candidates still holding packets may prove themselves now, the earliest first.
        for stream in candidates.values.sorted(by: { $0.firstArrival < $1.firstArrival }) where stream !== selected {
            if selected == nil {
                try stream.finish()
                try considerSelecting(stream)
            }
        }
        try selected?.finish()
        try audio?.finish()
        releaseTakeover()
        // Of an SSRC's candidates (one per codec tried), the registry's first is kept, written last:
        // its payload checks (H.264's forbidden bit) are what tell ciphertext from the rest.
        for (_, stream) in candidates.sorted(by: { $0.key > $1.key }) where stream !== selected {
            otherStreams[stream.ssrc] = stream.snapshot()
        }
        candidates.removeAll()
    }

    /// Whether a stream that `tick` moves on waits on time (`RTPStream.isWaiting`): live, the loop
    /// then turns often whatever comes; otherwise a packet is what it waits for. (A candidate not
    /// yet selected moves on with packets alone.)
    public var isWaiting: Bool { selected?.isWaiting == true || audio?.isWaiting == true }

    /// Time passes with no packet (live input): lets the reorder buffer give up on gaps.
    public func tick(now: Int64) throws {
        try selected?.drain(now: now)
        try audio?.drain(now: now)
    }
}

/// The candidates of one SSRC, one per codec tried: what its RTCP says goes to each.
private final class CandidateTwins: RTCPReceiving {
    let streams: [VideoStream]
    init(streams: [VideoStream]) { self.streams = streams }
    func noteSenderReport(_ report: RTCPPacket.SenderReport, arrival: Int64, outcome: MediaClock.ReportOutcome) {
        for s in streams { s.noteSenderReport(report, arrival: arrival, outcome: outcome) }
    }
    func noteCNAME(_ cname: String) { for s in streams { s.noteCNAME(cname) } }
    func noteGoodbye() { for s in streams { s.noteGoodbye() } }
}
