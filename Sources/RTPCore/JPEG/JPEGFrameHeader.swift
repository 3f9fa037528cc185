/// What a JPEG frame is: its size and how its chroma is sampled, from the RFC 2435 header of its
/// first packet or from the frame's own SOF segment (T.81 B.2.2), which `init?(_:)` finds by
/// walking the markers after SOI. Every JPEG frame is a keyframe.
public struct JPEGFrameHeader: Sendable {
    public let width: Int
    public let height: Int
    /// RFC 2435's type: 0 for 4:2:2, 1 for 4:2:0.
    public let type: UInt8

    init(width: Int, height: Int, type: UInt8) {
        (self.width, self.height, self.type) = (width, height, type)
    }

    /// The SOF of the JPEG at the start of `frame`; nil where the markers before it do not read
    /// as a JPEG's, or run past `frame`.
    public init?(_ frame: UnsafeRawBufferPointer) {
        guard frame.count >= 4, frame[0] == 0xFF, frame[1] == 0xD8 else { return nil }
        var at = 2
        while at + 4 <= frame.count {
            guard frame[at] == 0xFF else { return nil }
            let marker = frame[at + 1]
            // bounded: widenings of bytes, as below
            let length = Int(frame[at + 2]) << 8 | Int(frame[at + 3])
            guard length >= 2 else { return nil }
            if marker == 0xC0 || marker == 0xC1 || marker == 0xC2 {
                // P, Y, X, Nf, then the first component's id and sampling factors.
                guard length >= 11, at + 2 + 10 <= frame.count else { return nil }
                let s = at + 4
                // bounded: widenings of bytes
                (height, width) = (Int(frame[s + 1]) << 8 | Int(frame[s + 2]), Int(frame[s + 3]) << 8 | Int(frame[s + 4]))
                type = frame[s + 7] == 0x22 ? 1 : 0
                guard width > 0, height > 0 else { return nil }
                return
            }
            if marker == 0xDA { return nil }  // a scan before any frame header
            at += 2 + length
        }
        return nil
    }

    public var isKeyframe: Bool { true }

    public var parameters: VideoParameters? {
        VideoParameters(codec: .mjpeg, width: width, height: height, profileIdc: 0, profile: "Baseline", tier: nil,
                        levelIdc: nil, level: nil, bitDepthLuma: 8, bitDepthChroma: 8, chromaFormatIdc: type == 1 ? 1 : 2)
    }
}
