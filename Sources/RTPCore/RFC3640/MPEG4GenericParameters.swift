/// The fmtp of an `mpeg4-generic` media line (RFC 3640 §4.1): the AU-header layout and the
/// AudioSpecificConfig. Parameter names are case-insensitive; the SDP parser lower-cases them.
public struct MPEG4GenericParameters: Sendable, Equatable {
    /// "AAC-hbr", "AAC-lbr", "generic"...
    public var mode: String
    public var sizeLength: Int
    public var indexLength: Int
    public var indexDeltaLength: Int
    public var ctsDeltaLength = 0
    public var dtsDeltaLength = 0
    public var randomAccessIndication = false
    public var streamStateIndication = 0
    public var auxiliaryDataSizeLength = 0
    /// Ticks per access unit, when the fmtp says.
    public var constantDuration: Int?
    public var config: AudioSpecificConfig

    public enum Invalid: Error, CustomStringConvertible {
        case noConfig
        case config(String, AudioSpecificConfig.Invalid)
        case notAudio(String)
        case badNumber(String, String)

        public var description: String {
            switch self {
            case .noConfig: "mpeg4-generic without config= (the AudioSpecificConfig): AAC needs it"
            case .config(let hex, let error): "config=\(hex): \(error)"
            case .notAudio(let type): "streamType=\(type) is not audio (5)"
            case .badNumber(let key, let value): "\(key)=\(value) is not a number a header field can have"
            }
        }
    }

    public init(_ format: MediaDescription.Format) throws {
        func number(_ key: String) throws -> Int? {
            guard let text = format.parameter(key) else { return nil }
            // Field lengths in bits; a constant duration in ticks (AAC's 1024 or 960 samples; 2^24 leaves
            // room, and keeps every AU's time, index times duration, far from overflowing).
            guard let value = Int(text), (key == "constantduration" ? 1...(1 << 24) : 0...32).contains(value) else {
                throw Invalid.badNumber(key, text)
            }
            return value
        }
        if let type = format.parameter("streamtype"), type != "5" { throw Invalid.notAudio(type) }
        guard let hex = format.parameter("config") else { throw Invalid.noConfig }
        do {
            config = try AudioSpecificConfig(hex: hex)
        } catch let error as AudioSpecificConfig.Invalid {
            throw Invalid.config(hex, error)
        }
        mode = format.parameter("mode") ?? "generic"
        // The modes fix the layout (§3.3.5, §3.3.6); an fmtp that gives the fields wins.
        let lbr = mode.lowercased() == "aac-lbr", hbr = mode.lowercased() == "aac-hbr"
        sizeLength = try number("sizelength") ?? (hbr ? 13 : lbr ? 6 : 0)
        indexLength = try number("indexlength") ?? (hbr ? 3 : lbr ? 2 : 0)
        indexDeltaLength = try number("indexdeltalength") ?? (hbr ? 3 : lbr ? 2 : 0)
        ctsDeltaLength = try number("ctsdeltalength") ?? 0
        dtsDeltaLength = try number("dtsdeltalength") ?? 0
        randomAccessIndication = format.parameter("randomaccessindication") == "1"
        streamStateIndication = try number("streamstateindication") ?? 0
        auxiliaryDataSizeLength = try number("auxiliarydatasizelength") ?? 0
        constantDuration = try number("constantduration")
    }

    /// Whether packets start with the AU-headers section.
    public var hasAUHeaders: Bool {
        sizeLength + indexLength + indexDeltaLength + ctsDeltaLength + dtsDeltaLength + streamStateIndication > 0
            || randomAccessIndication
    }
}
