import RTPCore
import SystemIO

/// `--all-streams`: every SSRC on a dynamic payload type, on each port, gets a `Run` of its own,
/// whose outputs are named from the options' paths with `{ssrc}`, `{pt}`, `{port}`, `{src}` and
/// `{codec}` filled in. Each run selects only its SSRC, so each stream's reordering, repair and
/// ledger are its own; RTCP goes to every run, and each takes what concerns its stream. With
/// `--audio` or `--wav`, an audio stream (a static payload type, or the SDP's audio line) gets a run
/// of its own too, into those files alone. At most `--max-streams` runs; the streams after them are
/// counted. A run whose stream never proved to be video or audio leaves no files behind.
final class StreamFanOut: FanOut<StreamFanOut.Key> {
    private let sdp: SessionDescription?
    private let borrowsPayloads: Bool
    /// A stream: an SSRC on a port (each port's streams are independent, the same SSRC on two ports
    /// two streams).
    struct Key: Hashable, CustomStringConvertible {
        var port: UInt16
        var ssrc: UInt32
        var description: String { "\(hex(ssrc)) on port \(port)" }
    }

    private(set) var streamsOverLimit = 0

    init(options: Options, sdp: SessionDescription?, borrowsPayloads: Bool) {
        self.sdp = sdp
        self.borrowsPayloads = borrowsPayloads
        super.init(options: options, noun: "stream", sharesReport: options.report.map { !OutputTemplate.namesStream($0) } ?? false)
    }

    /// The paths a run of stream `ssrc` writes to.
    static func options(_ options: Options, sdp: SessionDescription?, ssrc: UInt32, payloadType: UInt8, source: Endpoint?,
                        destination: Endpoint?, audio: Bool) -> Options {
        var o = options
        o.allStreams = false
        if audio {
            // Its audio files alone: a video output of an audio stream would stay empty.
            (o.audioSSRC, o.audioPayloadType) = (ssrc, payloadType)
            for output in Options.fileOutputs where output.media == .video { o[keyPath: output.path] = nil }
            o.decode = false
        } else {
            o.ssrc = ssrc
            // The SDP's audio lines are not warned about once a stream.
            o.noAudio = true
            for output in Options.fileOutputs where output.media == .audio { o[keyPath: output.path] = nil }
        }
        // The codec, where the SDP's rtpmap or --codec tells it; else the stream proves it.
        let codec = sdp?.videoCodecs[payloadType] ?? options.codec
        let fill = { (path: String) in
            OutputTemplate.stream(path, ssrc: ssrc, payloadType: payloadType, port: destination?.port,
                                  source: source?.addressDescription, codec: codec)
        }
        o.renameFileOutputs(fill)
        // One statistics file for all, written here, unless each stream names its own.
        o.statsJSON = o.statsJSON.flatMap { OutputTemplate.namesStream($0) ? fill($0) : nil }
        o.report = o.report.flatMap { OutputTemplate.namesStream($0) ? fill($0) : nil }
        return o
    }

    override func receive(datagram: UnsafeRawBufferPointer, source: Endpoint?, destination: Endpoint?, arrival: Int64,
                          rtcpOnly: Bool) throws {
        datagramCount += 1
        // A capture replayed with --port LOW-HIGH: only datagrams to those ports (live, the sockets are them).
        if let range = options.portRange, !options.isLive, let port = destination?.port, !range.contains(port) {
            datagramsNotTaken += 1
            return
        }
        let isRTCP = RTCP.isPacket(datagram)
        if rtcpOnly && !isRTCP {
            datagramsNotTaken += 1
            return
        }
        if isRTCP {
            for key in order { try runs[key]!.receive(datagram: datagram, source: source, destination: destination, arrival: arrival) }
            return
        }
        guard datagram.count >= RTPPacket.fixedHeaderSize, datagram[0] >> 6 == 2 else {
            datagramsNotTaken += 1
            return
        }
        let ssrc = datagram.loadUnaligned(fromByteOffset: 8, as: UInt32.self).bigEndian
        let key = Key(port: destination?.port ?? 0, ssrc: ssrc)
        if let run = runs[key] {
            return try isolating(key) { try run.receive(datagram: datagram, source: source, destination: destination, arrival: arrival) }
        }
        guard failed[key] == nil else {
            datagramsNotTaken += 1
            return
        }
        let payloadType = datagram[1] & 0x7F
        let audio = isAudio(payloadType)
        // An SSRC is one stream whatever payload types it switches between: one that was audio stays
        // audio, and its telephone events or comfort noise never start a video run.
        guard !audioNotTaken.contains(key),
              audio ? options.audio != nil || options.wav != nil
                    : !StaticPayloadType.isStaticRange(payloadType) || StaticPayloadType.videoCodec(payloadType) != nil else {
            if audio && audioNotTaken.count < Self.maxAudioNotTaken { audioNotTaken.insert(key) }
            datagramsNotTaken += 1
            rtpNotTaken += 1
            return
        }
        guard order.count < options.maxStreams else {
            streamsOverLimit += 1
            rtpNotTaken += 1
            return
        }
        let streamOptions = Self.options(options, sdp: sdp, ssrc: ssrc, payloadType: payloadType, source: source,
                                         destination: destination, audio: audio)
        // SRTP: each stream its own decryptor, with every key (the header routing it is in the clear).
        let make = { [sdp, borrowsPayloads, options] in
            let security = try Security.decryptor(options: streamOptions, sdp: sdp, inCapture: !options.isLive)
            return try Run(options: streamOptions, sdp: sdp, security: security, borrowsPayloads: borrowsPayloads, timeline: self.timeline)
        }
        try add(key, make) {
            try $0.receive(datagram: datagram, source: source, destination: destination, arrival: arrival)
        }
    }

    /// Audio streams that no output asked for, remembered (up to a bound) so that their other
    /// payload types are not taken for video.
    private var audioNotTaken: Set<Key> = []
    static let maxAudioNotTaken = 4096

    /// The SDP's audio line's payload types, or without an SDP the static ones rtprecv takes.
    private func isAudio(_ payloadType: UInt8) -> Bool {
        guard let sdp else { return AudioSelection.staticTypes.contains { $0.rawValue == payloadType } }
        return sdp.media.contains { $0.media == "audio" && $0.payloadTypes.contains(payloadType) }
    }

    /// RTP that no run took (an audio stream not asked for, an SSRC over --max-streams) was RTP too.
    override var rtpPackets: Int { super.rtpPackets + rtpNotTaken }
    private var rtpNotTaken = 0

    /// The runs following video, as many as there are streams.
    var videoStreams: Int { runs.values.filter { $0.followedVideo }.count }

    override func finish() throws {
        try super.finish()
        // What streams that never proved to be video or audio opened, they leave empty: remove it.
        for key in order where !recorded(key) {
            for file in runs[key]!.sink.files { Terminal.removeIfEmpty(file.path) }
        }
    }

    private func recorded(_ key: Key) -> Bool { runs[key]!.followedVideo || runs[key]!.followedAudio }

    /// Each video and audio stream's report, then what was not taken; the statistics JSON, unless
    /// each stream writes its own, is an object with every stream's report in `all_streams`.
    override func report(_ input: Report.Input) throws {
        let video = order.filter { runs[$0]!.followedVideo }
        let recorded = order.filter(recorded)
        if !options.quiet {
            if let warning = input.warning { Terminal.printError("warning: \(warning)\n") }
            let audio = recorded.count - video.count
            Terminal.printError(input.summary + "\nall streams: \(video.count) video "
                                + (audio > 0 ? "and \(audio) audio " : "") + "of \(order.count) streams followed"
                                + (failed.isEmpty ? "" : ", \(failed.count) stopped for their outputs")
                                + (streamsOverLimit > 0 ? ", \(streamsOverLimit) SSRCs over --max-streams" : "")
                                + (datagramsNotTaken > 0 ? ", \(datagramsNotTaken) datagrams of no stream taken" : "") + "\n")
        }
        try reportRuns(recorded, input)
        try writeReport(input, keys: recorded)
        guard let path = options.statsJSON, !OutputTemplate.namesStream(path) else { return }
        try writeStatistics(path, input, field: "all_streams", keys: recorded,
                            extra: [("streams_over_limit", streamsOverLimit), ("datagrams_not_taken", datagramsNotTaken)])
    }
}
