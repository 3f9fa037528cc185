/// The VP8 payload descriptor that begins every RTP payload (RFC 7741 §4.2):
///
///          0 1 2 3 4 5 6 7
///         +-+-+-+-+-+-+-+-+
///         |X|R|N|S|R| PID | (REQUIRED)
///         +-+-+-+-+-+-+-+-+
///    X:   |I|L|T|K| RSV   | (OPTIONAL)
///         +-+-+-+-+-+-+-+-+
///    I:   |M| PictureID   | (OPTIONAL)
///         +-+-+-+-+-+-+-+-+
///         |   PictureID   | (when M: 15 bits)
///         +-+-+-+-+-+-+-+-+
///    L:   |   TL0PICIDX   | (OPTIONAL)
///         +-+-+-+-+-+-+-+-+
///    T/K: |TID|Y| KEYIDX  | (OPTIONAL)
///         +-+-+-+-+-+-+-+-+
///
/// The R bits are reserved and ignored, as the RFC says a receiver must.
public struct VP8PayloadDescriptor: Sendable, Equatable {
    /// N: nothing refers to this frame; dropping it damages no other.
    public var nonReference: Bool
    /// S: this packet begins a VP8 partition.
    public var startOfPartition: Bool
    /// PID: the partition the packet's first byte belongs to.
    public var partitionIndex: Int
    /// The PictureID (I), with its width: 7 or 15 bits.
    public var pictureID: Int?
    public var pictureIDBits = 0
    /// TL0PICIDX (L): the running index of the base-layer frames.
    public var tl0PictureIndex: Int?
    /// TID (T): the temporal layer, 0 the base.
    public var temporalLayer: Int?
    /// Y: the frame refers to base-layer frames only.
    public var layerSync = false
    /// KEYIDX (K): the running index of keyframes.
    public var keyIndex: Int?
    /// Bytes the descriptor takes; the VP8 data follows.
    public var size: Int

    /// A frame begins with the packet that starts partition 0.
    public var beginsFrame: Bool { startOfPartition && partitionIndex == 0 }

    /// The descriptor at the start of `payload`, or nil when it runs past it.
    public init?(_ payload: UnsafeRawBufferPointer) {
        guard let first = payload.first else { return nil }
        nonReference = first & 0x20 != 0
        startOfPartition = first & 0x10 != 0
        partitionIndex = Int(first & 0x07)  // bounded: three bits
        size = 1
        guard first & 0x80 != 0 else { return }
        guard payload.count > 1 else { return nil }
        let extensions = payload[1]
        size = 2
        if extensions & 0x80 != 0 {
            guard payload.count > size else { return nil }
            if payload[size] & 0x80 != 0 {
                guard payload.count > size + 1 else { return nil }
                // bounded: widenings of bytes
                pictureID = Int(payload[size] & 0x7f) << 8 | Int(payload[size + 1])
                (pictureIDBits, size) = (15, size + 2)
            } else {
                pictureID = Int(payload[size])  // bounded: a byte
                (pictureIDBits, size) = (7, size + 1)
            }
        }
        if extensions & 0x40 != 0 {
            guard payload.count > size else { return nil }
            tl0PictureIndex = Int(payload[size])  // bounded: a byte
            size += 1
        }
        if extensions & 0x30 != 0 {
            guard payload.count > size else { return nil }
            let byte = payload[size]
            if extensions & 0x20 != 0 {
                temporalLayer = Int(byte >> 6)  // bounded: two bits
                layerSync = byte & 0x20 != 0
            }
            if extensions & 0x10 != 0 { keyIndex = Int(byte & 0x1f) }  // bounded: five bits
            size += 1
        }
    }

    /// Frames from `earlier`'s picture to this one's, when both carry a PictureID of the same width.
    public func pictureDistance(from earlier: VP8PayloadDescriptor) -> Int? {
        guard let id = pictureID, let before = earlier.pictureID, pictureIDBits == earlier.pictureIDBits else { return nil }
        return (id - before) & ((1 << pictureIDBits) - 1)
    }
}
