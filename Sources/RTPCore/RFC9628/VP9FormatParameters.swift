/// The fmtp parameters of the VP9 media type (RFC 9628 §6): profile-id, and max-fr and max-fs,
/// which say what a receiver can take. The profile is read from each keyframe; VP9 has no parameter
/// sets.
struct VP9FormatParameters: VideoFormatParameters {
    private(set) var profile: Int?
    private(set) var warnings: [String] = []

    init(_ parameters: [(key: String, value: String)]) {
        for (key, value) in parameters {
            switch key {
            case "profile-id":
                if let id = Int(value), (0...3).contains(id) { profile = id } else {
                    warnings.append("profile-id=\(value) is not a VP9 profile (0 to 3); ignored")
                }
            case "max-fr", "max-fs":
                if let number = Int(value), number > 0 { continue }
                warnings.append("\(key)=\(value) is not a positive number; ignored")
            default:
                continue
            }
        }
    }

    var parameterSets: [[UInt8]] { [] }
}
