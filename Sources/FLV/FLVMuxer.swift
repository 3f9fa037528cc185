import RTPCore

/// Writes access units as an FLV stream (Adobe FLV v10.1): header, onMetaData, AVC sequence headers,
/// NALU tags with 4-byte lengths, and an end-of-sequence tag.
///
/// Tag times are decode times in milliseconds from the first access unit: RTP gives the presentation
/// time, so `DecodeTimestamps` derives the decode time with a look-ahead of the SPS's reorder depth,
/// and the composition time is their difference.
///
/// A frame too large for a tag (DataSize is 24 bits: 16 MiB) is dropped and counted, and the frames
/// that refer to it with it, up to the next keyframe, unless `keepAfterLoss`.
public final class FLVMuxer {
    public struct Configuration: Sendable {
        public var clockRate = 90000
        /// After a loss, write the frames before the next keyframe anyway (players smear them).
        public var keepAfterLoss = false
        /// A presentation-time step larger than this (either way) is a sender restart or a jump:
        /// the timeline continues from the last frame instead.
        public var maxTimestampJumpMilliseconds: Int64 = 5000

        public init() {}
    }

    public struct Statistics: Sendable {
        public var framesWritten = 0
        public var keyframesWritten = 0
        public var sequenceHeaders = 0
        public var droppedAfterLoss = 0
        public var droppedBeforeKeyframe = 0
        /// Frames larger than a tag can carry, dropped.
        public var droppedTooLarge = 0
        public var timestampJumps = 0
        public var bytesWritten = 0
        public var width = 0
        public var height = 0
        public var durationMilliseconds: Int64 = 0
    }

    /// A metadata value to rewrite once the file is complete, at a byte offset from its start.
    public struct Patch {
        public var offset: Int
        public var bytes: [UInt8]
    }

    public let configuration: Configuration
    public private(set) var statistics = Statistics()

    private struct Pending {
        var payload: [UInt8]
        var pts: Int64
        var keyframe: Bool
    }

    private var writer = ByteWriter()
    private var queue: [Pending] = []
    private var freeBuffers: [[UInt8]] = []
    private var timestamps = DecodeTimestamps(reorderDepth: 0)
    private var record: AVCDecoderConfigurationRecord?
    private var started = false
    private var metadataOffsets: [String: Int] = [:]
    private var framerate: Double = 0
    // The timeline, on the RTP clock: presentation times shifted past jumps, and the first decode time.
    private var lastInputPTS: Int64?
    private var lastPTS: Int64 = 0
    private var frameDuration: Int64 = 3000
    private var shift: Int64 = 0
    private var base: Int64?
    private var lastDTS: Int64 = Int64.min
    private var lastTagTime: UInt32 = 0
    /// A frame was dropped for its size: the ones that refer to it go too, up to a keyframe.
    private var awaitingKeyframe = false
    private var maxPTSMilliseconds: Int64 = 0
    private var gathered: [UInt8] = []

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        writer.bytes.reserveCapacity(1 << 20)
    }

    // MARK: Access units

    /// Adds one access unit; `emit` receives the bytes of every tag that became ready.
    public func write(_ accessUnit: AccessUnit, emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        let pts = timeline(accessUnit.pts)
        if accessUnit.followsLoss && !configuration.keepAfterLoss {
            statistics.droppedAfterLoss += 1
            return
        }
        var sps: [[UInt8]] = [], pps: [[UInt8]] = []
        var payload = freeBuffers.popLast() ?? []
        payload.removeAll(keepingCapacity: true)
        accessUnit.withContiguousBytes(scratch: &gathered) { bytes in
            forEachNALUnit(bytes) { nal in
                switch nalUnitType(nal[0]) {
                case NALUnitType.sps: sps.append(Array(nal))
                case NALUnitType.pps: pps.append(Array(nal))
                case NALUnitType.accessUnitDelimiter: break
                default:
                    let n = UInt32(nal.count)
                    payload.append(contentsOf: [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)])
                    payload.append(contentsOf: nal)
                }
            }
        }
        if accessUnit.isKeyframe, let newRecord = AVCDecoderConfigurationRecord(sps: sps, pps: pps), newRecord != record {
            // Frames queued for their decode times belong to the old sequence: out with them first.
            try flushQueue(emit)
            try startSequence(newRecord, emit: emit)
        }
        guard started else {
            statistics.droppedBeforeKeyframe += 1
            freeBuffers.append(payload)
            return
        }
        timestamps.add(pts: pts)
        queue.append(Pending(payload: payload, pts: pts, keyframe: accessUnit.isKeyframe))
        if queue.count > timestamps.lookAhead { try emitOldest(emit) }
    }

    /// Flushes the frames held for their decode times and writes the end-of-sequence tag.
    public func finish(emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        try flushQueue(emit)
        guard started else { return }
        writer.bytes.removeAll(keepingCapacity: true)
        writeTagHeader(.video, dataSize: FLVLayout.avcVideoHeaderSize, time: lastTagTime)
        writer.u8(FLVVideoFrameType.keyframe.rawValue << 4 | FLVVideoCodecID.avc)
        writer.u8(AVCPacketType.endOfSequence.rawValue)
        writer.u24(0)
        try finishTag(emit)
        statistics.durationMilliseconds = maxPTSMilliseconds + frameDuration * 1000 / Int64(configuration.clockRate)
    }

    /// The onMetaData values only known at the end: rewrite them where the output can seek.
    public func metadataPatches() -> [Patch] {
        let seconds = Double(statistics.durationMilliseconds) / 1000
        var values: [String: Double] = ["duration": seconds, "filesize": Double(statistics.bytesWritten)]
        if seconds > 0 {
            if framerate == 0 { values["framerate"] = Double(statistics.framesWritten) / seconds }
            values["videodatarate"] = Double(statistics.bytesWritten) * 8 / seconds / 1000
        }
        return values.compactMap { key, value in
            guard let offset = metadataOffsets[key] else { return nil }
            var w = ByteWriter()
            AMF0.numberBits(value, into: &w)
            return Patch(offset: offset, bytes: w.bytes)
        }
    }

    // MARK: Timeline

    private func timeline(_ input: Int64) -> Int64 {
        defer { lastInputPTS = input }
        guard let previous = lastInputPTS else { return input }
        let step = input &- previous
        let limit = configuration.maxTimestampJumpMilliseconds * Int64(configuration.clockRate) / 1000
        if step > limit || step < -limit {
            // Continue one frame after the last picture, whatever the sender's clock did.
            shift = lastPTS + frameDuration - input
            statistics.timestampJumps += 1
        } else if step > 0 {
            frameDuration = step
        }
        lastPTS = max(lastPTS, input + shift)
        return input + shift
    }

    private func milliseconds(_ ticks: Int64) -> Int64 {
        (ticks - (base ?? ticks)) * 1000 / Int64(configuration.clockRate)
    }

    // MARK: Tags

    private func startSequence(_ newRecord: AVCDecoderConfigurationRecord, emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        let sps = newRecord.sequenceParameterSets[0].withUnsafeBytes { SequenceParameterSet(nal: $0) }!
        // With the reorder depth the SPS announces (or, unannounced, none for Baseline and up to
        // the reference count otherwise), decode times can be derived.
        let depth = Int(sps.maxNumReorderFrames ?? (sps.profileIdc == 66 ? 0 : min(sps.maxNumRefFrames, 4)))
        timestamps = DecodeTimestamps(reorderDepth: depth)
        if !started {
            started = true
            framerate = sps.frameRate ?? 0
            statistics.width = sps.width
            statistics.height = sps.height
            try writeHeaderAndMetadata(width: sps.width, height: sps.height, emit: emit)
        }
        record = newRecord
        writer.bytes.removeAll(keepingCapacity: true)
        writeTagHeader(.video, dataSize: 0, time: lastTagTime)
        writer.u8(FLVVideoFrameType.keyframe.rawValue << 4 | FLVVideoCodecID.avc)
        writer.u8(AVCPacketType.sequenceHeader.rawValue)
        writer.u24(0)
        newRecord.write(to: &writer)
        writer.put24(UInt32(writer.bytes.count - FLVLayout.tagHeaderSize), at: 1)
        try finishTag(emit)
        statistics.sequenceHeaders += 1
    }

    private func writeHeaderAndMetadata(width: Int, height: Int, emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        writer.bytes.removeAll(keepingCapacity: true)
        writer.append(Array("FLV".utf8))
        writer.u8(1)
        writer.u8(FLVHeaderFlags.video)
        writer.u32(UInt32(FLVLayout.headerSize))
        writer.u32(0)  // PreviousTagSize0
        try emitWriter(emit)

        writer.bytes.removeAll(keepingCapacity: true)
        writeTagHeader(.script, dataSize: 0, time: 0)
        AMF0.string("onMetaData", into: &writer)
        let fields: [(String, Double)] = [
            ("duration", 0), ("width", Double(width)), ("height", Double(height)), ("framerate", framerate),
            ("videocodecid", Double(FLVVideoCodecID.avc)), ("videodatarate", 0), ("filesize", 0),
        ]
        writer.u8(AMF0Marker.ecmaArray)
        writer.u32(UInt32(fields.count))
        for (key, value) in fields {
            AMF0.shortString(key, into: &writer)
            writer.u8(AMF0Marker.number)
            metadataOffsets[key] = statistics.bytesWritten + writer.bytes.count
            AMF0.numberBits(value, into: &writer)
        }
        writer.append(AMF0Marker.objectEnd)
        writer.put24(UInt32(writer.bytes.count - FLVLayout.tagHeaderSize), at: 1)
        try finishTag(emit)
    }

    private func emitOldest(_ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        let frame = queue.removeFirst()
        var dts = timestamps.next(pts: frame.pts)
        if dts < lastDTS { dts = lastDTS }
        lastDTS = dts
        if base == nil { base = dts }
        let dtsMilliseconds = milliseconds(dts), ptsMilliseconds = milliseconds(frame.pts)
        maxPTSMilliseconds = max(maxPTSMilliseconds, ptsMilliseconds)
        let time = UInt32(truncatingIfNeeded: max(0, dtsMilliseconds))
        defer { freeBuffers.append(frame.payload) }
        if frame.keyframe { awaitingKeyframe = false }
        guard FLVLayout.avcVideoHeaderSize + frame.payload.count <= FLVLayout.maxDataSize else {
            statistics.droppedTooLarge += 1
            awaitingKeyframe = !configuration.keepAfterLoss
            return
        }
        if awaitingKeyframe {
            statistics.droppedAfterLoss += 1
            return
        }
        writer.bytes.removeAll(keepingCapacity: true)
        writeTagHeader(.video, dataSize: FLVLayout.avcVideoHeaderSize + frame.payload.count, time: time)
        let type: FLVVideoFrameType = frame.keyframe ? .keyframe : .interFrame
        writer.u8(type.rawValue << 4 | FLVVideoCodecID.avc)
        writer.u8(AVCPacketType.nalu.rawValue)
        // Composition time: signed 24 bits, never negative here since DTS <= PTS.
        writer.u24(UInt32(clamping: min(max(ptsMilliseconds - dtsMilliseconds, 0), 0x7FFFFF)))
        writer.append(frame.payload)
        try finishTag(emit)
        lastTagTime = time
        statistics.framesWritten += 1
        if frame.keyframe { statistics.keyframesWritten += 1 }
    }

    private func flushQueue(_ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        while !queue.isEmpty { try emitOldest(emit) }
    }

    private func writeTagHeader(_ type: FLVTagType, dataSize: Int, time: UInt32) {
        precondition(dataSize <= FLVLayout.maxDataSize, "a tag's DataSize is 24 bits")
        writer.u8(type.rawValue)
        writer.u24(UInt32(dataSize))
        writer.u24(time & 0xFF_FFFF)
        writer.u8(UInt8(time >> 24 & 0xFF))  // TimestampExtended: the high 8 bits
        writer.u24(0)  // StreamID
    }

    /// Appends PreviousTagSize and hands the tag on.
    private func finishTag(_ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        writer.u32(UInt32(writer.bytes.count))
        try emitWriter(emit)
    }

    private func emitWriter(_ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        try writer.bytes.withUnsafeBytes { try emit($0) }
        statistics.bytesWritten += writer.bytes.count
    }
}

/// Calls `body` with each NAL unit of an Annex-B buffer (start codes of 3 or 4 bytes).
func forEachNALUnit(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
    var i = 0, start = -1
    let n = bytes.count
    while i + 2 < n {
        if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 {
            if start >= 0 {
                var end = i
                if end > start && bytes[end - 1] == 0 { end -= 1 }  // the 4th byte of a long start code
                if end > start { body(bytes.view(start..<end)) }
            }
            i += 3
            start = i
        } else {
            i += 1
        }
    }
    if start >= 0 && start < n { body(bytes.view(start..<n)) }
}
