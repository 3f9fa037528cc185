/// The 4-byte header of an MPEG-1/2/2.5 audio frame (ISO/IEC 11172-3 §2.4.1.3, 13818-3): enough to
/// know the frame's length, its samples, rate and channels.
///
/// ```
/// syncword 11 | version 2 | layer 2 | protection_bit 1 | bitrate_index 4 | sampling_frequency 2 |
/// padding_bit 1 | private_bit 1 | mode 2 | mode_extension 2 | copyright 1 | original 1 | emphasis 2
/// ```
public struct MPEGAudioFrameHeader: Sendable, Equatable {
    /// 1 for MPEG-1, 2 for MPEG-2 (LSF), 25 for MPEG-2.5.
    public var version: Int
    public var layer: Int
    /// kbit/s; 0 for the free format, whose length the header does not give.
    public var bitrate: Int
    public var sampleRate: Int
    public var padding: Bool
    public var channels: Int

    private static let bitrates: [[Int]] = [
        [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],  // MPEG-1 layer I
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],     // MPEG-1 layer II
        [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],      // MPEG-1 layer III
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],     // MPEG-2/2.5 layer I
        [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],          // MPEG-2/2.5 layers II, III
    ]

    public init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return nil }
        let versionBits = (bytes[1] >> 3) & 3, layerBits = (bytes[1] >> 1) & 3
        let bitrateIndex = Int(bytes[2] >> 4), rateIndex = Int((bytes[2] >> 2) & 3)
        guard versionBits != 1, layerBits != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
        version = versionBits == 3 ? 1 : versionBits == 2 ? 2 : 25
        layer = 4 - Int(layerBits)
        let table = version == 1 ? layer - 1 : (layer == 1 ? 3 : 4)
        bitrate = MPEGAudioFrameHeader.bitrates[table][bitrateIndex]
        sampleRate = [44100, 48000, 32000][rateIndex] / (version == 1 ? 1 : version == 2 ? 2 : 4)
        padding = bytes[2] & 2 != 0
        channels = bytes[3] >> 6 == 3 ? 1 : 2
    }

    /// Samples per channel in the frame.
    public var samples: Int {
        switch layer {
        case 1: 384
        case 2: 1152
        default: version == 1 ? 1152 : 576
        }
    }

    /// The frame's bytes, header included; nil for the free format.
    public var frameLength: Int? {
        guard bitrate > 0 else { return nil }
        if layer == 1 { return (12 * bitrate * 1000 / sampleRate + (padding ? 1 : 0)) * 4 }
        let coefficient = layer == 3 && version != 1 ? 72 : 144
        return coefficient * bitrate * 1000 / sampleRate + (padding ? 1 : 0)
    }
}
