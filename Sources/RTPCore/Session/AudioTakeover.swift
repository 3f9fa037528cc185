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
    /// The packets held, oldest first, from `head` on: those before it have fallen out, and are
    /// cleared away once there are `maxPackets` of them, so that a packet costs the same however
    /// fast a second sender sends.
    private var entries: [Held] = []
    private var head = 0
    private var bytes = 0
    static let window: Int64 = 2_000_000_000
    static let maxPackets = 1024
    static let maxBytes = 1 << 20

    init(ssrc: UInt32, source: Endpoint?, destination: Endpoint?) {
        (self.ssrc, self.source, self.destination) = (ssrc, source, destination)
    }

    var held: ArraySlice<Held> { entries[head...] }

    /// Holds `packet`; `dropped` gets each held packet that no longer fits, oldest first.
    mutating func hold(_ packet: RTPPacket, payload: UnsafeRawBufferPointer, arrival: Int64, dropped: (Held) -> Void) {
        entries.append(Held(packet: packet, payload: Array(payload), arrival: arrival))
        bytes += payload.count
        while head < entries.count, entries.count - head > Self.maxPackets || bytes > Self.maxBytes
                || arrival &- entries[head].arrival > Self.window {
            bytes -= entries[head].payload.count
            dropped(entries[head])
            entries[head].payload = []
            head += 1
        }
        if head >= Self.maxPackets {
            entries.removeFirst(head)
            head = 0
        }
    }
}
