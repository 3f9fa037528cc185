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

/// A packet of the capture: a UDP datagram's payload, or an RTP/RTCP packet deframed from a
/// reassembled TCP stream (`channel`: its interleaved channel; 0 with RFC 4571 framing).
struct CapturedPacket {
    var time: Int64
    /// Valid during the call that hands it on.
    var bytes: UnsafeRawBufferPointer
    var source: Endpoint
    var destination: Endpoint
    var channel: UInt8?
}

/// Hands on every UDP datagram of `capture`, and every packet carried in TCP (`tcp`), while
/// `proceed` says so, counting the frames that are neither in `skipped`. `releasing(memory)` is
/// called before a TCP stream's buffer, which packets handed on view into, is reused. Returns why
/// the walk ended early, for a capture cut short or damaged.
func forEachDatagram(in capture: CaptureFile, skipped: inout [FrameSkip: Int], tcp: inout InterleavedCapture,
                     releasing: (UnsafeRawBufferPointer) -> Void = { _ in }, while proceed: () -> Bool = { true },
                     message: (RTSPMessage, Endpoint, Endpoint) throws -> Void = { _, _, _ in },
                     _ body: (CapturedPacket) throws -> Void) throws -> String? {
    let linkType = capture.linkType!
    var time: Int64 = 0
    let packet = { (bytes: UnsafeRawBufferPointer, source: Endpoint, destination: Endpoint, channel: UInt8) throws in
        try body(CapturedPacket(time: time, bytes: bytes, source: source, destination: destination, channel: channel))
    }
    while proceed() {
        switch capture.next() {
        case .record(let record):
            let datagram: UDPDatagram
            do {
                datagram = try FrameDecoder.udpDatagram(linkType: linkType, frame: record.bytes,
                                                        originalLength: record.originalLength)
            } catch .notUDP {
                guard let segment = try? FrameDecoder.tcpSegment(linkType: linkType, frame: record.bytes,
                                                                 originalLength: record.originalLength) else {
                    skipped[.notUDP, default: 0] += 1
                    continue
                }
                time = record.time
                try tcp.segment(segment, payload: record.bytes.view(segment.payloadRange), time: record.time, releasing: releasing,
                                packet: packet, message: message)
                continue
            } catch {
                skipped[error, default: 0] += 1
                continue
            }
            try body(CapturedPacket(time: record.time, bytes: record.bytes.view(datagram.payloadRange),
                                    source: datagram.source, destination: datagram.destination, channel: nil))
        case .end:
            try tcp.finish(releasing: releasing, packet: packet, message: message)
            return nil
        case .truncated(let offset, let message):
            return "capture truncated at byte \(offset) (\(message))"
        case .failed(let offset, let message):
            return "capture damaged at byte \(offset) (\(message))"
        }
    }
    return nil
}

/// Without `--sdp`: the session description the capture's own signalling carries (an RTSP
/// DESCRIBE reply, SIP offers and answers), from a first look at its start: until an RTSP PLAY or
/// a SIP answer, or 16 MiB, or 2000 packets with no signalling before them. Nil for standard
/// input, which cannot be read twice.
func signalledSessionDescription(_ options: Options) throws -> (description: SessionDescription, origin: String)? {
    guard let path = options.pcap, path != "-" else { return nil }
    let capture = try openCapture(path)
    var signalling = CapturedSignalling()
    var tcp = InterleavedCapture(framing: options.tcpFraming)
    var skipped: [FrameSkip: Int] = [:]
    // Signalling comes before its media: 2000 packets with none before them end the look too.
    var packets = 0
    _ = try forEachDatagram(in: capture, skipped: &skipped, tcp: &tcp,
                            while: { capture.offset < 16 << 20 && !signalling.sawPlay && !signalling.sawSIPAnswer
                                && (packets < 2000 || signalling.sessionDescription != nil) },
                            message: { m, source, destination in signalling.message(m, from: source, to: destination) }) { p in
        packets += 1
        if p.channel == nil { signalling.datagram(p.bytes, from: p.source) }
    }
    return signalling.sessionDescription.map { ($0, signalling.origins.joined(separator: "; ")) }
}
