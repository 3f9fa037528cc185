/// What a payload type beside a call's audio, on its SSRC, carries.
public enum AudioCompanion: Sendable {
    /// RFC 3389: the sender stopped sending voice; its level (-dBov) until voice comes back.
    case comfortNoise
    /// RFC 4733 events (DTMF digits).
    case telephoneEvent
    /// Anything else: a packet of the sequence, no more.
    case other

    /// Names from an rtpmap; nil for a payload type no rtpmap or static type names.
    public init?(format: MediaDescription.Format?) {
        guard let name = format?.encodingName.lowercased(), !name.isEmpty else { return nil }
        switch name {
        case "cn": self = .comfortNoise
        case "telephone-event": self = .telephoneEvent
        default: self = .other
        }
    }
}

extension AudioSelection {
    /// What `payloadType` carries beside the audio: by the SDP's audio lines (of `port` first) or
    /// RFC 3551 (13 is comfort noise); nil when nothing names it.
    public func companion(payloadType: UInt8, port: UInt16?) -> AudioCompanion? {
        AudioCompanion(format: media.namedFormat(payloadType: payloadType, port: port) ?? StaticPayloadType(rawValue: payloadType)?.format)
    }
}
