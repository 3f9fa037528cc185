/// From an rtpmap (the SDP's, or a static payload type's) to the depacketizer of its RFC.
public enum AudioFormats {
    public struct Unusable: Error, CustomStringConvertible {
        public var description: String
    }

    /// The encoding names taken, as rtpmap spells them (compared without case).
    public static let names = ["PCMU", "PCMA", "G722", "L16", "L24", "MPA", "MPEG4-GENERIC", "MP4A-LATM", "OPUS"]
        + [16, 24, 32, 40].flatMap { ["G726-\($0)", "AAL2-G726-\($0)"] }

    public static func isSupported(_ format: MediaDescription.Format) -> Bool {
        names.contains(format.encodingName.uppercased())
    }

    /// nil for an encoding rtprecv does not take; throws when it does but the fmtp is unusable.
    public static func depacketizer(for format: MediaDescription.Format, maxFrameBytes: Int = 1 << 16)
        throws -> (any AudioDepacketizer)? {
        let rate = format.clockRate
        let channels = format.channels ?? 1
        switch format.encodingName.uppercased() {
        case "PCMU":
            return SampleAudioPayload(track: AudioTrack(codec: .pcmu, clockRate: rate, sampleRate: rate, channels: channels))
        case "PCMA":
            return SampleAudioPayload(track: AudioTrack(codec: .pcma, clockRate: rate, sampleRate: rate, channels: channels))
        case "G722":
            // RFC 3551 §4.5.2: the clock says 8000, the samples are at 16 kHz.
            return SampleAudioPayload(track: AudioTrack(codec: .g722, clockRate: rate, sampleRate: 16000, channels: channels))
        case "L16", "L24":
            // A sample a tick: the clock is the sample rate (RFC 3551 §4.5.11, RFC 3190 §4).
            let codec: AudioCodec = format.encodingName.uppercased() == "L16" ? .l16 : .l24
            return SampleAudioPayload(track: AudioTrack(codec: codec, clockRate: rate, sampleRate: rate, channels: channels))
        case let name where name.hasPrefix("G726-") || name.hasPrefix("AAL2-G726-"):
            // The rate names the bits a sample (16 kbit/s at 8 kHz: 2); one channel, as RFC 3551 has it.
            guard names.contains(name), let kbits = Int(name.split(separator: "-").last!) else { return nil }
            let codec = AudioCodec.g726(bitsPerSample: kbits / 8, aal2: name.hasPrefix("AAL2-"))
            return SampleAudioPayload(track: AudioTrack(codec: codec, clockRate: rate, sampleRate: 8000, channels: 1))
        case "MPA":
            return MPEGAudioPayload(track: AudioTrack(codec: .mpegAudio, clockRate: rate, sampleRate: 0, channels: channels),
                                    maxFrameBytes: maxFrameBytes)
        case "OPUS":
            // RFC 7587 §7: always opus/48000/2 in the rtpmap; the stream may be mono.
            return OpusPayload(track: AudioTrack(codec: .opus, clockRate: rate, sampleRate: 48000, channels: channels))
        case "MPEG4-GENERIC":
            let parameters: MPEG4GenericParameters
            do {
                parameters = try MPEG4GenericParameters(format)
            } catch {
                throw Unusable(description: "mpeg4-generic: \(error)")
            }
            let config = parameters.config
            return MPEG4GenericPayload(
                track: AudioTrack(codec: .aac(config), clockRate: rate, sampleRate: config.outputSamplingFrequency,
                                  channels: config.channels),
                parameters: parameters, maxFrameBytes: maxFrameBytes)
        case "MP4A-LATM":
            let parameters: MP4ALATMParameters
            do {
                parameters = try MP4ALATMParameters(format)
            } catch {
                throw Unusable(description: "MP4A-LATM: \(error)")
            }
            let config = parameters.config?.audioSpecificConfig
            return LATMPayload(
                track: AudioTrack(codec: config.map { .aac($0) } ?? .aac(.unknown), clockRate: rate,
                                  sampleRate: config?.outputSamplingFrequency ?? rate,
                                  channels: config?.channels ?? channels),
                parameters: parameters, maxFrameBytes: maxFrameBytes)
        default:
            return nil
        }
    }
}
