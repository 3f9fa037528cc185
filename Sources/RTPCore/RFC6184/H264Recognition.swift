/// H.264 read from RFC 6184 payloads: the NAL unit and payload structure types, the latest SPS,
/// and slices whose headers parse (not data partitions, which H.265 headers pose as).
struct H264Recognition: VideoRecognition {
    /// Bit n set when NAL unit type n (or payload structure type 24-31) was seen.
    private var nalTypes: UInt32 = 0
    private var sps: SequenceParameterSet?
    private var slices = 0
    /// Payloads that are not valid RFC 6184.
    private var invalid = 0

    mutating func record(_ payload: UnsafeRawBufferPointer) {
        guard let first = payload.first else { return }
        if H264Payload.validate(payload) != nil { invalid += 1 }
        nalTypes |= 1 << nalUnitType(first)
        H264Payload.forEachNALUnit(payload) { type, nal in
            nalTypes |= 1 << type
            if type == NALUnitType.sps, let nal, let parsed = SequenceParameterSet(nal: nal) { sps = parsed }
            if type == NALUnitType.nonIDRSlice || type == NALUnitType.idrSlice, let nal, SliceHeaderPrefix(nal: nal) != nil { slices += 1 }
        }
    }

    /// An SPS or three slices, in payloads nine in ten of which are valid: audio samples read as NAL
    /// units now and then hold one that parses as an SPS, among payloads mostly invalid.
    func proves(packets: Int) -> Bool { (sps != nil || slices >= 3) && invalid * 10 <= packets }

    var sawKeyframe: Bool { nalTypes & (1 << NALUnitType.idrSlice) != 0 }

    var summary: String {
        let types = (0..<32).filter { nalTypes & (1 << $0) != 0 }.map { t -> String in
            switch t {
            case 24: "STAP-A"
            case 25: "STAP-B"
            case 26: "MTAP16"
            case 27: "MTAP24"
            case 28: "FU-A"
            case 29: "FU-B"
            default: NALUnitType.name(UInt8(truncatingIfNeeded: t))
            }
        }
        return "H264 " + (sps.map { "\($0.width)x\($0.height)" } ?? "-") + "  " + types.joined(separator: ",")
    }
}
