import PcapInput
import RTPCore
import SystemIO

/// Replays a capture through the receiver into the outputs.
struct Replay {
    let options: Options

    func run() throws -> Int32 {
        let capture = try openCapture(options.pcap!)
        let session = try Session(options: options, borrowsPayloads: capture.canKeepRecords)
        if capture.canKeepRecords { capture.keepRecords { [receiver = session.receiver] in receiver.refers(to: $0) } }
        let receiver = session.receiver
        var skipped: [FrameSkip: Int] = [:]
        var records = 0
        var damage: String?
        let progress = Progress(enabled: !options.quiet && Terminal.isTerminal(2))

        try session.writing {
            loop: while !session.sink.isFull {
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
                    if records & 0xFFF == 0 && progress.due(now: Terminal.monotonicNanoseconds()) {
                        let percent = capture.fileSize > 0 ? Int(capture.offset * 100 / capture.fileSize) : 0
                        progress.show("reading: \(percent)% (\(capture.offset >> 20) MiB), \(session.sink.accessUnitsWritten) frames written")
                    }
                case .end:
                    break loop
                case .truncated(let offset, let message):
                    damage = "capture truncated at byte \(offset) (\(message)); kept everything before it"
                    break loop
                case .failed(let offset, let message):
                    damage = "capture damaged at byte \(offset) (\(message)); kept everything before it"
                    break loop
                }
            }
        }
        progress.clear()
        try session.finish()
        let datagrams = receiver.counters.datagrams
        var summary = "\(capture.path): \(records) records, \(datagrams) UDP datagrams"
        let skippedTotal = skipped.values.reduce(0, +)
        if skippedTotal > 0 {
            summary += "\n  skipped    \(skippedTotal) frames: " + Report.describe(skipped.map { ($0.key.rawValue, $0.value) })
        }
        try session.report(Report.Input(
            summary: summary, warning: damage.map { "\(capture.path): \($0)" },
            json: [("capture", .string(capture.path)), ("records", .int(records)),
                   ("skipped_frames", .object(skipped.map { ($0.key.rawValue, .int($0.value)) })),
                   ("truncated", damage.map(JSON.string) ?? .null)]))
        return 0
    }
}

func openCapture(_ path: String) throws -> CaptureFile {
    let capture: CaptureFile
    do {
        capture = try CaptureFile(path: path)
    } catch let error as CaptureFile.OpenError {
        throw RunError(description: error.description)
    }
    guard capture.linkType != nil else {
        throw RunError(description: "\(capture.path): unsupported link type \(capture.linkTypeValue)")
    }
    return capture
}
