import RTPCore

/// The first byte of every audio tag (E.4.2.1): SoundFormat 4 | SoundRate 2 | SoundSize 1 | SoundType 1.
/// FLV's rate codes stop at 44 kHz: players take AAC's and MP3's true rate from the stream itself.
public struct FLVAudioHeader: Equatable, Sendable {
    public var soundFormat: FLVSoundFormat
    public var byte: UInt8

    /// nil for a codec that has no FLV code (Opus, G.722, G.726), or none at its rate (FLV's linear PCM is
    /// little-endian and at most 44 kHz: L16 and L24 are left out).
    public init?(_ track: AudioTrack) {
        switch track.codec {
        case .aac:
            // Always 44 kHz, 16-bit, stereo in the flags (E.4.2.1); the AudioSpecificConfig tells the truth.
            soundFormat = .aac
            byte = FLVSoundFormat.aac.rawValue << 4 | 3 << 2 | 1 << 1 | 1
        case .mpegAudio:
            soundFormat = .mp3
            let rate: UInt8 = track.sampleRate >= 44100 ? 3 : track.sampleRate >= 22050 ? 2 : track.sampleRate >= 11025 ? 1 : 0
            byte = FLVSoundFormat.mp3.rawValue << 4 | rate << 2 | 1 << 1 | (track.channels > 1 ? 1 : 0)
        case .pcma, .pcmu:
            // 8 kHz G.711 is implied by the format; the rate code stays 0, as FFmpeg writes it.
            soundFormat = track.codec == .pcma ? .g711ALaw : .g711MuLaw
            byte = soundFormat.rawValue << 4 | 1 << 1 | (track.channels > 1 ? 1 : 0)
        case .g722, .opus, .l16, .l24, .g726:
            return nil
        }
    }
}
