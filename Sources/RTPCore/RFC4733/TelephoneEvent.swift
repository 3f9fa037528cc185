/// An RFC 4733 §2.3 telephone-event payload: the event (0-9, *, #, A-D, flash, and tones beyond),
/// the end bit, the volume in -dBm0 and the duration so far in timestamp units. One event lasts as
/// long as packets share its RTP timestamp; its end is sent three times (§2.5.1.4).
public struct TelephoneEvent: Equatable, Sendable {
    public var event: UInt8
    public var end: Bool
    /// 0 to 63: the power level in -dBm0 (0 the loudest).
    public var volume: UInt8
    public var duration: UInt16

    public static let payloadSize = 4

    /// Nil unless the payload holds one event: 4 bytes (or more, of which the first 4 are read)
    /// with the reserved bit clear.
    public init?(payload: UnsafeRawBufferPointer) {
        guard payload.count >= Self.payloadSize, payload[1] & 0x40 == 0 else { return nil }
        event = payload[0]
        end = payload[1] & 0x80 != 0
        volume = payload[1] & 0x3F
        // bounded: bytes widened.
        duration = UInt16(payload[2]) << 8 | UInt16(payload[3])
    }

    public init(event: UInt8, end: Bool, volume: UInt8, duration: UInt16) {
        (self.event, self.end, self.volume, self.duration) = (event, end, volume & 0x3F, duration)
    }

    /// The DTMF name of events 0 to 16 (§3.2), else the event number.
    public static func name(_ event: UInt8) -> String {
        switch event {
        case 0...9: String(event)
        case 10: "*"
        case 11: "#"
        case 12...15: String(UnicodeScalar(UInt8(ascii: "A") + event - 12))
        case 16: "flash"
        default: "event \(event)"
        }
    }
}

/// The events of one stream, each told once: at its first end packet (the two retransmissions that
/// follow are not new events), or, when its end never came, when the next event starts or at the end.
public struct TelephoneEventTracker: Sendable {
    public struct Event: Equatable, Sendable {
        public var timestamp: UInt32
        public var event: UInt8
        public var volume: UInt8
        /// The longest duration seen, in timestamp units.
        public var duration: UInt16
        /// Its end packet came.
        public var ended: Bool
        public var name: String { TelephoneEvent.name(event) }
    }

    /// The event whose end has not come yet.
    private var current: Event?
    /// The timestamp of the last event told, whose late packets are not a new event.
    private var lastTold: UInt32?

    public init() {}

    /// Gives `told` each event this packet finishes: the open one when a new one starts (its end
    /// was lost), and this one at its first end packet.
    public mutating func add(_ packet: TelephoneEvent, timestamp: UInt32, _ told: (Event) throws -> Void) rethrows {
        guard timestamp != lastTold else { return }
        if let open = current, open.timestamp != timestamp {
            current = nil
            lastTold = open.timestamp
            try told(open)
        }
        var event = current ?? Event(timestamp: timestamp, event: packet.event, volume: packet.volume, duration: 0, ended: false)
        event.duration = max(event.duration, packet.duration)
        guard packet.end else {
            current = event
            return
        }
        event.ended = true
        current = nil
        lastTold = timestamp
        try told(event)
    }

    /// The event still open at the end of the stream.
    public mutating func finish() -> Event? {
        defer { current = nil }
        return current
    }
}

/// One telephone event as the frame ledger and the statistics tell it.
public struct TelephoneEventRecord: Sendable, Equatable {
    public var ssrc: UInt32
    public var event: TelephoneEventTracker.Event
    public var durationMilliseconds: Int64
    /// Its start from the stream's first frame, as the frames' `presentationMilliseconds`.
    public var presentationMilliseconds: Int64
}
