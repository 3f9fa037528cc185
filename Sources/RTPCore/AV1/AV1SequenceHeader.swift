/// An AV1 sequence header OBU's payload (AV1 specification §5.5), read as far as the colour
/// configuration: the profile, the first operating point's level and tier, the largest picture
/// size, the bit depth and the chroma subsampling, and whether frame headers are reduced.
public struct AV1SequenceHeader: Sendable, Equatable {
    public var profile: Int
    public var reducedStillPictureHeader: Bool
    public var levelIndex: Int
    public var tier: Int
    public var maxWidth: Int
    public var maxHeight: Int
    public var bitDepth = 8
    public var monochrome = false
    public var subsamplingX = true
    public var subsamplingY = true

    /// The header in `payload`, or nil when it is cut short or names a profile above 2.
    public init?(_ payload: UnsafeRawBufferPointer) {
        var r = BitReader(payload)
        guard let profile = r.read(3), profile <= 2, let still = r.read(1), let reduced = r.readFlag() else { return nil }
        _ = still
        self.profile = Int(profile)  // bounded: three bits
        reducedStillPictureHeader = reduced
        guard let (level, tier) = Self.readOperatingPoints(&r, reduced: reduced),
              let widthBits = r.read(4), let heightBits = r.read(4),
              let width = r.read(Int(widthBits) + 1), let height = r.read(Int(heightBits) + 1) else { return nil }  // bounded: four bits
        (levelIndex, self.tier) = (level, tier)
        // bounded: at most 16-bit fields, plus one
        (maxWidth, maxHeight) = (Int(width) + 1, Int(height) + 1)
        guard Self.skipCodingTools(&r, reduced: reduced), readColorConfig(&r), r.skip(1),  // film_grain_params_present
              Self.endsInTrailingBits(r) else { return nil }
    }

    /// The payload ends where its trailing bits do (§5.3.4): a one, then zeros to the byte's end, and
    /// no byte more. Few bits in a sequence header are fixed; these make one read out of anything else
    /// (ciphertext, audio) all but impossible.
    private static func endsInTrailingBits(_ reader: BitReader) -> Bool {
        var r = reader
        guard r.bitsLeft >= 1, r.bitsLeft <= 8, r.read(1) == 1 else { return false }
        return r.bitsLeft == 0 || r.read(r.bitsLeft) == 0
    }

    /// The first operating point's seq_level_idx and seq_tier, past timing and decoder model info.
    private static func readOperatingPoints(_ r: inout BitReader, reduced: Bool) -> (level: Int, tier: Int)? {
        if reduced { return r.read(5).map { (Int($0), 0) } }  // bounded: five bits
        guard let timing = r.readFlag() else { return nil }
        var decoderModel = false, bufferDelayLength = 0
        if timing {
            guard r.skip(64), let equalInterval = r.readFlag() else { return nil }
            if equalInterval {
                guard skipUVLC(&r) else { return nil }
            }
            guard let present = r.readFlag() else { return nil }
            decoderModel = present
            if present {
                guard let length = r.read(5), r.skip(32 + 5 + 5) else { return nil }
                bufferDelayLength = Int(length) + 1  // bounded: five bits
            }
        }
        guard let initialDisplayDelay = r.readFlag(), let count = r.read(5) else { return nil }
        var first: (Int, Int)?
        for _ in 0...count {
            guard r.skip(12), let level = r.read(5) else { return nil }
            var tier: UInt32 = 0
            if level > 7 {
                guard let t = r.read(1) else { return nil }
                tier = t
            }
            if decoderModel {
                guard let present = r.readFlag() else { return nil }
                if present && !r.skip(2 * bufferDelayLength + 1) { return nil }
            }
            if initialDisplayDelay {
                guard let present = r.readFlag() else { return nil }
                if present && !r.skip(4) { return nil }
            }
            if first == nil { first = (Int(level), Int(tier)) }  // bounded: five bits and one
        }
        return first
    }

    private static func skipUVLC(_ r: inout BitReader) -> Bool {
        var leadingZeros = 0
        while true {
            guard let bit = r.read(1) else { return false }
            if bit == 1 { break }
            leadingZeros += 1
            if leadingZeros >= 32 { return true }
        }
        return r.skip(leadingZeros)
    }

    /// From frame_id_numbers_present_flag to enable_restoration.
    private static func skipCodingTools(_ r: inout BitReader, reduced: Bool) -> Bool {
        if !reduced {
            guard let frameIDs = r.readFlag() else { return false }
            if frameIDs && !r.skip(7) { return false }
        }
        guard r.skip(3) else { return false }  // 128x128 superblocks, filter intra, intra edge filter
        if !reduced {
            guard r.skip(4), let orderHint = r.readFlag() else { return false }  // interintra, masked, warped, dual filter
            if orderHint && !r.skip(2) { return false }  // jnt_comp, ref_frame_mvs
            guard let choose = r.readFlag() else { return false }
            var forceScreenContent = 2
            if !choose {
                guard let force = r.read(1) else { return false }
                forceScreenContent = Int(force)  // bounded: one bit
            }
            if forceScreenContent > 0 {
                guard let chooseIntegerMV = r.readFlag() else { return false }
                if !chooseIntegerMV && !r.skip(1) { return false }
            }
            if orderHint && !r.skip(3) { return false }
        }
        return r.skip(3)  // superres, cdef, restoration
    }

    private mutating func readColorConfig(_ r: inout BitReader) -> Bool {
        guard let high = r.readFlag() else { return false }
        if profile == 2 && high {
            guard let twelve = r.readFlag() else { return false }
            bitDepth = twelve ? 12 : 10
        } else {
            bitDepth = high ? 10 : 8
        }
        if profile != 1 {
            guard let mono = r.readFlag() else { return false }
            monochrome = mono
        }
        guard let described = r.readFlag() else { return false }
        var primaries: UInt32 = 2, transfer: UInt32 = 2, matrix: UInt32 = 2
        if described {
            guard let p = r.read(8), let t = r.read(8), let m = r.read(8) else { return false }
            (primaries, transfer, matrix) = (p, t, m)
        }
        if monochrome { return r.skip(1) }  // color_range
        if primaries == 1 && transfer == 13 && matrix == 0 {  // sRGB: 4:4:4
            (subsamplingX, subsamplingY) = (false, false)
        } else {
            guard r.skip(1), readSubsampling(&r) else { return false }  // color_range, then the subsampling
            if subsamplingX && subsamplingY && !r.skip(2) { return false }  // chroma_sample_position
        }
        return r.skip(1)  // separate_uv_delta_q
    }

    private mutating func readSubsampling(_ r: inout BitReader) -> Bool {
        switch profile {
        case 0: (subsamplingX, subsamplingY) = (true, true)
        case 1: (subsamplingX, subsamplingY) = (false, false)
        default:
            guard bitDepth == 12 else {
                (subsamplingX, subsamplingY) = (true, false)
                return true
            }
            guard let x = r.readFlag() else { return false }
            subsamplingX = x
            if x {
                guard let y = r.readFlag() else { return false }
                subsamplingY = y
            } else {
                subsamplingY = false
            }
        }
        return true
    }

    /// What the sequence says of its pictures, for the report: the level as the specification
    /// writes it (seq_level_idx 8 is level 4.0).
    public var parameters: VideoParameters {
        let chroma = monochrome ? 0 : subsamplingX && subsamplingY ? 1 : subsamplingX ? 2 : 3
        let names = ["Main", "High", "Professional"]
        return VideoParameters(codec: .av1, width: maxWidth, height: maxHeight, profileIdc: profile, profile: names[profile],
                               tier: tier == 1 ? "High" : "Main", levelIdc: levelIndex,
                               level: Double(2 + levelIndex / 4) + Double(levelIndex % 4) / 10,
                               bitDepthLuma: bitDepth, bitDepthChroma: bitDepth, chromaFormatIdc: chroma)
    }
}
