/// Derives decode timestamps from presentation timestamps, which is all RTP carries.
///
/// Pictures arrive in decoding order. When none is displayed more than `reorderDepth` pictures after
/// it is decoded, the k-th decode time can be the (k − depth)-th smallest presentation time: it never
/// decreases and never passes the picture's own PTS. The first `depth` decode times lie before the
/// first PTS, one frame apart, so the muxer starts its timeline there. Depth 0 gives DTS = PTS.
public struct DecodeTimestamps {
    public let reorderDepth: Int
    private var heap: [Int64] = []      // PTS not yet released, smallest first
    private var released: [Int64] = []  // the smallest PTS, in order, as released
    private var emitted = 0
    private var frameStep: Int64 = 1
    private var lastDTS: Int64?

    public init(reorderDepth: Int) {
        self.reorderDepth = reorderDepth
    }

    /// How many pictures must be seen beyond one before its DTS is known.
    public var lookAhead: Int { reorderDepth }

    public mutating func add(pts: Int64) {
        heap.append(pts)
        var i = heap.count - 1
        while i > 0, heap[(i - 1) / 2] > heap[i] {
            heap.swapAt(i, (i - 1) / 2)
            i = (i - 1) / 2
        }
    }

    /// The DTS of the oldest picture not yet given one, whose PTS is `pts`.
    public mutating func next(pts: Int64) -> Int64 {
        let smallest = heap.isEmpty ? pts : popMin()
        if emitted == 0, let following = heap.first, following > smallest { frameStep = following &- smallest }
        released.append(smallest)
        var dts: Int64
        if emitted < reorderDepth {
            // bounded: emitted < reorderDepth, the SPS's (at most 16); wrapping, as the times are the sender's.
            dts = released[0] &- Int64(reorderDepth - emitted) &* frameStep
        } else {
            dts = released[released.count - 1 - reorderDepth]
            if released.count > 2 * (reorderDepth + 1) { released.removeFirst(released.count - reorderDepth - 1) }
        }
        emitted += 1
        // A deeper reordering than announced: never above the PTS, never backwards.
        dts = min(dts, pts)
        if let lastDTS, dts < lastDTS { dts = lastDTS }
        lastDTS = dts
        return dts
    }

    private mutating func popMin() -> Int64 {
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var smallest = i
                if l < heap.count, heap[l] < heap[smallest] { smallest = l }
                if r < heap.count, heap[r] < heap[smallest] { smallest = r }
                if smallest == i { break }
                heap.swapAt(i, smallest)
                i = smallest
            }
        }
        return top
    }
}
