/// ISO/IEC 14496-15 §5.3.3.1, the AVCDecoderConfigurationRecord: an H.264 track's parameter sets
/// for a container that keeps them apart from the frames, whose NAL units then carry lengths in
/// place of start codes (MP4's `avcC`, Matroska's CodecPrivate, FLV's sequence header).
///
///     configurationVersion(8)=1  AVCProfileIndication(8)  profile_compatibility(8)  AVCLevelIndication(8)
///     111111b  lengthSizeMinusOne(2)
///     111b  numOfSequenceParameterSets(5)  { sequenceParameterSetLength(16)  sequenceParameterSetNALUnit }
///     numOfPictureParameterSets(8)  { pictureParameterSetLength(16)  pictureParameterSetNALUnit }
///     unless the profile is 66, 77 or 88:
///     111111b chroma_format(2)  11111b bit_depth_luma_minus8(3)  11111b bit_depth_chroma_minus8(3)
///     numOfSequenceParameterSetExt(8)=0
public struct AVCDecoderConfigurationRecord: Equatable, Sendable {
    public var avcProfileIndication: UInt8
    public var profileCompatibility: UInt8
    public var avcLevelIndication: UInt8
    /// NAL unit lengths take four bytes.
    public var lengthSizeMinusOne: UInt8 = 3
    public var sequenceParameterSets: [[UInt8]]
    public var pictureParameterSets: [[UInt8]]
    public var chromaFormat: UInt8
    public var bitDepthLumaMinus8: UInt8
    public var bitDepthChromaMinus8: UInt8

    /// Nil unless there is an SPS that parses and at least one PPS. Sets repeated under one id count
    /// once (the last), so that the counts fit their 5 and 8 bits.
    public init?(sps: [[UInt8]], pps: [[UInt8]]) {
        sequenceParameterSets = latestParameterSets(sps) { SequenceParameterSet(nal: $0).map { Int(truncatingIfNeeded: $0.seqParameterSetId) } }
        pictureParameterSets = latestParameterSets(pps) { PictureParameterSetIds(nal: $0).map { Int(truncatingIfNeeded: $0.picParameterSetId) } }
        guard let first = sequenceParameterSets.first, sequenceParameterSets.count <= 31, !pictureParameterSets.isEmpty,
              pictureParameterSets.count <= 255, let parsed = first.withUnsafeBytes({ SequenceParameterSet(nal: $0) }) else { return nil }
        avcProfileIndication = parsed.profileIdc
        profileCompatibility = parsed.constraintFlags
        avcLevelIndication = parsed.levelIdc
        // The SPS parser bounds them: chroma format at most 3, bit depths at most 14.
        chromaFormat = UInt8(truncatingIfNeeded: parsed.chromaFormatIdc)
        bitDepthLumaMinus8 = UInt8(truncatingIfNeeded: parsed.bitDepthLumaMinus8)
        bitDepthChromaMinus8 = UInt8(truncatingIfNeeded: parsed.bitDepthChromaMinus8)
    }

    /// The record from a track's parameter sets behind start codes (`VideoTrack.configuration`).
    public init?(annexB: UnsafeRawBufferPointer) {
        var sps: [[UInt8]] = [], pps: [[UInt8]] = []
        AnnexB.forEachNALUnit(annexB, while: { nal in
            switch nal.first.map({ $0 & 0x1F }) {
            case NALUnitType.sps: sps.append(Array(nal))
            case NALUnitType.pps: pps.append(Array(nal))
            default: break
            }
            return true
        })
        self.init(sps: sps, pps: pps)
    }

    /// Profiles of the first edition carry no chroma format or bit depths.
    private static let profilesWithoutExtension: Set<UInt8> = [66, 77, 88]

    public var bytes: [UInt8] {
        var w: [UInt8] = [1, avcProfileIndication, profileCompatibility, avcLevelIndication, 0xFC | lengthSizeMinusOne,
                          // bounded: at most 31 sets, by the initializer
                          0xE0 | UInt8(sequenceParameterSets.count)]
        for sps in sequenceParameterSets { w += Self.lengthPrefixed(sps) }
        w.append(UInt8(pictureParameterSets.count))  // bounded: at most 255 sets, by the initializer
        for pps in pictureParameterSets { w += Self.lengthPrefixed(pps) }
        if !Self.profilesWithoutExtension.contains(avcProfileIndication) {
            w += [0xFC | chromaFormat, 0xF8 | bitDepthLumaMinus8, 0xF8 | bitDepthChromaMinus8, 0]
        }
        return w
    }

    /// A set behind its 16-bit length (at most 65535 bytes, by the initializer).
    private static func lengthPrefixed(_ nal: [UInt8]) -> [UInt8] {
        [UInt8(truncatingIfNeeded: nal.count >> 8), UInt8(truncatingIfNeeded: nal.count)] + nal
    }
}
