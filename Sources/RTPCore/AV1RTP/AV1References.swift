/// Which AV1 temporal units a loss damages, and where a unit begins. Where the packets carry the
/// dependency descriptor, each frame of a unit (one per spatial layer) refers to the frames its
/// descriptor names, by frame number: the unit's references are intact when each of those is in the
/// unit or was written intact, so a lost frame that nothing refers to (a top temporal layer's) costs
/// only itself. Its start-of-frame bit shows a unit's first packet after a loss. Without it, every
/// unit refers to every one before it up to a keyframe, and a unit after a loss may lack its start.
struct AV1References: FrameReferences {
    private var layers = LayerReferences()
    /// What the descriptors say, from the first packet that carries one: a stream without them
    /// costs neither its memory nor, on every frame, its reference counting.
    private var described: DescribedFrames?

    mutating func packet(of frame: AV1AggregationHeader, headerExtension: UnsafeRawBufferPointer) {
        if described == nil {
            guard !headerExtension.isEmpty else { return }
            described = DescribedFrames()
        }
        described?.packet(headerExtension)
    }

    func beginsFrame(_ frame: AV1AggregationHeader, headerExtension: UnsafeRawBufferPointer) -> Bool {
        described?.beginsUnit(headerExtension) ?? false
    }

    func observe(_ frame: AV1AggregationHeader) { described?.endUnit() }

    func intact(_ frame: AV1AggregationHeader) -> Bool {
        described?.referencesIntact ?? layers.intact(layer: 0, sync: false)
    }

    func isDiscardable(_ frame: AV1AggregationHeader) -> Bool { described?.isDiscardable ?? false }

    mutating func lost(_ frame: AV1AggregationHeader) {
        described?.judged(intact: false)
        layers.lost(layer: 0)
    }

    mutating func lostWhole() { layers.lostWhole() }

    mutating func wrote(_ frame: AV1AggregationHeader, isKeyframe: Bool, referencesIntact: Bool) {
        described?.judged(intact: referencesIntact)
        layers.wrote(layer: 0, sync: false, isKeyframe: isKeyframe)
    }
}

/// The frames the dependency descriptors named: those of the unit whose packets are coming, those
/// of the unit being judged, and which recent frames were written intact.
private final class DescribedFrames {
    /// A unit's frames, in order; `described`: every packet of the unit had a descriptor that read.
    private struct Unit {
        var frames: [(number: UInt16, frame: FrameDependencyStructure.Template)] = []
        var described = true

        var known: Bool { described && !frames.isEmpty }
    }

    /// The last template dependency structure the descriptors carried.
    private var structure: FrameDependencyStructure?
    private var arriving = Unit(), judging = Unit()
    /// Frames by number: a custom reference reaches 4096 frames back (three nibbles).
    private var pictures = PictureReferences(slots: 4096)

    init() {
        arriving.frames.reserveCapacity(8)
        judging.frames.reserveCapacity(8)
    }

    func packet(_ data: UnsafeRawBufferPointer) {
        guard !data.isEmpty, let descriptor = DependencyDescriptor(data, current: structure) else {
            arriving.described = false
            return
        }
        if let attached = descriptor.structure { structure = attached }
        guard arriving.frames.last?.number != descriptor.frameNumber else { return }
        // One frame per spatial layer; more than that many is no unit to reason about.
        guard arriving.frames.count < 8 else {
            arriving.described = false
            return
        }
        arriving.frames.append((descriptor.frameNumber, descriptor.frame))
    }

    /// Whether the packet's descriptor starts a frame that is surely its unit's first: of spatial
    /// layer 0 (a unit's frames come in the order of their spatial IDs), or numbered right after the
    /// last unit's last frame.
    func beginsUnit(_ data: UnsafeRawBufferPointer) -> Bool {
        guard !data.isEmpty, let descriptor = DependencyDescriptor(data, current: structure), descriptor.startOfFrame else { return false }
        return descriptor.frame.spatialID == 0 || judging.frames.last.map { $0.number &+ 1 == descriptor.frameNumber } == true
    }

    /// The unit's packets are over: it is judged next.
    func endUnit() {
        swap(&arriving, &judging)
        arriving.frames.removeAll(keepingCapacity: true)
        arriving.described = true
    }

    /// Whether each frame the unit's frames refer to is in the unit, before them, or was written
    /// intact; nil when the descriptors do not tell.
    var referencesIntact: Bool? {
        guard judging.known else { return nil }
        for (i, f) in judging.frames.enumerated() {
            for k in 0..<f.frame.references.count {
                let reference = f.number &- UInt16(truncatingIfNeeded: f.frame.references[k])
                let inUnit = judging.frames[..<i].contains { $0.number == reference }
                if !inUnit && !pictures.intact(Int(truncatingIfNeeded: reference)) { return false }
            }
        }
        return true
    }

    /// No decode target needs any frame of the unit.
    var isDiscardable: Bool { judging.known && judging.frames.allSatisfy { !$0.frame.isReferenced } }

    /// The unit judged was written (intact or not) or lost.
    func judged(intact: Bool) {
        for f in judging.frames { pictures.note(Int(truncatingIfNeeded: f.number), intact: intact) }
    }
}
