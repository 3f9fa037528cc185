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

    /// Nil unless there is an SPS that parses and at least one PPS. Sets repeated under one id count
    /// once (the last), so that the counts fit their 5 and 8 bits; the record fits a tag.
    public init?(sps: [[UInt8]], pps: [[UInt8]]) {
        var spsById: [UInt32: [UInt8]] = [:], ppsById: [UInt32: [UInt8]] = [:]
        var spsOrder: [UInt32] = [], ppsOrder: [UInt32] = []
        for nal in sps where nal.count <= Int(UInt16.max) {
            guard let id = nal.withUnsafeBytes({ SequenceParameterSet(nal: $0)?.seqParameterSetId }) else { continue }
            if spsById.updateValue(nal, forKey: id) == nil { spsOrder.append(id) }
        }
        for nal in pps where nal.count <= Int(UInt16.max) {
            guard let id = nal.withUnsafeBytes({ PictureParameterSetIds(nal: $0)?.picParameterSetId }) else { continue }
            if ppsById.updateValue(nal, forKey: id) == nil { ppsOrder.append(id) }
        }
        guard let first = spsOrder.first.flatMap({ spsById[$0] }), !ppsOrder.isEmpty, ppsOrder.count <= 255,
              let parsed = first.withUnsafeBytes({ SequenceParameterSet(nal: $0) }) else { return nil }
        avcProfileIndication = parsed.profileIdc
        profileCompatibility = parsed.constraintFlags
        avcLevelIndication = parsed.levelIdc
        sequenceParameterSets = spsOrder.map { spsById[$0]! }
        pictureParameterSets = ppsOrder.map { ppsById[$0]! }
        let size = 11 + sequenceParameterSets.reduce(0) { $0 + 2 + $1.count } + pictureParameterSets.reduce(0) { $0 + 2 + $1.count }
        guard size + FLVLayout.avcVideoHeaderSize <= FLVLayout.maxDataSize else { return nil }
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
