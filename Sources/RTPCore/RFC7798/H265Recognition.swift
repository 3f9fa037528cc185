/// H.265 read from RFC 7798 payloads (without DONL: no SDP says it is there): the NAL unit types
/// (and the payload's 48 to 50), the latest SPS, and base-layer slice segments whose headers parse.
struct H265Recognition: VideoRecognition {
    private var nalTypes: UInt64 = 0
    private var sps: HEVCSequenceParameterSet?
    private var slices = 0
    /// Payloads that are not valid RFC 7798.
    private var invalid = 0

    mutating func record(_ payload: UnsafeRawBufferPointer) {
        guard H265Payload.validate(payload, decodingOrderNumbers: false) == nil else {
            invalid += 1
            return
        }
        let header = HEVCNALHeader(payload)
        nalTypes |= 1 << header.type
        var rest = payload.view(2..<payload.count)
        var outer = header
        if header.type == H265Payload.paci, let (inner, carried) = H265Payload.unwrapPACI(header, rest: rest) {
            (outer, rest) = (inner, carried)
            nalTypes |= 1 << inner.type
        }
        switch outer.type {
        case H265Payload.aggregationPacket:
            var units = H265AggregationUnits(rest, decodingOrderNumbers: false)
            while let u = units.next() { recordUnit(u.nal) }
        case H265Payload.fragmentationUnit:
            if rest[0] & 0x80 != 0 { nalTypes |= 1 << (rest[0] & 0x3F) }
        default:
            if outer.type != header.type {
                withUnsafeBytes(of: (outer.byte0, outer.byte1)) { head in
                    var nal = Array(head)
                    nal.append(contentsOf: rest)
                    nal.withUnsafeBytes { recordUnit($0) }
                }
            } else {
                recordUnit(payload)
            }
        }
    }

    private mutating func recordUnit(_ nal: UnsafeRawBufferPointer) {
        let h = HEVCNALHeader(nal)
        nalTypes |= 1 << h.type
        if h.type == HEVCNALUnitType.sps, let parsed = HEVCSequenceParameterSet(nal: nal) { sps = parsed }
        if HEVCNALUnitType.isVCL(h.type) && !HEVCNALUnitType.isReserved(h.type) && h.layerId == 0,
           HEVCSliceSegmentHeaderPrefix(type: h.type, body: nal.view(2..<nal.count)) != nil { slices += 1 }
    }

    /// An SPS or three slices, in payloads nine in ten of which are valid: audio samples read as NAL
    /// units now and then hold one that parses as an SPS, among payloads mostly invalid.
    func proves(packets: Int) -> Bool { (sps != nil || slices >= 3) && invalid * 10 <= packets }

    var sawKeyframe: Bool { ((0 as UInt8)..<64).contains { HEVCNALUnitType.isIRAP($0) && nalTypes & (1 << $0) != 0 } }

    var summary: String {
        let types = (0..<64).filter { nalTypes & (1 << $0) != 0 }.map { HEVCNALUnitType.name(UInt8(truncatingIfNeeded: $0)) }
        let sps = sps.map { "\($0.width)x\($0.height) \($0.profileName)" } ?? "-"
        return "H265 " + sps + "  " + types.joined(separator: ",")
    }
}
