/// RFC 7798 as a payload format: its depacketizer, with H.265's assembler and frame gate behind it.
typealias H265PayloadFormat = NALPayloadFormat<H265Depacketizer>

extension VideoCodec {
    public static let h265 = VideoCodec(rawValue: "h265", name: "H.265", encodingName: "H265", decoderName: "hevc",
                                        parameterSetsInSDP: "sprop-vps/sps/pps",
                                        decodingOrder: "decoding order numbers (DONL)")
}

extension VideoPayloadFormatRegistration {
    static let rfc7798 = VideoPayloadFormatRegistration(codec: .h265, parameters: H265FormatParameters.self,
                                                        recognition: H265Recognition(), track: VideoTrack.h265) {
        ssrc, configuration, parameters in
        AnyVideoPayloadFormat(H265PayloadFormat(ssrc: ssrc, configuration: configuration,
                                                parameters: parameters as? H265FormatParameters ?? H265FormatParameters()))
    }
}

extension H265Depacketizer: NALDepacketization {
    typealias Gate = HEVCFrameGate
    static var codec: VideoCodec { .h265 }

    /// `parameters`: the SDP's RFC 7798 fmtp.
    convenience init(assembler: HEVCAccessUnitAssembler, parameters: H265FormatParameters, latencyNanoseconds: Int64) {
        self.init(assembler: assembler, decodingOrder: parameters.decodingOrder, latencyNanoseconds: latencyNanoseconds)
    }

    func validate(_ payload: UnsafeRawBufferPointer) -> VideoPayloadInvalid? {
        H265Payload.validate(payload, decodingOrderNumbers: usesDecodingOrderNumbers)
    }

    func typesCarried(by payload: UnsafeRawBufferPointer) -> UInt64 {
        var types: UInt64 = 0
        H265Payload.forEachNALUnit(payload, decodingOrderNumbers: usesDecodingOrderNumbers) { types |= 1 << $0.type }
        return types
    }
}

extension HEVCAccessUnitAssembler: NALCodecAssembler {
    func storeParameterSet(_ nal: UnsafeRawBufferPointer) { _ = parameterSets.store(nal: nal) }

    func fold(into s: inout StreamStatistics) {
        s.parameterSetChanges = parameterSetChanges
        s.video = parameterSets.latestSPS?.parameters
    }
}

extension HEVCFrameGate: NALFrameGate {}
