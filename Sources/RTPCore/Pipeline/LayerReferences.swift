/// Which temporal layers of a stream may refer to a lost picture (VP8's TID and Y, RFC 7741 §4.2;
/// VP9's alike): what makes a frame's references intact or damaged, so that a loss costs only the
/// frames that can refer to what was lost.
///
/// A frame of layer t refers to frames of layers 0 to t. A lost frame of layer t that others may
/// refer to (not marked non-reference) damages every later frame of layer t and above, until a
/// keyframe or, for each of those layers, a layer-sync frame (one that refers to base-layer frames
/// only) with the base layer intact. A lost base-layer frame damages everything to the next
/// keyframe. A stream without layer information is all layer 0: any loss damages until the next
/// keyframe.
struct LayerReferences {
    /// Bit t set while layer t holds a lost or damaged picture that later frames may refer to.
    private var damaged: UInt8 = 0
    /// The last TL0PICIDX seen, whose continuity shows lost base-layer frames no packet came of.
    private var tl0PictureIndex: Int?
    /// A frame carried a temporal layer: losses of unknown layer need not reach the base layer.
    private var layered = false

    /// The bit of `layer`, of the eight kept (TID has three bits).
    private static func bit(_ layer: Int) -> UInt8 { 1 << UInt8(truncatingIfNeeded: min(max(layer, 0), 7)) }
    /// The bits of layers 0 through `layer`.
    private static func upTo(_ layer: Int) -> UInt8 { bit(layer) &* 2 &- 1 }

    /// Whether a frame of `layer` has its references intact; `sync`: it refers to the base layer only.
    func intact(layer: Int, sync: Bool) -> Bool {
        damaged & (sync ? 1 : Self.upTo(layer)) == 0
    }

    /// A frame came with `tl0PictureIndex` (L) and `layer` (T): a gap in the index means base-layer
    /// frames were lost whole.
    mutating func observe(tl0PictureIndex index: Int?, layer: Int?) {
        if layer != nil { layered = true }
        guard let index else { return }
        if let last = tl0PictureIndex {
            let expected = layer == 0 ? (last + 1) & 0xff : last
            if index != expected { damaged |= 1 }
        }
        tl0PictureIndex = index
    }

    /// A frame of `layer` that others may refer to was lost or dropped.
    mutating func lost(layer: Int) {
        damaged |= Self.bit(layer)
    }

    /// Whole frames were lost, of no known layer: with layers and the base layer's index continuous
    /// (checked by `observe` on the next frame), they were above the base layer, in any of them.
    mutating func lostWhole() {
        damaged |= layered && tl0PictureIndex != nil ? 0xfe : 0xff
    }

    /// A frame of `layer` with its references intact is a switching-up point (VP9's U): the frames of
    /// the layers above it refer to nothing before it in those layers, so their damage is mended.
    mutating func switchedUp(at layer: Int) {
        damaged &= Self.upTo(layer)
    }

    /// A frame of `layer` was written: a keyframe mends every layer, a sync frame with the base
    /// layer intact mends its own.
    mutating func wrote(layer: Int, sync: Bool, isKeyframe: Bool) {
        if isKeyframe {
            damaged = 0
        } else if sync && damaged & 1 == 0 {
            damaged &= ~Self.bit(layer)
        }
    }
}
