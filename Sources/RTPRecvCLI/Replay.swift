import PcapInput
import RTPCore
import SystemIO

/// A runtime failure: what it names and why. `rtprecv` prints it and exits 1.
public struct RunError: Error, CustomStringConvertible {
    public var description: String
}

/// Replays a capture through the receiver into the outputs.
struct Replay {
    let options: Options

    func run() throws -> Int32 {
        let capture = try openCapture()
        var configuration = options.receiverConfiguration
        if let sdpPath = options.sdp {
            let sdp = try loadSDP(sdpPath)
            configuration.parameterSets = sdp.parameterSets
            configuration.payloadType = configuration.payloadType ?? sdp.payloadType
            configuration.destinationPort = configuration.destinationPort ?? sdp.port
            configuration.stream.clockRate = sdp.clockRate
        }
        let output: OutputFile?
        do {
            output = try options.out.map(OutputFile.init(path:))
        } catch let error as SystemError {
            throw RunError(description: "cannot open output \(error)")
        }
        let sink = AnnexBSink(file: output)
        let receiver = Receiver(configuration: configuration, sink: sink)
        var skipped: [FrameSkip: Int] = [:]
        var records = 0
        var truncation: String?
        let progress = Progress(enabled: !options.quiet && Terminal.isTerminal(2), total: capture.fileSize)

        do {
            loop: while true {
                switch capture.next() {
                case .record(let record):
                    records += 1
                    do {
                        let datagram = try FrameDecoder.udpDatagram(
                            linkType: capture.linkType!, frame: record.bytes, originalLength: record.originalLength)
                        try receiver.receive(datagram: record.bytes.view(datagram.payloadRange),
                                             source: datagram.source, destination: datagram.destination,
                                             arrival: record.time)
                    } catch let skip as FrameSkip {
                        skipped[skip, default: 0] += 1
                    }
                    if records & 0xFFF == 0 {
                        progress.update(done: capture.offset,
                                        frames: receiver.selected?.statistics.accessUnitsWritten ?? 0)
                    }
                case .end:
                    break loop
                case .truncated(let offset, let message):
                    truncation = "capture truncated at byte \(offset) (\(message)); kept everything before it"
                    break loop
                case .failed(let offset, let message):
                    truncation = "capture damaged at byte \(offset) (\(message)); kept everything before it"
                    break loop
                }
            }
            try receiver.finish()
            try output?.close()
        } catch let error as SystemError {
            progress.clear()
            if error.isBrokenPipe {
                throw RunError(description: "\(error.subject) was closed by its reader (broken pipe)")
            }
            throw RunError(description: "cannot write \(error)")
        }
        progress.clear()

        let report = Report(capturePath: capture.path, records: records, skipped: skipped,
                            receiver: receiver, truncation: truncation, bytesWritten: sink.bytesWritten)
        if let truncation, !options.quiet { Terminal.printError("warning: \(capture.path): \(truncation)\n") }
        if !options.quiet { Terminal.printError(report.text(verbose: options.verbose)) }
        if let path = options.statsJSON { try writeJSON(report.json(), to: path) }
        return 0
    }

    private func openCapture() throws -> CaptureFile {
        let capture: CaptureFile
        do {
            capture = try CaptureFile(path: options.pcap!)
        } catch let error as CaptureFile.OpenError {
            throw RunError(description: error.description)
        }
        guard capture.linkType != nil else {
            throw RunError(description: "\(capture.path): unsupported link type \(capture.linkTypeValue)")
        }
        return capture
    }

    private func loadSDP(_ path: String) throws -> SessionDescription {
        let text: String
        do {
            text = try Terminal.readFile(path)
        } catch let error as SystemError {
            throw RunError(description: "cannot read SDP \(error)")
        }
        do {
            let sdp = try SessionDescription(parsing: text)
            if !options.quiet {
                for warning in sdp.warnings { Terminal.printError("warning: \(path): \(warning)\n") }
            }
            return sdp
        } catch {
            throw RunError(description: "\(path): not a usable SDP: \(error)")
        }
    }
}

func writeJSON(_ text: String, to path: String) throws {
    do {
        let file = try OutputFile(path: path)
        try file.write(text)
        try file.close()
    } catch let error as SystemError {
        throw RunError(description: "cannot write statistics \(error)")
    }
}

/// A one-line status on a terminal, at most four times a second.
final class Progress {
    private let enabled: Bool
    private let total: Int64
    private var last: Int64 = 0
    private var shown = false

    init(enabled: Bool, total: Int64) {
        self.enabled = enabled
        self.total = total
    }

    func update(done: Int64, frames: Int) {
        guard enabled else { return }
        let now = Terminal.monotonicNanoseconds()
        guard now - last >= 250_000_000 else { return }
        last = now
        let percent = total > 0 ? Int(done * 100 / total) : 0
        Terminal.printError("\rreading: \(percent)% (\(done >> 20) MiB), \(frames) frames written\u{1B}[K")
        shown = true
    }

    func clear() {
        if shown { Terminal.printError("\r\u{1B}[K") }
        shown = false
    }
}
