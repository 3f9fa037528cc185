/// SRTP's authentication tag (RFC 3711 §4.2: 4 or 10 bytes of HMAC-SHA1; 16 with AES-GCM, RFC 7714)
/// found on the payloads of a stream read without its key. Audio of a constant rate shows it: each
/// packet holds the same few bytes more than the step to the next packet's timestamp lasts, where
/// plain G.711, G.722 or linear PCM holds exactly as many samples as the step. (Its ciphertext looks
/// like any audio.) Fed each packet in turn; `tagBytes` once eight packets in a row have shown it.
public struct AuthenticationTagTrail: Sendable {
    /// Bytes of the codec's smallest whole unit, and the clock ticks it lasts.
    private let unit: (bytes: Int64, ticks: Int64)
    private var last: (timestamp: Int64, sequenceNumber: Int64, bytes: Int64)?
    /// The extra bytes of the packets so far in a row that had them, and how many there were.
    private var run: (bytes: Int, packets: Int) = (0, 0)
    /// The tag's length, once seen in `packetsToProve` packets in a row.
    public private(set) var tagBytes: Int?
    public static let tagLengths = [4, 10, 16]
    static let packetsToProve = 8

    /// `unit`: the codec's smallest whole unit, in bytes, and the clock ticks it lasts.
    public init(unit: (bytes: Int, ticks: Int)) {
        self.unit = (Int64(max(1, unit.bytes)), Int64(max(1, unit.ticks)))  // bounded: widened
    }

    /// A packet of `bytes` payload bytes, with its (extended) timestamp and sequence number.
    public mutating func add(bytes: Int, timestamp: Int64, sequenceNumber: Int64) {
        defer { last = (timestamp, sequenceNumber, Int64(bytes)) }  // bounded: widened
        guard tagBytes == nil, let last, sequenceNumber == last.sequenceNumber &+ 1 else { return }
        // A silence makes a step longer than its packet, never a tag's few bytes shorter.
        let step = timestamp.subtractingSaturated(last.timestamp)
        guard step > 0, step <= 1 << 20, step % unit.ticks == 0 else {
            run = (0, 0)
            return
        }
        let extra = last.bytes.subtractingSaturated((step / unit.ticks).multipliedSaturated(by: unit.bytes))
        guard let tag = Self.tagLengths.first(where: { Int64($0) == extra }),  // bounded: widened
              run.packets == 0 || run.bytes == tag else {
            run = (0, 0)
            return
        }
        run = (tag, run.packets + 1)
        if run.packets >= Self.packetsToProve { tagBytes = tag }
    }
}
