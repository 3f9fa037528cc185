/// A whole access unit as it leaves the receiver, with the ledger's record of it. For H.264 and H.265:
/// Annex-B bytes with 4-byte start codes, preceded by its parameter sets when it is a keyframe.
public struct AccessUnit {
    /// What the frame ledger says of it (status written or repaired).
    public var record: FrameRecord
    /// Presentation time on the stream's clock (90 kHz): the RTP timestamp extended to 64 bits, so it
    /// never wraps, or a time of its own where the sender's timestamps stood still.
    public var pts: Int64
    /// The bytes, in order, in one piece or several (payloads referenced where they lie, and
    /// parameter sets put in front of a keyframe). Valid only during the `AccessUnitSink.write` call.
    public var pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>
    public var isIDR: Bool
    /// Frames per second from the SPS VUI, when signalled.
    public var frameRate: (numerator: Int, denominator: Int)?
    /// The picture size a keyframe's header gives, where the codec's frames carry it (VP8).
    public var pictureSize: (width: Int, height: Int)?
    /// When the packet that completed it arrived, on the packet clock (for latency figures).
    public var arrival: Int64 = 0
    /// Its presentation time on the session timeline (`MediaClock`), in nanoseconds; nil outside a
    /// session (a unit made by hand), where sinks time it from `pts`.
    public var time: Int64?
    /// How many jumps of its stream's timestamps the session timeline has bridged so far (`MediaClock`):
    /// where it changes, the times go on but the sender's clock began anew, and a recording's
    /// segment ends.
    public var discontinuities = 0
    /// The codec, which says how the bytes read (for H.264 and H.265: NAL units behind start codes).
    public var codec: VideoCodec
    /// Where its NAL units lie, for H.264 and H.265 as the receiver hands them on: the offset of each
    /// one's start code, in order, each running to the next (the last to the end), so that a sink
    /// need not look for start codes. Empty for other codecs and for a unit made by hand.
    public var nalUnitOffsets = UnsafeBufferPointer<Int>(start: nil, count: 0)

    public init(record: FrameRecord, pts: Int64, pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>, isIDR: Bool,
                frameRate: (numerator: Int, denominator: Int)? = nil, arrival: Int64 = 0, codec: VideoCodec) {
        self.codec = codec
        self.record = record
        self.pts = pts
        self.pieces = pieces
        self.isIDR = isIDR
        self.frameRate = frameRate
        self.arrival = arrival
    }

    /// An access unit made up by hand (tests, fuzzing): one written record around `pieces`.
    public init(timestamp: UInt32, pts: Int64, pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>, isKeyframe: Bool,
                referencesIntact: Bool = true, frameRate: (numerator: Int, denominator: Int)? = nil,
                codec: VideoCodec = .h264) {
        let bytes = pieces.reduce(0) { $0 + $1.count }
        self.init(record: FrameRecord(ssrc: 0, timestamp: timestamp, firstSequenceNumber: 0, lastSequenceNumber: 0,
                                      packets: 1, bytes: bytes, isKeyframe: isKeyframe, status: .written,
                                      referencesIntact: referencesIntact, presentationMilliseconds: pts / 90),
                  pts: pts, pieces: pieces, isIDR: isKeyframe, frameRate: frameRate, codec: codec)
    }

    public var timestamp: UInt32 { record.timestamp }
    public var byteCount: Int { record.bytes }
    public var isKeyframe: Bool { record.isKeyframe }
    /// A picture it may refer to was lost: it decodes, but perhaps not as sent.
    public var followsLoss: Bool { !record.referencesIntact }

    /// Calls `body` with the bytes in one piece, gathered into `scratch` when they are in several.
    public func withContiguousBytes<R>(scratch: inout [UInt8], _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if pieces.count == 1 { return try body(pieces[0]) }
        scratch.removeAll(keepingCapacity: true)
        for piece in pieces { scratch.append(contentsOf: piece) }
        return try scratch.withUnsafeBytes(body)
    }

    /// Its bytes in an array of their own, copied once, to keep past the `write` call.
    public func copiedBytes() -> [UInt8] {
        let count = pieces.reduce(0) { $0 + $1.count }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var at = 0
            for piece in pieces where !piece.isEmpty {
                UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[at...])).copyMemory(from: piece)
                at += piece.count
            }
            initialized = count
        }
    }
}

/// Where access units go: a file, a decoder, a muxer, the frame ledger.
/// A sink takes what the frame gate decided and the receiver let through (the selected stream, up
/// to the frame limit); it decides nothing that the receive path reads back.
public protocol AccessUnitSink: AnyObject {
    func write(_ accessUnit: AccessUnit) throws
    /// What became of an access unit: called for every one from the stream's first keyframe on, in
    /// decoding order, after `write` for those written.
    func account(_ record: FrameRecord) throws
    /// An audio frame of the session's audio stream, with its ledger record passed to `account`.
    func write(audio frame: AudioFrame) throws
    /// A telephone event (RFC 4733) beside the audio stream, once, as it ends.
    func write(telephoneEvent: TelephoneEventRecord) throws
}

extension AccessUnitSink {
    public func account(_ record: FrameRecord) throws {}
    public func write(audio frame: AudioFrame) throws {}
    public func write(telephoneEvent: TelephoneEventRecord) throws {}
}
