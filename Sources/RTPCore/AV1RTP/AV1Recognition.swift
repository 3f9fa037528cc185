/// AV1 read from its RTP payloads: a sequence header OBU that parses, whole in the first element of
/// a packet that begins a coded video sequence (N), which no other payload gives by chance. The
/// OBUs' extension headers name the layers (temporal_id, spatial_id).
struct AV1Recognition: VideoRecognition {
    private var sequenceHeader: AV1SequenceHeader?
    private var sequences = 0
    private var highestTemporalLayer = 0
    private var highestSpatialLayer = 0

    mutating func record(_ payload: UnsafeRawBufferPointer) {
        guard let header = AV1AggregationHeader(payload) else { return }
        var first = true, found: AV1SequenceHeader?
        _ = header.forEachElement(payload.view(1..<payload.count)) { element, _ in
            defer { first = false }
            // An element that continues an OBU begins with none of its header.
            guard !(first && header.continuesOBU), let obu = OBUHeader(element) else { return }
            if obu.hasExtension {
                highestTemporalLayer = max(highestTemporalLayer, obu.temporalID)
                highestSpatialLayer = max(highestSpatialLayer, obu.spatialID)
            }
            guard header.beginsCodedVideoSequence, found == nil, obu.type == OBUHeader.sequenceHeader,
                  let payload = obu.payload(of: element) else { return }
            found = AV1SequenceHeader(payload)
        }
        guard let found else { return }
        sequenceHeader = found
        sequences += 1
    }

    func proves(packets: Int) -> Bool { sequenceHeader != nil }

    var sawKeyframe: Bool { sequences > 0 }

    var summary: String {
        var layers = highestSpatialLayer > 0 ? ["\(highestSpatialLayer + 1) spatial layers"] : []
        if highestTemporalLayer > 0 { layers.append("\(highestTemporalLayer + 1) temporal layers") }
        return "AV1 " + (sequenceHeader.map { "\($0.maxWidth)x\($0.maxHeight)" } ?? "-") + "  "
            + layers.map { $0 + ", " }.joined() + "\(sequences) coded video sequences"
    }
}
