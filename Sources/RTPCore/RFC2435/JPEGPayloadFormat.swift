/// RFC 2435 as a payload format: Motion JPEG, each frame a JPEG whose headers the packets leave
/// out, from the packet at fragment offset 0 to the one with the marker bit, through the shared
/// frame pipeline (`FramePayloadFormat`). Every frame stands alone: a loss costs only its frame.
typealias JPEGPayloadFormat = FramePayloadFormat<RFC2435>

enum RFC2435: FramePayloadRules {
    typealias Descriptor = JPEGPayloadHeader
    typealias Header = JPEGFrameHeader
    typealias References = JPEGReferences
    typealias Assembly = JPEGAssembly
    static var codec: VideoCodec { .mjpeg }

    /// What the first packet's JPEG header said, rather than the rebuilt headers read again.
    static func header(of bytes: AccessUnitBuffer, assembly: JPEGAssembly) -> JPEGFrameHeader? { assembly.frameHeader }
}

extension VideoCodec {
    /// Written as it comes, JPEG after JPEG, as FFmpeg's mjpeg demuxer reads a file.
    /// Its headers are a few bytes any payload may hold: taken where its static type 26 or the SDP
    /// names it, never guessed on a dynamic type.
    public static let mjpeg = VideoCodec(rawValue: "mjpeg", name: "Motion JPEG", encodingName: "JPEG", decoderName: "mjpeg",
                                         parameterSetsInSDP: "none", decodingOrder: "none", takenOnlyWhenNamed: true)
}

extension VideoPayloadFormatRegistration {
    static let rfc2435 = VideoPayloadFormatRegistration(codec: .mjpeg, parameters: JPEGFormatParameters.self,
                                                        recognition: JPEGRecognition(),
                                                        track: { unit in
                                                            // The rebuilt headers are the unit's first piece.
                                                            unit.pieces.first.flatMap { JPEGFrameHeader($0)?.parameters }.map { VideoTrack($0) }
                                                        }) { ssrc, configuration, parameters in
        let size = (parameters as? JPEGFormatParameters)?.dimensions
        return AnyVideoPayloadFormat(JPEGPayloadFormat(ssrc: ssrc, configuration: configuration, assembly: JPEGAssembly(pictureSize: size)))
    }
}

extension JPEGPayloadHeader: FrameDescriptor {
    var beginsFrame: Bool { fragmentOffset == 0 }
    /// The marker bit ends a frame.
    var endsFrame: Bool { false }
    var nonReference: Bool { true }
    func pictureDistance(from earlier: JPEGPayloadHeader) -> Int? { nil }
}

extension JPEGFrameHeader: FrameHeader {
    public var pictureSize: (width: Int, height: Int)? { (width, height) }
    /// A scan can begin with any byte.
    static func contradicted(by start: UnsafeRawBufferPointer) -> Bool { false }
    /// The header is rebuilt from a few bytes any payload has: no evidence of the codec.
    static var isEvidence: Bool { false }
}

/// JPEG frames refer to nothing.
struct JPEGReferences: FrameReferences {
    mutating func observe(_ frame: JPEGPayloadHeader) {}
    func intact(_ frame: JPEGPayloadHeader) -> Bool { true }
    mutating func lost(_ frame: JPEGPayloadHeader) {}
    mutating func lostWhole() {}
    mutating func wrote(_ frame: JPEGPayloadHeader, isKeyframe: Bool, referencesIntact: Bool) {}
}

/// RFC 2435 defines no fmtp parameters; the media line's a=x-dimensions gives the size of pictures
/// too large for the payload's header (which then says 0).
struct JPEGFormatParameters: VideoFormatParameters {
    var dimensions: (width: Int, height: Int)?

    init(_ parameters: [(key: String, value: String)]) {}

    init(_ parameters: [(key: String, value: String)], of media: MediaDescription) {
        dimensions = media.dimensions
    }

    var parameterSets: [[UInt8]] { [] }
    var warnings: [String] { [] }
}
