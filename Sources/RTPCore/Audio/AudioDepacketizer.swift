/// What every audio payload format does: RTP payloads in sequence order in, audio frames out.
/// One type per RFC conforms; `AudioPayloadFormat` drives it and does the bookkeeping they share.
public protocol AudioDepacketizer {
    /// The track as far as the format knows it (MPEG audio learns rate and channels from frames).
    var track: AudioTrack { get }
    /// `timestamp` is the packet's, extended; `lostBefore` counts packets missing just before it.
    mutating func process(payload: UnsafeRawBufferPointer, timestamp: Int64, marker: Bool, lostBefore: Int,
                          sequenceNumber: Int64, into output: AudioUnitOutput) throws
    /// The stream ends: a frame in progress is incomplete.
    mutating func flush(into output: AudioUnitOutput) throws
}

/// Where a depacketizer puts what it finds.
public protocol AudioUnitOutput: AnyObject {
    /// A whole frame of `track`: `bytes` valid during the call. `firstSequenceNumber` is the first packet's.
    func unit(_ track: AudioTrack, timestamp: Int64, duration: Int64, bytes: UnsafeRawBufferPointer, firstSequenceNumber: Int64,
              lastSequenceNumber: Int64) throws
    /// A frame lost in part, dropped whole.
    func dropped(timestamp: Int64, reason: FrameRecord.Reason, bytes: Int, firstSequenceNumber: Int64,
                 lastSequenceNumber: Int64, missingPackets: Int) throws
    /// A payload that breaks the format, skipped.
    func invalid(_ reason: AudioPayloadInvalid)
    /// Something the stream does that the depacketizer works around, said once.
    func notice(_ notice: StreamNotice)
}

extension AudioUnitOutput {
    public func notice(_ notice: StreamNotice) {}
}

/// Why an audio payload was skipped, by format.
public enum AudioPayloadInvalid: String, CaseIterable, Sendable {
    case empty = "empty payload"
    case shortHeader = "payload shorter than its header"
    case auHeadersOverrun = "AU headers run past the payload (RFC 3640)"
    case accessUnitOverrun = "access unit runs past the payload"
    case fragmentMismatch = "fragment that does not continue the unit in progress"
    case streamMuxConfig = "StreamMuxConfig that cannot be read (RFC 6416)"
    case noStreamMuxConfig = "LATM frame before any StreamMuxConfig (cpresent=1 and none yet)"
    case mpegAudioHeader = "no MPEG audio frame header where one is due (RFC 2250)"
    case oversize = "frame over the maximum size"
}
