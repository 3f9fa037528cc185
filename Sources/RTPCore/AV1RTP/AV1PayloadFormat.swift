/// AV1 over RTP ("RTP Payload Format For AV1", AOMedia) as a payload format: temporal units from
/// the packets of one timestamp to the marker, their OBU elements joined into OBUs with sizes
/// (`AV1TemporalUnitAssembly`), through the shared frame pipeline (`FramePayloadFormat`). Nothing
/// marks a unit's first packet, so packets lost before a unit may have held its start: it is
/// dropped. Which units a loss damages, the dependency descriptor tells where the packets carry
/// one (`AV1References`); without it, any loss damages every unit to the next keyframe.
typealias AV1PayloadFormat = FramePayloadFormat<AV1RTP>

enum AV1RTP: FramePayloadRules {
    typealias Descriptor = AV1AggregationHeader
    typealias Header = AV1TemporalUnitHeader
    typealias References = AV1References
    typealias Assembly = AV1TemporalUnitAssembly
    static var codec: VideoCodec { .av1 }

    /// What the assembly saw of the unit's OBUs as it wrote them: the unit need not be read again,
    /// nor be in one piece.
    static func header(of bytes: AccessUnitBuffer, assembly: AV1TemporalUnitAssembly) -> AV1TemporalUnitHeader? {
        assembly.unitHeader
    }
}

extension VideoCodec {
    public static let av1 = VideoCodec(rawValue: "av1", name: "AV1", encodingName: "AV1", decoderName: "libdav1d", libavcodecName: "av1",
                                       parameterSetsInSDP: "none", decodingOrder: "none", ivfFourCC: "AV01")
}

extension VideoPayloadFormatRegistration {
    static let av1 = VideoPayloadFormatRegistration(codec: .av1, parameters: AV1FormatParameters.self,
                                                    recognition: AV1Recognition(), track: VideoTrack.av1) { ssrc, configuration, _ in
        AnyVideoPayloadFormat(AV1PayloadFormat(ssrc: ssrc, configuration: configuration))
    }
}

extension AV1AggregationHeader: FrameDescriptor {
    /// N: the first packet of a coded video sequence surely begins a unit.
    public var beginsFrame: Bool { beginsCodedVideoSequence }
    public var mayBeginFrame: Bool { !continuesOBU }
    public static var marksFrameStarts: Bool { false }
    /// The marker bit, or the next timestamp, ends a unit.
    public var endsFrame: Bool { false }
    public var nonReference: Bool { false }
    public func pictureDistance(from earlier: AV1AggregationHeader) -> Int? { nil }
}

/// A temporal unit as assembled: a keyframe when its first frame header says KEY_FRAME and a
/// sequence header is in the unit (came with it, or was put in front of it), which also gives the
/// picture size and what the report says.
public struct AV1TemporalUnitHeader: FrameHeader, Sendable {
    public var isKeyframe = false
    public var sequenceHeader: AV1SequenceHeader?

    /// A unit's header from its last sequence header and the first byte of its first frame
    /// header's payload.
    init(sequenceHeader: AV1SequenceHeader?, frameHeader: UInt8?) {
        self.sequenceHeader = sequenceHeader
        if let sequenceHeader, let frameHeader {
            isKeyframe = AV1FrameType.isKeyframe(firstByte: frameHeader, reduced: sequenceHeader.reducedStillPictureHeader)
        }
    }

    /// The unit's header, or nil when its OBUs do not all read.
    public init?(_ unit: UnsafeRawBufferPointer) {
        var obus = OBUs(unit), read = 0, consumed = 0, frameHeader: UInt8?, sequenceHeader: AV1SequenceHeader?
        while let (header, payload) = obus.next() {
            guard header.isDefined, !header.setsReservedBits else { return nil }
            read += 1
            consumed = payload.baseAddress! + payload.count - unit.baseAddress!
            if header.type == OBUHeader.sequenceHeader { sequenceHeader = AV1SequenceHeader(payload) }
            if frameHeader == nil, header.type == OBUHeader.frame || header.type == OBUHeader.frameHeader, let first = payload.first {
                frameHeader = first
            }
        }
        guard read > 0, consumed == unit.count else { return nil }
        self.init(sequenceHeader: sequenceHeader, frameHeader: frameHeader)
    }

    public var pictureSize: (width: Int, height: Int)? {
        guard isKeyframe, let s = sequenceHeader else { return nil }
        return (s.maxWidth, s.maxHeight)
    }

    public var parameters: VideoParameters? { isKeyframe ? sequenceHeader?.parameters : nil }

    /// A unit's first packet carries OBU elements, not a unit: nothing to contradict.
    public static func contradicted(by start: UnsafeRawBufferPointer) -> Bool { false }

    /// Only a keyframe with its sequence header proves AV1 (every OBU of the unit of a defined
    /// type with its reserved bits clear).
    public static var isEvidence: Bool { false }
}
