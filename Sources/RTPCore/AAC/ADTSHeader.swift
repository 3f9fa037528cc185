/// The 7-byte ADTS header (ISO/IEC 13818-7 §6.2, 14496-3 §1.A.2) that makes raw AAC access units an
/// `.aac` file players open as it is. No CRC (protection_absent = 1).
///
/// ```
/// syncword 12 | ID 1 | layer 2 | protection_absent 1 | profile 2 | sampling_frequency_index 4 |
/// private 1 | channel_configuration 3 | original 1 | home 1 | copyright_id 2 |
/// aac_frame_length 13 | adts_buffer_fullness 11 | number_of_raw_data_blocks_in_frame 2
/// ```
public enum ADTSHeader {
    public static let size = 7
    /// aac_frame_length is 13 bits, header included.
    public static let maxAccessUnitBytes = 0x1FFF - size

    /// Why a config cannot go into ADTS: the header has room only for these.
    public static func unsupported(_ config: AudioSpecificConfig) -> String? {
        if !(1...4).contains(config.audioObjectType) { return "audio object type \(config.audioObjectType) has no ADTS profile" }
        if config.samplingFrequencyIndex == 15 { return "an explicit sampling rate has no ADTS index" }
        if config.channelConfiguration > 7 { return "channel configuration \(config.channelConfiguration) has no ADTS code" }
        return nil
    }

    /// The header for one access unit of `accessUnitBytes`; `config` must pass `unsupported`.
    public static func bytes(for config: AudioSpecificConfig, accessUnitBytes: Int) -> (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) {
        let length = UInt32(accessUnitBytes + size)
        let profile = UInt8(config.audioObjectType - 1)
        let frequency = UInt8(config.samplingFrequencyIndex)
        let channels = UInt8(config.channelConfiguration)
        let fullness: UInt32 = 0x7FF  // variable bit rate
        return (0xFF, 0xF1,
                profile << 6 | frequency << 2 | channels >> 2,
                (channels & 3) << 6 | UInt8(length >> 11),
                UInt8(length >> 3 & 0xFF),
                UInt8(length & 7) << 5 | UInt8(fullness >> 6),
                UInt8(fullness & 0x3F) << 2)
    }

    /// How long the ADTS header is that `frame` begins with, where it is one whole ADTS frame of a
    /// single raw data block (its aac_frame_length the frame's size): 7 bytes, or 9 with a CRC; nil
    /// otherwise. A raw access unit never begins so (0xFF would be ID_END before anything).
    public static func headerLength(wrapping frame: UnsafeRawBufferPointer) -> Int? {
        guard frame.count > 9, frame[0] == 0xFF, frame[1] & 0xF6 == 0xF0, frame[6] & 3 == 0 else { return nil }
        let length = Int(frame[3] & 3) << 11 | Int(frame[4]) << 3 | Int(frame[5]) >> 5  // bounded: bytes, widened
        let header = frame[1] & 1 == 1 ? size : size + 2
        return length == frame.count ? header : nil
    }
}
