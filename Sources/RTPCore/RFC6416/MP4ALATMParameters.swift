/// The fmtp of an `MP4A-LATM` media line (RFC 6416 §7.3): whether StreamMuxConfig comes in-band
/// (`cpresent=1`, the default) or only here (`cpresent=0` with `config=`).
public struct MP4ALATMParameters: Sendable, Equatable {
    public var configPresent: Bool
    public var config: StreamMuxConfig?

    public enum Invalid: Error, CustomStringConvertible {
        case noConfig
        case config(String, StreamMuxConfig.Invalid)

        public var description: String {
            switch self {
            case .noConfig: "MP4A-LATM with cpresent=0 but no config= (the StreamMuxConfig)"
            case .config(let hex, let error): "config=\(hex): \(error)"
            }
        }
    }

    public init(_ format: MediaDescription.Format) throws {
        configPresent = format.parameter("cpresent") != "0"
        if let hex = format.parameter("config") {
            do {
                config = try StreamMuxConfig(hex: hex)
            } catch let error as StreamMuxConfig.Invalid {
                throw Invalid.config(hex, error)
            }
        }
        if !configPresent && config == nil { throw Invalid.noConfig }
    }
}
