/// AV1 read from its RTP payloads: a sequence header OBU that parses, whole in the first element of
/// a packet that begins a coded video sequence (N), which no other payload gives by chance.
struct AV1Recognition: VideoRecognition {
    private var sequenceHeader: AV1SequenceHeader?
    private var sequences = 0

    mutating func record(_ payload: UnsafeRawBufferPointer) {
        guard let header = AV1AggregationHeader(payload), header.beginsCodedVideoSequence else { return }
        var first: AV1SequenceHeader?
        _ = header.forEachElement(payload.view(1..<payload.count)) { element, _ in
            guard first == nil, let obu = OBUHeader(element), obu.type == OBUHeader.sequenceHeader,
                  let payload = obu.payload(of: element) else { return }
            first = AV1SequenceHeader(payload)
        }
        guard let first else { return }
        sequenceHeader = first
        sequences += 1
    }

    func proves(packets: Int) -> Bool { sequenceHeader != nil }

    var sawKeyframe: Bool { sequences > 0 }

    var summary: String {
        "AV1 " + (sequenceHeader.map { "\($0.maxWidth)x\($0.maxHeight)" } ?? "-") + "  \(sequences) coded video sequences"
    }
}
