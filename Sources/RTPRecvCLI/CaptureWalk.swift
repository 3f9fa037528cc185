import PcapInput
import RTPCore

/// Opens a capture for reading, with a one-line error naming the file. `writable`: its records are
/// changed in place (decrypted), so it is read into buffers rather than mapped.
func openCapture(_ path: String, writable: Bool = false) throws -> CaptureFile {
    let capture: CaptureFile
    do {
        capture = try CaptureFile(path: path, mapped: !writable)
    } catch let error as CaptureFile.OpenError {
        throw RunError(description: error.description)
    }
    guard capture.linkType != nil else {
        throw RunError(description: "\(capture.path): unsupported link type \(capture.linkTypeValue)")
    }
    return capture
}

/// Hands on every UDP datagram of `capture` while `proceed` says so, counting the frames that are
/// not one in `skipped`. Returns why the walk ended early, for a capture cut short or damaged.
func forEachDatagram(in capture: CaptureFile, skipped: inout [FrameSkip: Int], while proceed: () -> Bool = { true },
                     _ body: (CaptureFile.Record, UDPDatagram) throws -> Void) throws -> String? {
    let linkType = capture.linkType!
    while proceed() {
        switch capture.next() {
        case .record(let record):
            let datagram: UDPDatagram
            do {
                datagram = try FrameDecoder.udpDatagram(linkType: linkType, frame: record.bytes,
                                                        originalLength: record.originalLength)
            } catch {
                skipped[error, default: 0] += 1
                continue
            }
            try body(record, datagram)
        case .end:
            return nil
        case .truncated(let offset, let message):
            return "capture truncated at byte \(offset) (\(message))"
        case .failed(let offset, let message):
            return "capture damaged at byte \(offset) (\(message))"
        }
    }
    return nil
}
