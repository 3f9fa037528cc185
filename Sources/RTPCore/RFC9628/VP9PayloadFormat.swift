/// RFC 9628 as a payload format: VP9 pictures from the packet that begins the base layer's frame (B)
/// to the marker, through the shared frame pipeline (`FramePayloadFormat`). A picture of several
/// spatial layers is written as the superframe a decoder takes (`VP9SuperframeAssembly`), its layers
/// up to `--spatial-layer` (every one by default); the packets of the layers above are counted and
/// left out. Loss reaches the frames that may refer to what was lost: in flexible mode,
/// exactly those whose P_DIFF names it; in non-flexible mode with layer indices, the frames of its
/// temporal layer and above until a switching-up point (U) below them or a keyframe, TL0PICIDX
/// showing base-layer frames lost whole; without either, every frame to the next keyframe.
typealias VP9PayloadFormat = FramePayloadFormat<RFC9628>

enum RFC9628: FramePayloadRules {
    typealias Descriptor = VP9PayloadDescriptor
    typealias Header = VP9FrameHeader
    typealias References = VP9References
    typealias Assembly = VP9SuperframeAssembly
    static var codec: VideoCodec { .vp9 }
}

extension VideoCodec {
    public static let vp9 = VideoCodec(rawValue: "vp9", name: "VP9", encodingName: "VP9", decoderName: "vp9",
                                       parameterSetsInSDP: "none", decodingOrder: "none", ivfFourCC: "VP90")
}

extension VideoPayloadFormatRegistration {
    static let rfc9628 = VideoPayloadFormatRegistration(codec: .vp9, parameters: VP9FormatParameters.self,
                                                        recognition: VP9Recognition(),
                                                        track: VideoTrack.fromFrameHeader { VP9FrameHeader($0)?.parameters }) { ssrc, configuration, _ in
        AnyVideoPayloadFormat(VP9PayloadFormat(ssrc: ssrc, configuration: configuration))
    }
}

extension VP9PayloadDescriptor: FrameDescriptor {
    /// B on the base layer begins a picture; on a layer above, that layer's frame within it.
    public var beginsFrame: Bool { beginsLayer && (spatialLayer ?? 0) == 0 }
    public var beginsLayerFrame: Bool { beginsLayer && (spatialLayer ?? 0) > 0 }
    /// E ends a layer frame; the marker ends the picture.
    public var endsFrame: Bool { false }
    /// VP9 has no non-reference flag in its descriptor.
    public var nonReference: Bool { false }

    public func pictureSize(upTo layer: Int?) -> (width: Int, height: Int)? {
        guard let ss = scalability, !ss.widths.isEmpty else { return nil }
        let top = min(layer ?? Int.max, ss.widths.count - 1)
        return (ss.widths[top], ss.heights[top])
    }
}

/// A picture's layer frames as one superframe (VP9 bitstream specification, Annex B): the frames
/// one after another, then an index of their sizes, each in the fewest bytes that hold the largest:
///
///     marker 0b110 | bytes-1 (2) | frames-1 (3) | sizes, little-endian | the marker again
///
/// A picture of one layer is its frame as it came.
struct VP9SuperframeAssembly: FrameAssembly {
    /// Where each layer frame after the first begins.
    private var layerStarts: [Int] = []
    /// The superframe index, made at the end.
    private var index: [UInt8] = []

    init() {}

    mutating func begin(_ bytes: AccessUnitBuffer) { layerStarts.removeAll(keepingCapacity: true) }

    mutating func append(_ data: UnsafeRawBufferPointer, of descriptor: VP9PayloadDescriptor, to bytes: AccessUnitBuffer,
                         borrowing: Bool) -> FrameRecord.Reason? {
        if descriptor.beginsLayerFrame && !bytes.isEmpty { layerStarts.append(bytes.count) }
        bytes.append(data, borrowing: borrowing)
        return nil
    }

    mutating func end(_ bytes: AccessUnitBuffer) -> FrameRecord.Reason? {
        guard !layerStarts.isEmpty else { return nil }
        // More layer frames than a superframe holds (eight): a hostile stream's, never a sender's.
        guard layerStarts.count < 8 else { return .aggregationOverrun }
        // Each frame ends where the next begins, the last at the end.
        layerStarts.append(bytes.count)
        var largest = 0, start = 0
        for end in layerStarts {
            largest = max(largest, end - start)
            start = end
        }
        let width = largest < 1 << 8 ? 1 : largest < 1 << 16 ? 2 : largest < 1 << 24 ? 3 : 4
        let marker = UInt8(truncatingIfNeeded: 0xC0 | (width - 1) << 3 | (layerStarts.count - 1))
        index.removeAll(keepingCapacity: true)
        index.append(marker)
        start = 0
        for end in layerStarts {
            for byte in 0..<width { index.append(UInt8(truncatingIfNeeded: (end - start) >> (8 * byte))) }
            start = end
        }
        index.append(marker)
        index.withUnsafeBytes { bytes.append($0, borrowing: false) }
        return nil
    }
}

extension VP9FrameHeader: FrameHeader {
    public var pictureSize: (width: Int, height: Int)? { isKeyframe ? (width, height) : nil }
}

/// VP9's references: by PictureID in flexible mode, by temporal layer otherwise.
struct VP9References: FrameReferences {
    private var layers = LayerReferences()
    /// P_DIFF reaches 127 pictures back.
    private var pictures = PictureReferences(slots: 128)

    mutating func observe(_ frame: VP9PayloadDescriptor) {
        layers.observe(tl0PictureIndex: frame.tl0PictureIndex, layer: frame.temporalLayer)
    }

    func intact(_ frame: VP9PayloadDescriptor) -> Bool {
        if !frame.interPicturePredicted { return true }
        if frame.flexible, let id = frame.pictureID {
            return (0..<frame.referenceCount).allSatisfy { pictures.intact(frame.referencedPicture($0, of: id)) }
        }
        return layers.intact(layer: frame.temporalLayer ?? 0, sync: false)
    }

    mutating func lost(_ frame: VP9PayloadDescriptor) {
        if let id = frame.pictureID { pictures.note(id, intact: false) }
        layers.lost(layer: frame.temporalLayer ?? 0)
    }

    /// Frames lost whole: in flexible mode, their PictureIDs are simply unknown to later references.
    mutating func lostWhole() { layers.lostWhole() }

    mutating func wrote(_ frame: VP9PayloadDescriptor, isKeyframe: Bool, referencesIntact: Bool) {
        if let id = frame.pictureID { pictures.note(id, intact: referencesIntact) }
        if isKeyframe {
            layers.wrote(layer: 0, sync: false, isKeyframe: true)
        } else if referencesIntact && frame.switchingUp {
            layers.switchedUp(at: frame.temporalLayer ?? 0)
        }
    }
}
