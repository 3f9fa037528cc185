/// The fmtp parameters of the VP8 media type (RFC 7741 §6.1): max-fr and max-fs, what the receiver
/// can take, which say nothing a receiver of the stream needs. VP8 has no parameter sets.
struct VP8FormatParameters: VideoFormatParameters {
    private(set) var warnings: [String] = []

    init(_ parameters: [(key: String, value: String)]) {
        for (key, value) in parameters where key == "max-fr" || key == "max-fs" {
            if let number = Int(value), number > 0 { continue }
            warnings.append("\(key)=\(value) is not a positive number; ignored")
        }
    }

    var parameterSets: [[UInt8]] { [] }
}
