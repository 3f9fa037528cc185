/// The start of a VP9 frame's uncompressed header (VP9 bitstream specification §6.2), as far as a
/// receiver needs it: whether it is a keyframe, and for one the profile, bit depth, chroma
/// subsampling and picture size.
///
///     frame_marker (2) = 2 | profile_low_bit | profile_high_bit | [reserved_zero, profile 3]
///     show_existing_frame | frame_type (0: KEY_FRAME) | show_frame | error_resilient_mode
///     keyframe: frame_sync_code 0x49 0x83 0x42 | color_config | frame_width_minus_1 (16) | frame_height_minus_1 (16)
///
/// A superframe (frames and an index, RFC 9628 §4.4 carries it whole) begins with its first frame.
public struct VP9FrameHeader: Sendable, Equatable {
    public var profile: Int
    public var isKeyframe = false
    /// A keyframe's size, its bit depth and chroma subsampling; 0 and 4:2:0 8-bit otherwise.
    public var width = 0
    public var height = 0
    public var bitDepth = 8
    public var subsamplingX = true
    public var subsamplingY = true

    static let syncCode: UInt32 = 0x49_83_42

    /// The header at the start of `frame`, or nil when it does not begin with the frame marker, or
    /// is a keyframe without its sync code or cut short.
    public init?(_ frame: UnsafeRawBufferPointer) {
        var r = BitReader(frame)
        guard r.read(2) == 2, let low = r.read(1), let high = r.read(1) else { return nil }
        profile = Int(high << 1 | low)  // bounded: two bits
        if profile == 3 && r.read(1) != 0 { return nil }
        guard let showExisting = r.readFlag() else { return nil }
        if showExisting { return }
        guard let frameType = r.read(1), r.skip(2) else { return nil }
        guard frameType == 0 else { return }
        guard r.read(24) == Self.syncCode, readColorConfig(&r), let w = r.read(16), let h = r.read(16) else { return nil }
        isKeyframe = true
        // bounded: 16-bit fields plus one
        (width, height) = (Int(w) + 1, Int(h) + 1)
    }

    private mutating func readColorConfig(_ r: inout BitReader) -> Bool {
        if profile >= 2 {
            guard let twelve = r.readFlag() else { return false }
            bitDepth = twelve ? 12 : 10
        }
        guard let colorSpace = r.read(3) else { return false }
        let oddProfile = profile == 1 || profile == 3
        if colorSpace != 7 {  // not CS_RGB
            guard r.skip(1) else { return false }  // color_range
            if oddProfile {
                guard let x = r.readFlag(), let y = r.readFlag(), r.skip(1) else { return false }
                (subsamplingX, subsamplingY) = (x, y)
            }
        } else {
            (subsamplingX, subsamplingY) = (false, false)
            if oddProfile && !r.skip(1) { return false }
        }
        return true
    }

    /// Whether the first bytes of a frame cannot begin a VP9 frame: no frame marker.
    public static func contradicted(by start: UnsafeRawBufferPointer) -> Bool {
        guard let first = start.first else { return false }
        return first >> 6 != 2
    }

    /// What the keyframe says of the pictures, for the report.
    public var parameters: VideoParameters? {
        guard isKeyframe else { return nil }
        let chroma = subsamplingX && subsamplingY ? 1 : subsamplingX ? 2 : 3
        return VideoParameters(codec: .vp9, width: width, height: height, profileIdc: profile, profile: "Profile \(profile)",
                               tier: nil, levelIdc: nil, level: nil, bitDepthLuma: bitDepth, bitDepthChroma: bitDepth,
                               chromaFormatIdc: chroma)
    }
}
