/// RFC 7741 as a payload format: VP8 frames between the packet that starts partition 0 (S=1, PID=0)
/// and the one with the marker bit, through the shared frame pipeline (`FramePayloadFormat`), with
/// loss reasoned about per temporal layer (`LayerReferences`: TID, Y, TL0PICIDX) and the N bit.
typealias VP8PayloadFormat = FramePayloadFormat<RFC7741>

enum RFC7741: FramePayloadRules {
    typealias Descriptor = VP8PayloadDescriptor
    typealias Header = VP8FrameHeader
    typealias References = VP8References
    static var codec: VideoCodec { .vp8 }
}

extension VideoCodec {
    public static let vp8 = VideoCodec(rawValue: "vp8", name: "VP8", encodingName: "VP8", decoderName: "vp8",
                                       parameterSetsInSDP: "none", decodingOrder: "none", ivfFourCC: "VP80")
}

extension VideoPayloadFormatRegistration {
    static let rfc7741 = VideoPayloadFormatRegistration(codec: .vp8, parameters: VP8FormatParameters.self,
                                                        recognition: VP8Recognition(),
                                                        track: VideoTrack.fromFrameHeader { VP8FrameHeader($0)?.parameters }) { ssrc, configuration, _ in
        AnyVideoPayloadFormat(VP8PayloadFormat(ssrc: ssrc, configuration: configuration))
    }
}

extension VP8PayloadDescriptor: FrameDescriptor {
    /// The marker bit ends a VP8 frame.
    public var endsFrame: Bool { false }
}

extension VP8FrameHeader: FrameHeader {
    public var pictureSize: (width: Int, height: Int)? { isKeyframe ? (width, height) : nil }
}

/// VP8's references: a frame of layer TID refers to frames of layers 0 to TID, only to TL0 when Y.
struct VP8References: FrameReferences {
    private var layers = LayerReferences()

    mutating func observe(_ frame: VP8PayloadDescriptor) {
        layers.observe(tl0PictureIndex: frame.tl0PictureIndex, layer: frame.temporalLayer)
    }

    func intact(_ frame: VP8PayloadDescriptor) -> Bool { layers.intact(layer: frame.temporalLayer ?? 0, sync: frame.layerSync) }
    mutating func lost(_ frame: VP8PayloadDescriptor) { layers.lost(layer: frame.temporalLayer ?? 0) }
    mutating func lostWhole() { layers.lostWhole() }

    mutating func wrote(_ frame: VP8PayloadDescriptor, isKeyframe: Bool, referencesIntact: Bool) {
        layers.wrote(layer: frame.temporalLayer ?? 0, sync: frame.layerSync, isKeyframe: isKeyframe)
    }
}
