import RTPCore
import SystemIO

/// What a replay or a live run drives: the one run that follows the stream rtprecv selects, or,
/// with `--all-streams`, one run per stream.
protocol Recording: AnyObject {
    func receive(datagram: UnsafeRawBufferPointer, source: Endpoint?, destination: Endpoint?, arrival: Int64) throws
    /// Whether output in progress refers to bytes in `memory` (a capture's buffers).
    func refers(to memory: UnsafeRawBufferPointer) -> Bool
    func stopReferring(to memory: UnsafeRawBufferPointer)
    /// False once the outputs take no more (`--frames`) or one failed (an RTMP server went away).
    var takesMore: Bool { get }
    var framesWritten: Int { get }
    func writing(_ body: () throws -> Void) throws
    func finish() throws
    func report(_ input: Report.Input) throws
    var failure: String? { get }
    /// Live: time passes with no packet.
    func tick(now: Int64) throws
    /// SIGHUP: the outputs reopen at their paths.
    func reopen() throws
    /// Datagrams taken in, and Annex-B bytes written.
    var datagrams: Int { get }
    var bytesWritten: Int { get }
    /// Every stream followed, with its medium ("video" or "audio") and last arrival: for the metrics.
    func forEachStream(_ body: (StreamStatistics, String, Int64) -> Void)
}

/// `--all-streams`: every SSRC on a dynamic payload type, on each port, gets a `Run` of its own,
/// whose outputs are named from the options' paths with `{ssrc}`, `{pt}`, `{port}` and `{src}`
/// filled in. Each run selects only its SSRC, so each stream's reordering, repair and ledger are its
/// own; RTCP goes to every run, and each takes what concerns its stream. At most `--max-streams`
/// runs; the streams after them are counted. A run whose stream never proved to be video leaves no files behind. A
/// stream whose outputs fail (cannot be opened, a full disk, a directory gone) is stopped and said
/// at once, and the others go on; the run then ends with exit status 1.
final class StreamFanOut: Recording {
    private let options: Options
    private let sdp: SessionDescription?
    private let borrowsPayloads: Bool
    /// A stream: an SSRC on a port (each port's streams are independent, the same SSRC on two ports
    /// two streams).
    struct Key: Hashable, CustomStringConvertible {
        var port: UInt16
        var ssrc: UInt32
        var description: String { "\(hex(ssrc)) on port \(port)" }
    }

    private var runs: [Key: Run] = [:]
    private var order: [Key] = []
    /// Datagrams that are no RTP, or of static payload types (audio, which --all-streams leaves out).
    private(set) var datagramsNotTaken = 0
    private(set) var streamsOverLimit = 0
    private(set) var datagramCount = 0
    /// Streams stopped because their outputs failed, with why; their datagrams are dropped.
    private var failed: [Key: String] = [:]
    private var failedOrder: [Key] = []

    init(options: Options, sdp: SessionDescription?, borrowsPayloads: Bool) {
        self.options = options
        self.sdp = sdp
        self.borrowsPayloads = borrowsPayloads
    }

    /// The paths a run of stream `ssrc` writes to.
    static func options(_ options: Options, sdp: SessionDescription?, ssrc: UInt32, payloadType: UInt8, source: Endpoint?,
                        destination: Endpoint?) -> Options {
        var o = options
        o.ssrc = ssrc
        o.allStreams = false
        // Video only, for now: and the SDP's audio lines are not warned about once a stream.
        o.noAudio = true
        // The codec, where the SDP's rtpmap or --codec tells it; else the stream proves it.
        let codec = sdp?.videoCodecs[payloadType] ?? options.codec
        let fill = { (path: String?) in
            path.map { OutputTemplate.stream($0, ssrc: ssrc, payloadType: payloadType, port: destination?.port,
                                             source: source?.addressDescription, codec: codec) }
        }
        o.out = fill(o.out)
        o.flv = fill(o.flv)
        o.framesJSON = fill(o.framesJSON)
        o.yuv = fill(o.yuv)
        o.y4m = fill(o.y4m)
        o.frameMD5 = fill(o.frameMD5)
        // One statistics file for all, written here, unless each stream names its own.
        o.statsJSON = o.statsJSON.flatMap { OutputTemplate.namesStream($0) ? fill($0) : nil }
        return o
    }

    func receive(datagram: UnsafeRawBufferPointer, source: Endpoint?, destination: Endpoint?, arrival: Int64) throws {
        datagramCount += 1
        // A capture replayed with --port LOW-HIGH: only datagrams to those ports (live, the sockets are them).
        if let range = options.portRange, !options.isLive, let port = destination?.port, !range.contains(port) {
            datagramsNotTaken += 1
            return
        }
        if RTCP.isPacket(datagram) {
            for ssrc in order { try runs[ssrc]!.receive(datagram: datagram, source: source, destination: destination, arrival: arrival) }
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
        guard payloadType >= 96, !isAudio(payloadType) else {
            datagramsNotTaken += 1
            return
        }
        guard order.count < options.maxStreams else {
            streamsOverLimit += 1
            return
        }
        let streamOptions = Self.options(options, sdp: sdp, ssrc: ssrc, payloadType: payloadType, source: source, destination: destination)
        try isolating(key) {
            let run = try Run(options: streamOptions, sdp: sdp, security: nil, borrowsPayloads: borrowsPayloads)
            runs[key] = run
            order.append(key)
            try run.receive(datagram: datagram, source: source, destination: destination, arrival: arrival)
        }
    }

    /// Runs `body` for stream `ssrc`; an output of it that fails stops that stream alone.
    private func isolating(_ key: Key, _ body: () throws -> Void) throws {
        do {
            try Run.writing(body)
        } catch let error as RunError {
            stop(key, because: error.description)
        }
    }

    private func stop(_ key: Key, because why: String) {
        if let run = runs.removeValue(forKey: key) {
            order.removeAll { $0 == key }
            try? run.finish()
        }
        failed[key] = why
        failedOrder.append(key)
        if !options.quiet { Terminal.printError("error: stream \(key) stopped, the others go on: \(why)\n") }
    }

    private func isAudio(_ payloadType: UInt8) -> Bool {
        sdp?.media.contains { $0.media == "audio" && $0.payloadTypes.contains(payloadType) } ?? false
    }

    func refers(to memory: UnsafeRawBufferPointer) -> Bool { runs.values.contains { $0.refers(to: memory) } }
    func stopReferring(to memory: UnsafeRawBufferPointer) { for run in runs.values { run.stopReferring(to: memory) } }
    /// Each run stops at its own `--frames`; the replay goes on while any takes more.
    var takesMore: Bool { runs.isEmpty || runs.values.contains { $0.takesMore } }
    var framesWritten: Int { runs.values.reduce(0) { (total: Int, run: Run) in total + run.framesWritten } }
    /// Streams stop on their own; the run fails only at its end, once every other stream is written.
    var failure: String? { stopped }
    private var stopped: String?

    var datagrams: Int { datagramCount }
    func tick(now: Int64) throws { for ssrc in order { try runs[ssrc]!.tick(now: now) } }
    func reopen() throws { for ssrc in order { try runs[ssrc]!.reopen() } }
    var bytesWritten: Int { runs.values.reduce(0) { (total: Int, run: Run) in total + run.bytesWritten } }
    /// The runs following video, as many as there are streams.
    var videoStreams: Int { runs.values.filter { $0.followedVideo }.count }

    func forEachStream(_ body: (StreamStatistics, String, Int64) -> Void) {
        for ssrc in order { runs[ssrc]!.forEachStream(body) }
    }

    func writing(_ body: () throws -> Void) throws { try Run.writing(body) }

    func finish() throws {
        for ssrc in order {
            do {
                try runs[ssrc]!.finish()
            } catch let error as RunError {
                stop(ssrc, because: error.description)
            }
        }
        // What streams that never proved to be video opened, they leave empty: remove it.
        for ssrc in order where !runs[ssrc]!.followedVideo {
            let o = runs[ssrc]!.options
            for path in [o.out, o.flv, o.framesJSON, o.yuv, o.y4m, o.frameMD5, o.statsJSON].compactMap({ $0 }) where path != "-" {
                Terminal.removeIfEmpty(path)
            }
        }
    }

    /// Each video stream's report, then what was not taken; the statistics JSON, unless each
    /// stream writes its own, is an object with every stream's report in `streams`.
    func report(_ input: Report.Input) throws {
        let video = order.filter { runs[$0]!.followedVideo }
        if !options.quiet {
            if let warning = input.warning { Terminal.printError("warning: \(warning)\n") }
            Terminal.printError(input.summary + "\nall streams: \(video.count) video of \(order.count) streams followed"
                                + (failed.isEmpty ? "" : ", \(failed.count) stopped for their outputs")
                                + (streamsOverLimit > 0 ? ", \(streamsOverLimit) SSRCs over --max-streams" : "")
                                + (datagramsNotTaken > 0 ? ", \(datagramsNotTaken) datagrams of no stream taken" : "") + "\n")
        }
        var quiet = input
        quiet.warning = nil
        for (n, ssrc) in video.enumerated() {
            quiet.summary = "[\(n + 1)/\(video.count)] stream \(ssrc)"
            try runs[ssrc]!.report(quiet)
        }
        defer {
            if let first = failedOrder.first {
                let others = failedOrder.count > 1 ? " (and \(failedOrder.count - 1) more)" : ""
                stopped = "stream \(first): \(failed[first]!)\(others)"
            }
        }
        guard let path = options.statsJSON, !OutputTemplate.namesStream(path) else { return }
        let body = Report.allStreamsJSON(input, streams: video.map { runs[$0]!.statisticsJSON(input) },
                                         overLimit: streamsOverLimit, notTaken: datagramsNotTaken)
        do {
            let file = try OutputFile(path: path)
            try file.write(body)
            try file.close()
        } catch let error as SystemError {
            throw RunError(description: "cannot write statistics \(error)")
        }
    }
}


