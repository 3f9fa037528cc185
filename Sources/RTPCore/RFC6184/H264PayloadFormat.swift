/// RFC 6184 as a payload format: its depacketizer, with H.264's assembler and frame gate behind it.
typealias H264PayloadFormat = NALPayloadFormat<Depacketizer>

extension VideoCodec {
    public static let h264 = VideoCodec(rawValue: "h264", name: "H.264", encodingName: "H264", decoderName: "h264",
                                        parameterSetsInSDP: "sprop-parameter-sets",
                                        decodingOrder: "interleaved mode (packetization-mode 2)")
}

extension VideoPayloadFormatRegistration {
    static let rfc6184 = VideoPayloadFormatRegistration(codec: .h264, parameters: H264FormatParameters.self,
                                                        recognition: H264Recognition(), track: VideoTrack.h264) {
        ssrc, configuration, parameters in
        AnyVideoPayloadFormat(H264PayloadFormat(ssrc: ssrc, configuration: configuration,
                                                parameters: (parameters as? H264FormatParameters)?.interleaving))
    }
}

extension Depacketizer: NALDepacketization {
    typealias Gate = FrameGate
    static var codec: VideoCodec { .h264 }

    /// `parameters`: packetization mode 2 from the SDP, with its sprop-* parameters; nil until
    /// packets say so.
    convenience init(assembler: AccessUnitAssembler, parameters: DeinterleavingBuffer.Parameters?, latencyNanoseconds: Int64) {
        self.init(assembler: assembler, interleaving: parameters, latencyNanoseconds: latencyNanoseconds)
    }

    func validate(_ payload: UnsafeRawBufferPointer) -> VideoPayloadInvalid? { H264Payload.validate(payload) }
    func typesCarried(by payload: UnsafeRawBufferPointer) -> UInt64 { H264Payload.typesCarried(by: payload) }
}

extension AccessUnitAssembler: NALCodecAssembler {
    func storeParameterSet(_ nal: UnsafeRawBufferPointer) { _ = parameterSets.store(nal: nal) }

    func fold(into s: inout StreamStatistics) {
        s.repeatedParameterSetsRemoved = repeatedParameterSetsRemoved
        s.parameterSetChanges = parameterSetChanges
        s.video = parameterSets.latestSPS?.parameters
    }
}

extension FrameGate: NALFrameGate {}
