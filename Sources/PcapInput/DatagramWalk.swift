import RTPCore

/// A packet of the capture: a UDP datagram's payload, or an RTP/RTCP packet deframed from a
/// reassembled TCP stream (`channel`: its interleaved channel; 0 with RFC 4571 framing).
public struct CapturedPacket {
    public var time: Int64
    /// Valid during the call that hands it on.
    public var bytes: UnsafeRawBufferPointer
    public var source: Endpoint
    public var destination: Endpoint
    public var channel: UInt8?
}

extension CaptureFile {
    /// Hands on every UDP datagram of the capture, and every packet carried in TCP (`tcp`), while
    /// `body` returns true (and `proceed`, asked before each record, when given), counting the
    /// frames that are neither in `skipped`. `releasing(memory)` is called before a TCP stream's
    /// buffer, which packets handed on view into, is reused. Returns why the walk ended early, for
    /// a capture cut short or damaged.
    public func forEachDatagram(skipped: inout [FrameSkip: Int], tcp: inout InterleavedCapture,
                                releasing: (UnsafeRawBufferPointer) -> Void = { _ in }, while proceed: (() -> Bool)? = nil,
                                message: (RTSPMessage, Endpoint, Endpoint) throws -> Void = { _, _, _ in },
                                _ body: (CapturedPacket) throws -> Bool) throws -> String? {
        let linkType = self.linkType!
        var time: Int64 = 0
        var goesOn = true
        // What TCP carries goes on one packet after another, whatever `body` says between them.
        func packet(_ bytes: UnsafeRawBufferPointer, _ source: Endpoint, _ destination: Endpoint, _ channel: UInt8) throws {
            guard goesOn else { return }
            goesOn = try body(CapturedPacket(time: time, bytes: bytes, source: source, destination: destination, channel: channel))
        }
        let ended = try forEachRecord { record in
            if let proceed, !proceed() { return false }
            let datagram: UDPDatagram
            do throws(FrameSkip) {
                datagram = try LinkFrameDecoder.udpDatagram(linkType: linkType, frame: record.bytes,
                                                        originalLength: record.originalLength)
            } catch .notUDP {
                guard let segment = try? LinkFrameDecoder.tcpSegment(linkType: linkType, frame: record.bytes,
                                                                 originalLength: record.originalLength) else {
                    skipped[.notUDP, default: 0] += 1
                    return true
                }
                time = record.time
                try tcp.segment(segment, payload: record.bytes.view(segment.payloadRange), time: record.time, releasing: releasing,
                                packet: packet, message: message)
                return goesOn
            } catch {
                skipped[error, default: 0] += 1
                return true
            }
            return try body(CapturedPacket(time: record.time, bytes: record.bytes.view(datagram.payloadRange),
                                           source: datagram.source, destination: datagram.destination, channel: nil))
        }
        if case .end = ended { try tcp.finish(releasing: releasing, packet: packet, message: message) }
        return ended?.damage
    }
}
