/// A payload format whose frames come whole from a first packet to a last, each packet opened by a
/// payload descriptor (VP8, VP9, AV1), with the codec's rules (`FramePayloadRules`) and the shared
/// verdicts on each frame.
///
/// A frame is the packets of one timestamp, from the one whose descriptor begins it to the one that
/// ends it (its descriptor, or the marker bit); a new timestamp with nothing lost also ends one whose
/// end did not come. The descriptors say which frames may refer to a lost one (`FrameReferences`),
/// and, through the PictureID, whether frames were lost whole between two that came. The frame's
/// bytes are views of the packets where their memory outlives the frame (a mapped capture), and
/// copies in a buffer kept for the next frame otherwise.
final class FramePayloadFormat<Rules: FramePayloadRules>: VideoPayloadFormat {
    typealias Descriptor = Rules.Descriptor

    var output: (FrameRecord, AccessUnit?) throws -> Bool {
        get { verdicts.emit }
        set { verdicts.emit = newValue }
    }
    var onNotice: (StreamNotice) -> Void {
        get { verdicts.onNotice }
        set { verdicts.onNotice = newValue }
    }
    let codec = Rules.codec
    let clockRate: Int
    private(set) var invalidPayload: [VideoPayloadInvalid: Int] = [:]
    private let verdicts: FrameVerdicts
    private let maxFrameBytes: Int

    /// The frame in progress: its first packet's descriptor, whether that packet began the frame,
    /// and whether its last packet came.
    private struct Frame {
        var timestamp: UInt32
        var descriptor: Descriptor
        var began: Bool
        var ended = false
        var damage: AccessUnitDamage?
        var packets = PacketSpan()

        mutating func damage(_ reason: FrameRecord.Reason, missing: Int = 0) {
            var d = damage ?? AccessUnitDamage()
            d.add(reason, missing: missing, beforeFirstSlice: false)
            damage = d
        }
    }
    private var frame: Frame?
    private let bytes: AccessUnitBuffer
    private var assembly = Rules.Assembly()
    /// The descriptor of the last frame's first packet.
    private var previous: Descriptor?
    private var references = Rules.References()
    /// The last keyframe's header: the stream's picture size and profile.
    private var keyframe: Rules.Header?
    /// Evidence that the stream carries the codec: frame headers that parse, and frames whose
    /// PictureIDs follow on.
    private var frameHeaders = 0
    private var followingPictureIDs = 0
    /// Packets of spatial layers above `maxSpatialLayer`, left out.
    private(set) var packetsNotTaken = 0
    private let maxSpatialLayer: Int?
    /// The picture size the descriptors last gave (VP9's scalability structure), for the layers kept.
    private var layerPictureSize: (width: Int, height: Int)?

    /// `assembly`: where the codec's assembly starts from something the SDP said (JPEG's picture size).
    init(ssrc: UInt32, configuration: VideoFormatConfiguration, assembly: Rules.Assembly = Rules.Assembly()) {
        self.assembly = assembly
        clockRate = configuration.clockRate
        maxFrameBytes = configuration.maxAccessUnitBytes
        maxSpatialLayer = configuration.maxSpatialLayer
        verdicts = FrameVerdicts(ssrc: ssrc, configuration: configuration)
        bytes = AccessUnitBuffer(capacity: min(maxFrameBytes, 1 << 16))
    }

    var wantsKeyframe: Bool { verdicts.wantsKeyframe }
    func outputWithdrew(_ record: FrameRecord) { verdicts.withdraw(record) }
    func addParameterSets(_ nalUnits: [[UInt8]]) {}

    /// A keyframe header that parses proves the codec; so do eight frames whose PictureIDs each follow
    /// the last one's, which no other payload does by chance; with the stream named, three frame
    /// headers where the codec's are evidence (not AV1's: OBUs read out of anything).
    func provesCodec(given: Bool) -> Bool {
        (keyframe != nil && (given || Rules.keyframeProvesCodec)) || followingPictureIDs >= 8
            || (given && Rules.Header.isEvidence && frameHeaders >= 3)
    }

    func accepts(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard let descriptor = Descriptor(payload), descriptor.size < payload.count else {
            invalidPayload[payload.isEmpty ? .empty : .tooShort, default: 0] += 1
            return false
        }
        if descriptor.beginsFrame, Rules.Header.contradicted(by: payload.view(descriptor.size..<payload.count)) {
            invalidPayload[.frameTag, default: 0] += 1
            return false
        }
        return true
    }

    func process(payload: UnsafeRawBufferPointer, headerExtension: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool,
                 lostBefore: Int, arrival: Int64, borrowing: Bool, sequenceNumber: Int64) throws {
        guard let descriptor = Descriptor(payload) else { return }
        if let layer = descriptor.spatialLayer, let maxSpatialLayer, layer > maxSpatialLayer {
            try leaveOut(timestamp: timestamp, marker: marker, lostBefore: lostBefore, arrival: arrival)
            return
        }
        var tailLost = false
        if let open = frame, open.timestamp != timestamp || descriptor.beginsFrame {
            // What was lost may have been this frame's end.
            tailLost = lostBefore > 0 && !open.ended
            if tailLost { frame?.damage(.missingPackets, missing: lostBefore) }
            try finish(arrival: arrival)
        }
        if frame == nil {
            // Packets lost before it that the last frame's end does not account for, where the codec
            // does not mark frame starts, may have held this one's, unless a header extension says not.
            let startMayBeLost = !Descriptor.marksFrameStarts && lostBefore > (tailLost ? 1 : 0)
                && !references.beginsFrame(descriptor, headerExtension: headerExtension)
            if lostBefore > 0 && framesLostWhole(before: descriptor, lost: lostBefore, tailLost: tailLost) { references.lostWhole() }
            frame = Frame(timestamp: timestamp, descriptor: descriptor, began: descriptor.mayBeginFrame && !startMayBeLost)
            if frame?.began == false { frame?.damage(lostBefore > 0 ? .missingPackets : .missingFragmentStart, missing: lostBefore) }
            assembly.begin(bytes)
        } else if lostBefore > 0 {
            frame?.damage(.missingPackets, missing: lostBefore)
        }
        append(payload.view(descriptor.size..<payload.count), of: descriptor, borrowing: borrowing)
        references.packet(of: descriptor, headerExtension: headerExtension)
        frame?.packets.add(sequenceNumber)
        if marker || descriptor.endsFrame {
            frame?.ended = true
            try finish(arrival: arrival)
        }
    }

    /// A packet of a spatial layer not kept: counted; what was lost before it may have been the
    /// picture's, and its marker still ends the picture.
    private func leaveOut(timestamp: UInt32, marker: Bool, lostBefore: Int, arrival: Int64) throws {
        packetsNotTaken += 1
        if lostBefore > 0 {
            if frame?.timestamp == timestamp { frame?.damage(.missingPackets, missing: lostBefore) } else { references.lostWhole() }
        }
        if marker, frame?.timestamp == timestamp {
            frame?.ended = true
            try finish(arrival: arrival)
        }
    }

    /// Whether the `lost` packets before a new frame held frames of their own: its PictureID says so;
    /// without one, they may have unless the last frame's end (`tailLost`, one at least) and the new
    /// frame's start (when it lacks it, one at least) account for them all.
    private func framesLostWhole(before descriptor: Descriptor, lost: Int, tailLost: Bool) -> Bool {
        guard let previous else { return false }
        if let distance = descriptor.pictureDistance(from: previous) { return distance != 1 }
        return lost > (tailLost ? 1 : 0) + (descriptor.mayBeginFrame ? 0 : 1)
    }

    private func append(_ data: UnsafeRawBufferPointer, of descriptor: Descriptor, borrowing: Bool) {
        // A reason given again changes nothing: the damage is a set of reasons.
        guard bytes.count <= maxFrameBytes - data.count else {
            frame?.damage(.overMaxFrameBytes)
            return
        }
        if let reason = assembly.append(data, of: descriptor, to: bytes, borrowing: borrowing) { frame?.damage(reason) }
    }

    /// The frame in progress is over: judged, and written or dropped.
    private func finish(arrival: Int64) throws {
        guard var f = frame else { return }
        if let reason = assembly.end(bytes) { f.damage(reason) }
        defer {
            frame = nil
            previous = f.descriptor
            bytes.removeAll()
        }
        let header = f.began ? Rules.header(of: bytes, assembly: assembly) : nil
        if header != nil { frameHeaders += 1 }
        if let previous, f.descriptor.pictureDistance(from: previous) == 1 { followingPictureIDs += 1 }
        let isKeyframe = header?.isKeyframe == true
        if isKeyframe {
            keyframe = header
            if let size = f.descriptor.pictureSize(upTo: maxSpatialLayer) { layerPictureSize = size }
        }
        references.observe(f.descriptor)
        let referencesIntact = isKeyframe || references.intact(f.descriptor)
        let pts = verdicts.presentationTime(timestamp: f.timestamp, arrival: arrival, isIDR: isKeyframe, newPicture: true) { nil }
        // A frame that lost a packet cannot be mended: it has nothing like parameter sets to put back.
        var facts = FrameVerdicts.Facts(timestamp: f.timestamp, packets: f.packets, bytes: bytes.count, isKeyframe: isKeyframe,
                                        damage: f.damage, pts: pts, slicesBeginPicture: false, slicesNameParameterSets: false,
                                        slicesHaveParameterSets: true, referencesIntact: referencesIntact)
        facts.isDiscardable = references.isDiscardable(f.descriptor)
        switch try verdicts.judge(facts) {
        case .notWritten(let harmless):
            if !harmless { references.lost(f.descriptor) }
        case .toWrite(let record):
            try write(record, pts: pts, header: isKeyframe ? header : nil, arrival: arrival, referencesIntact: referencesIntact)
            references.wrote(f.descriptor, isKeyframe: isKeyframe, referencesIntact: referencesIntact)
        }
    }

    private func write(_ record: FrameRecord, pts: Int64, header: Rules.Header?, arrival: Int64, referencesIntact: Bool) throws {
        try bytes.withPieces(upTo: bytes.count) { pieces in
            var accessUnit = AccessUnit(record: record, pts: pts, pieces: pieces, isIDR: header != nil, arrival: arrival, codec: codec)
            accessUnit.pictureSize = header.flatMap { layerPictureSize ?? $0.pictureSize }
            guard try verdicts.write(&accessUnit) else { return }
            verdicts.wrote(accessUnit.record, isKeyframe: header != nil, referencesIntact: referencesIntact)
        }
    }

    func tick(now: Int64) throws {}

    /// What is in progress ends here: whole if its last packet came.
    func flush() throws {
        if frame?.ended == false { frame?.damage(.incompleteAtEnd) }
        try finish(arrival: 0)
    }

    func restart() {
        verdicts.restart()
        references = Rules.References()
        previous = nil
    }

    func refers(to memory: UnsafeRawBufferPointer) -> Bool { bytes.refers(to: memory) }
    func stopReferring(to memory: UnsafeRawBufferPointer) { bytes.copyViews(pointingInto: memory) }

    func fold(into s: inout StreamStatistics) {
        s.codec = codec
        s.invalidPayload = invalidPayload
        s.video = keyframe?.parameters
        if let size = layerPictureSize {
            s.video?.width = size.width
            s.video?.height = size.height
        }
        s.upperSpatialLayerPackets = packetsNotTaken
        verdicts.fold(into: &s)
    }
}
