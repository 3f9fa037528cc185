/// The start of a VP8 frame (RFC 6386 §9.1; RFC 7741 §4.3 calls its first three bytes the payload
/// header): the frame tag, and for a keyframe the start code and the picture size.
///
///     frame tag, little-endian:  |size0 (3)|show_frame|version (3)|P|  size1  |  size2  |
///     keyframe:                  0x9d 0x01 0x2a | width (14) scale (2) | height (14) scale (2)
///
/// P is 0 for a keyframe; the first partition's size is size0 + 8 size1 + 2048 size2.
public struct VP8FrameHeader: Sendable, Equatable {
    public var isKeyframe: Bool
    /// The version (RFC 6386 §9.1), which libvpx and the RTP payload call the profile: 0 to 3.
    public var version: Int
    public var showFrame: Bool
    public var firstPartitionSize: Int
    /// A keyframe's picture size, in pixels before scaling; 0 for an interframe.
    public var width = 0
    public var height = 0

    /// Bytes a keyframe's header takes: the tag, the start code and the size.
    static let keyframeHeaderSize = 10

    /// The header at the start of `frame`, or nil when it is shorter than its tag, names a version
    /// RFC 6386 does not define, or is a keyframe without its start code or with a zero size.
    public init?(_ frame: UnsafeRawBufferPointer) {
        guard frame.count >= 3 else { return nil }
        // bounded: widenings of bytes
        let tag = UInt32(frame[0]) | UInt32(frame[1]) << 8 | UInt32(frame[2]) << 16
        isKeyframe = tag & 1 == 0
        // bounded: three bits and nineteen bits of a 24-bit tag
        version = Int((tag >> 1) & 7)
        showFrame = tag & 0x10 != 0
        firstPartitionSize = Int(tag >> 5)  // bounded: 19 bits
        guard version <= 3 else { return nil }
        guard isKeyframe else { return }
        guard frame.count >= Self.keyframeHeaderSize, frame[3] == 0x9d, frame[4] == 0x01, frame[5] == 0x2a else { return nil }
        // bounded: widenings of bytes, 14 bits each
        width = Int(frame[6]) | Int(frame[7] & 0x3f) << 8
        // bounded: as the width
        height = Int(frame[8]) | Int(frame[9] & 0x3f) << 8
        guard width > 0, height > 0 else { return nil }
    }

    /// Whether the first bytes of a frame, as far as one packet holds them, cannot begin a VP8
    /// frame: a version RFC 6386 does not define, or a keyframe without its start code.
    public static func contradicted(by start: UnsafeRawBufferPointer) -> Bool {
        guard start.count >= 3 else { return false }
        if (start[0] >> 1) & 7 > 3 { return true }
        guard start[0] & 1 == 0 else { return false }
        let code: [UInt8] = [0x9d, 0x01, 0x2a]
        return zip(start.dropFirst(3).prefix(3), code).contains { $0 != $1 }
    }

    /// What the keyframe says of the pictures, for the report: VP8 has 8-bit 4:2:0 pictures only.
    public var parameters: VideoParameters? {
        guard isKeyframe else { return nil }
        return VideoParameters(codec: .vp8, width: width, height: height, profileIdc: version, profile: "Profile \(version)",
                               tier: nil, levelIdc: nil, level: nil, bitDepthLuma: 8, bitDepthChroma: 8, chromaFormatIdc: 1)
    }
}
