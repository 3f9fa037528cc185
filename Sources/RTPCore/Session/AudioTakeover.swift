import NetworkAddress

/// The packets of an audio SSRC that came while the followed one was still talking: a second
/// sender, or the same phone under a new SSRC (a transfer, a re-INVITE), which takes over once the
/// followed one has been silent a second. Held rather than dropped, so that a taking-over SSRC
/// loses none of its first second; copied, since they outlive their datagrams. Only the last
/// `window` of arrivals is kept, and at most `maxPackets` and `maxBytes`: what falls out is given
/// back to be counted as ignored, as it would have been without the hold.
struct AudioTakeover {
    struct Held {
        var packet: RTPPacket
        var payload: [UInt8]
        var arrival: Int64
    }

    let ssrc: UInt32
    let source: Endpoint?
    let destination: Endpoint?
    private(set) var held: [Held] = []
    private var bytes = 0
    static let window: Int64 = 2_000_000_000
    static let maxPackets = 1024
    static let maxBytes = 1 << 20

    init(ssrc: UInt32, source: Endpoint?, destination: Endpoint?) {
        (self.ssrc, self.source, self.destination) = (ssrc, source, destination)
    }

    /// Holds `packet`; `dropped` gets each held packet that no longer fits, oldest first.
    mutating func hold(_ packet: RTPPacket, payload: UnsafeRawBufferPointer, arrival: Int64, dropped: (Held) -> Void) {
        held.append(Held(packet: packet, payload: Array(payload), arrival: arrival))
        bytes += payload.count
        var first = 0
        while first < held.count, held.count - first > Self.maxPackets || bytes > Self.maxBytes
                || arrival &- held[first].arrival > Self.window {
            bytes -= held[first].payload.count
            dropped(held[first])
            first += 1
        }
        held.removeFirst(first)
    }
}
