/// What a payload type's packets show of one video codec, read from the payloads alone: how a
/// stream no SDP names is known for the codec (`--list`, `StreamSurvey`), and what it is said to
/// carry. Each registered payload format gives one (`VideoPayloadFormatRegistration.recognition`).
public protocol VideoRecognition: Sendable {
    /// Reads one payload of the payload type.
    mutating func record(_ payload: UnsafeRawBufferPointer)
    /// Whether the payloads show the codec (of `packets` in all): a parameter set that parses, or
    /// enough headers that do in payloads valid for it, so that an audio stream is never taken for
    /// video read out of its samples.
    func proves(packets: Int) -> Bool
    /// A keyframe began in them.
    var sawKeyframe: Bool { get }
    /// What they carried, for `--list`: "H264 320x240  SPS,PPS,IDR,FU-A".
    var summary: String { get }
}
