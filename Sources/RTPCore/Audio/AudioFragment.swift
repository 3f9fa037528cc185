/// An audio frame that comes in pieces over several packets sharing its timestamp (an AAC AU in
/// RFC 3640 fragments, an MPEG audio frame in RFC 2250 fragments, a LATM audioMuxElement): its bytes
/// so far, and the packets they came in. A frame that loses a piece is dropped whole.
struct AudioFragment {
    private(set) var bytes: [UInt8] = []
    private(set) var timestamp: Int64 = 0
    private(set) var firstPacket: Int64 = 0
    private(set) var lastPacket: Int64 = 0
    private(set) var isOpen = false

    mutating func start(_ data: UnsafeRawBufferPointer, timestamp: Int64, packet: Int64) {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: data)
        self.timestamp = timestamp
        firstPacket = packet
        lastPacket = packet
        isOpen = true
    }

    mutating func append(_ data: UnsafeRawBufferPointer, packet: Int64) {
        bytes.append(contentsOf: data)
        lastPacket = packet
    }

    /// The frame is whole: it leaves through `body`.
    mutating func finish<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        isOpen = false
        let whole = bytes
        return try whole.withUnsafeBytes(body)
    }

    /// The frame lost a piece (or never finished): it is dropped, and said.
    mutating func drop(into output: AudioUnitOutput, reason: FrameRecord.Reason, missing: Int) throws {
        isOpen = false
        try output.dropped(timestamp: timestamp, reason: reason, bytes: bytes.count, firstSequenceNumber: firstPacket,
                           lastSequenceNumber: lastPacket, missingPackets: missing)
    }
}
