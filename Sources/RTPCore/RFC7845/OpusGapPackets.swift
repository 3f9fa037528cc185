/// Packets that stand in for audio a real-time Opus stream did not carry (RFC 7845 §4.1): packets
/// lost, or a silence the sender left (DTX). Every frame in them is zero bytes long, which asks the
/// decoder to conceal it (RFC 6716 §3.2.1); they keep the mode, bandwidth, channels and frame size
/// of the packet before where they can, so that the concealment goes on from it.
public enum OpusGapPackets {
    /// Gaps are filled in steps of 2.5 ms, the shortest frame: no loss or silence makes another length.
    public static let step = 120
    /// The longest packet: 120 ms at 48 kHz, at most 48 frames (RFC 6716 §3.2.5).
    static let maxPacketSamples = 5760
    static let maxFrames = 48

    /// Calls `body` with each packet, valid during the call only, and the samples at 48 kHz it
    /// lasts: `samples` in all (to the nearest 2.5 ms), after a packet whose TOC byte was `toc`.
    public static func forEach(lasting samples: Int, after toc: UInt8, _ body: (UnsafeRawBufferPointer, Int) throws -> Void) rethrows {
        var left = rounded(samples)
        let size = OpusPayload.frameSamples(toc)
        try frames(toc & 0xFC, size: size, count: left / size, body)
        left %= size
        // What is shorter than its frames: CELT frames of its bandwidth, the longest first.
        for (index, size) in [120, 240, 480, 960].enumerated().reversed() where left >= size {
            try frames(celt(like: toc, sizeIndex: index), size: size, count: left / size, body)
            left %= size
        }
    }

    /// `samples` to the nearest 2.5 ms (none below 0).
    public static func rounded(_ samples: Int) -> Int {
        (max(samples, 0) / (step / 2) + 1) / 2 * step
    }

    /// `count` empty frames of `size` samples, behind the TOC byte `base` (its frame count code 0),
    /// in as few packets as RFC 6716 §3.2 allows: code 0 for one frame, 1 for two, 3 with a frame
    /// count byte for more (no padding, every frame 0 bytes).
    private static func frames(_ base: UInt8, size: Int, count: Int, _ body: (UnsafeRawBufferPointer, Int) throws -> Void) rethrows {
        var left = count
        let most = min(maxFrames, maxPacketSamples / size)
        while left > 0 {
            let n = min(left, most)
            let packet: [UInt8] = n == 1 ? [base] : n == 2 ? [base | 1] : [base | 3, UInt8(truncatingIfNeeded: n)]
            try packet.withUnsafeBytes { try body($0, n * size) }
            left -= n
        }
    }

    /// The TOC byte of a CELT-only configuration (16-31) of `toc`'s bandwidth (a medium band, which
    /// CELT lacks, as wideband) and channels, with frames of 2.5, 5, 10 or 20 ms (`sizeIndex` 0-3).
    private static func celt(like toc: UInt8, sizeIndex: Int) -> UInt8 {
        let config = Int(toc >> 3)  // bounded: five bits
        let band = switch config {
        case 0..<4, 16..<20: 0       // narrowband
        case 4..<12, 20..<24: 1      // medium and wide
        case 12..<14, 24..<28: 2     // super-wideband
        default: 3                   // fullband
        }
        return UInt8(truncatingIfNeeded: (16 + 4 * band + sizeIndex) << 3) | toc & 0x04
    }
}
