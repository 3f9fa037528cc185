import RTPCore

/// ISO/IEC 14496-15 §5.2.4.1, the body of the FLV AVC sequence header.
///
///     configurationVersion(8)=1  AVCProfileIndication(8)  profile_compatibility(8)  AVCLevelIndication(8)
///     111111b  lengthSizeMinusOne(2)
///     111b  numOfSequenceParameterSets(5)  { sequenceParameterSetLength(16)  sequenceParameterSetNALUnit }
///     numOfPictureParameterSets(8)  { pictureParameterSetLength(16)  pictureParameterSetNALUnit }
///     for profiles 100, 110, 122, 144:
///     111111b chroma_format(2)  11111b bit_depth_luma_minus8(3)  11111b bit_depth_chroma_minus8(3)
///     numOfSequenceParameterSetExt(8)=0
public struct AVCDecoderConfigurationRecord: Equatable {
    public var avcProfileIndication: UInt8
    public var profileCompatibility: UInt8
    public var avcLevelIndication: UInt8
    public var lengthSizeMinusOne: UInt8 = 3
    public var sequenceParameterSets: [[UInt8]]
    public var pictureParameterSets: [[UInt8]]
    public var chromaFormat: UInt8
    public var bitDepthLumaMinus8: UInt8
    public var bitDepthChromaMinus8: UInt8

    /// Nil unless there is an SPS that parses and at least one PPS.
    public init?(sps: [[UInt8]], pps: [[UInt8]]) {
        guard let first = sps.first, !pps.isEmpty,
              let parsed = first.withUnsafeBytes({ SequenceParameterSet(nal: $0) }) else { return nil }
        avcProfileIndication = parsed.profileIdc
        profileCompatibility = parsed.constraintFlags
        avcLevelIndication = parsed.levelIdc
        sequenceParameterSets = sps
        pictureParameterSets = pps
        chromaFormat = UInt8(parsed.chromaFormatIdc)
        bitDepthLumaMinus8 = UInt8(parsed.bitDepthLumaMinus8)
        bitDepthChromaMinus8 = UInt8(parsed.bitDepthChromaMinus8)
    }

    static let profilesWithExtension: Set<UInt8> = [100, 110, 122, 144]

    func write(to w: inout ByteWriter) {
        w.u8(1)
        w.u8(avcProfileIndication)
        w.u8(profileCompatibility)
        w.u8(avcLevelIndication)
        w.u8(0xFC | lengthSizeMinusOne)
        w.u8(0xE0 | UInt8(sequenceParameterSets.count))
        for sps in sequenceParameterSets {
            w.u16(UInt16(sps.count))
            w.append(sps)
        }
        w.u8(UInt8(pictureParameterSets.count))
        for pps in pictureParameterSets {
            w.u16(UInt16(pps.count))
            w.append(pps)
        }
        if Self.profilesWithExtension.contains(avcProfileIndication) {
            w.u8(0xFC | chromaFormat)
            w.u8(0xF8 | bitDepthLumaMinus8)
            w.u8(0xF8 | bitDepthChromaMinus8)
            w.u8(0)
        }
    }
}
