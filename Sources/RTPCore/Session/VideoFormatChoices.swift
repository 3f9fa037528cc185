/// The video payload formats each payload type may carry, by index in the receiver's list (the
/// registry's): the one of the codec the SDP names for it, else its static type's (JPEG's 26), else
/// the one of `--codec`, else every one (the stream then proves which). Made once, so that the packet path
/// looks up an array instead of filtering the registry.
struct VideoFormatChoices {
    private let byPayloadType: [[Int]]

    init(_ registered: [VideoPayloadFormatRegistration], codecs: [UInt8: VideoCodec], otherwise: VideoCodec?) {
        let every = Array(registered.indices)
        byPayloadType = (0...127).map { (pt: UInt8) in
            guard let codec = codecs[pt] ?? StaticPayloadType.videoCodec(pt) ?? otherwise else { return every }
            return every.filter { registered[$0].codec == codec }
        }
    }

    @inline(__always)
    func formats(payloadType: UInt8) -> [Int] {
        // bounded: a widening, 0 to 127
        byPayloadType[Int(payloadType & 0x7f)]
    }
}
