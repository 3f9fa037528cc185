/// The fmtp parameters of the AV1 media type (AOMedia's payload specification §7): profile,
/// level-idx and tier, which say what a receiver can take; each unit's sequence header says what
/// was sent. AV1 has no parameter sets in the SDP.
struct AV1FormatParameters: VideoFormatParameters {
    private(set) var warnings: [String] = []

    init(_ parameters: [(key: String, value: String)]) {
        let ranges = ["profile": 0...2, "level-idx": 0...31, "tier": 0...1]
        for (key, value) in parameters {
            guard let range = ranges[key] else { continue }
            if let number = Int(value), range.contains(number) { continue }
            warnings.append("\(key)=\(value) is not an AV1 \(key) (\(range.lowerBound) to \(range.upperBound)); ignored")
        }
    }

    var parameterSets: [[UInt8]] { [] }
}
