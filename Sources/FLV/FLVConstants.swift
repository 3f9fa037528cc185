/// Wire codes of the FLV format (Adobe FLV v10.1, Annex E), kept apart from the writer.
public enum FLVTagType: UInt8 {
    case audio = 8
    case video = 9
    case script = 18
}

/// FLV header flags (E.2): bit 0 video, bit 2 audio.
public enum FLVHeaderFlags {
    public static let video: UInt8 = 0x01
    public static let audio: UInt8 = 0x04
}

/// VIDEODATA frame type (E.4.3.1), the high nibble of the first video byte.
public enum FLVVideoFrameType: UInt8 {
    case keyframe = 1
    case interFrame = 2
}

/// VIDEODATA codec id, the low nibble.
public enum FLVVideoCodecID {
    public static let avc: UInt8 = 7
    /// H.265 before Enhanced RTMP: not in Adobe's specification, but what Chinese CDNs and players
    /// agreed on, in AVC's tag layout.
    public static let hevcLegacy: UInt8 = 12
}

/// Enhanced RTMP (v1, Veovera): the first video byte's IsExHeader bit, with FrameType in bits 4-6
/// and this PacketType in bits 0-3, followed by the codec's FourCC.
public enum FLVExVideoPacketType: UInt8 {
    case sequenceStart = 0
    /// With a signed 24-bit composition time before the data.
    case codedFrames = 1
    case sequenceEnd = 2
    /// CodedFrames whose composition time is 0, left out.
    case codedFramesX = 3

    public static let isExHeader: UInt8 = 0x80
}

/// Enhanced RTMP's video FourCCs, as big-endian 32-bit numbers.
public enum FLVFourCC {
    public static let hvc1: UInt32 = 0x6876_6331
}

/// AVCVIDEOPACKET AVCPacketType (E.4.3.2).
public enum AVCPacketType: UInt8 {
    case sequenceHeader = 0
    case nalu = 1
    case endOfSequence = 2
}

/// AMF0 type markers (AMF0 specification §2).
public enum AMF0Marker {
    public static let number: UInt8 = 0x00
    public static let boolean: UInt8 = 0x01
    public static let string: UInt8 = 0x02
    public static let ecmaArray: UInt8 = 0x08
    public static let objectEnd: [UInt8] = [0x00, 0x00, 0x09]
}

public enum FLVLayout {
    /// "FLV", version 1, flags, header size 9.
    public static let headerSize = 9
    /// Type, data size, timestamp, timestamp extended, stream id.
    public static let tagHeaderSize = 11
    public static let previousTagSizeBytes = 4
    /// Frame type/codec, AVCPacketType, composition time.
    public static let avcVideoHeaderSize = 5
    /// DataSize is 24 bits (E.4.1): no tag carries more.
    public static let maxDataSize = 0xFF_FFFF
}

/// AUDIODATA SoundFormat (E.4.2.1), the high nibble of the first audio byte.
public enum FLVSoundFormat: UInt8, Sendable {
    case mp3 = 2
    case g711ALaw = 7
    case g711MuLaw = 8
    case aac = 10
}

/// AACAUDIODATA AACPacketType (E.4.2.2).
public enum AACPacketType: UInt8 {
    case sequenceHeader = 0
    case raw = 1
}
