/// RFC 9628 as a payload format: VP9 frames between the packets whose descriptor begins (B) and
/// ends (E) them, through the shared frame pipeline (`FramePayloadFormat`). The base spatial layer
/// is taken; the packets of the layers above it are counted and left out, so that what is written
/// decodes by itself. Loss reaches the frames that may refer to what was lost: in flexible mode,
/// exactly those whose P_DIFF names it; in non-flexible mode with layer indices, the frames of its
/// temporal layer and above until a switching-up point (U) below them or a keyframe, TL0PICIDX
/// showing base-layer frames lost whole; without either, every frame to the next keyframe.
typealias VP9PayloadFormat = FramePayloadFormat<RFC9628>

enum RFC9628: FramePayloadRules {
    typealias Descriptor = VP9PayloadDescriptor
    typealias Header = VP9FrameHeader
    typealias References = VP9References
    static var codec: VideoCodec { .vp9 }
}

extension VideoCodec {
    public static let vp9 = VideoCodec(rawValue: "vp9", name: "VP9", encodingName: "VP9", decoderName: "vp9",
                                       parameterSetsInSDP: "none", decodingOrder: "none", ivfFourCC: "VP90")
}

extension VideoPayloadFormatRegistration {
    static let rfc9628 = VideoPayloadFormatRegistration(codec: .vp9, parameters: VP9FormatParameters.self,
                                                        recognition: VP9Recognition()) { ssrc, configuration, _ in
        AnyVideoPayloadFormat(VP9PayloadFormat(ssrc: ssrc, configuration: configuration))
    }
}

extension VP9PayloadDescriptor: FrameDescriptor {
    /// VP9 has no non-reference flag in its descriptor.
    public var nonReference: Bool { false }
    /// The base spatial layer.
    public var isTaken: Bool { (spatialLayer ?? 0) == 0 }
}

extension VP9FrameHeader: FrameHeader {
    public var pictureSize: (width: Int, height: Int)? { isKeyframe ? (width, height) : nil }
}

/// VP9's references: by PictureID in flexible mode, by temporal layer otherwise.
struct VP9References: FrameReferences {
    private var layers = LayerReferences()
    private var pictures = PictureReferences()

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

/// Which recent pictures, by PictureID, were written whole with their references intact: what a
/// flexible-mode picture's P_DIFF references are checked against. A picture not among them (lost
/// whole, or too long ago) is taken as damaged.
struct PictureReferences {
    /// The last 128 pictures, by PictureID modulo 128 (P_DIFF reaches 127 back).
    private var slots = [(id: Int, intact: Bool)](repeating: (-1, false), count: 128)

    func intact(_ id: Int) -> Bool {
        let slot = slots[id & 127]
        return slot.id == id && slot.intact
    }

    mutating func note(_ id: Int, intact: Bool) { slots[id & 127] = (id, intact) }
}
