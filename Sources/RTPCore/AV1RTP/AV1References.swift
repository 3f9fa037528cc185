/// Which AV1 temporal units a loss damages. Where every packet of a unit carries the dependency
/// descriptor, each frame of the unit (one per spatial layer) refers to the frames its descriptor
/// names, by frame number: the unit's references are intact when each of those is in the unit or
/// was written intact, so a lost frame that nothing refers to (a top temporal layer's) costs only
/// itself. Without it, every unit refers to every one before it up to a keyframe.
struct AV1References: FrameReferences {
    private var layers = LayerReferences()
    /// Frames by number: a custom reference reaches 4096 frames back (three nibbles).
    private var pictures = PictureReferences(slots: 4096)
    /// The last template dependency structure the descriptors carried.
    private var structure: FrameDependencyStructure?
    /// The frames of the unit whose packets are coming, and of the unit being judged.
    private var arriving = UnitFrames(), judged = UnitFrames()

    /// A unit's frames, in order, as their descriptors named them; `described`: every packet of the
    /// unit had a descriptor that read.
    private struct UnitFrames {
        var frames: [(number: UInt16, frame: FrameDependencyStructure.Template)] = []
        var described = true

        mutating func clear() {
            frames.removeAll(keepingCapacity: true)
            described = true
        }

        var known: Bool { described && !frames.isEmpty }
    }

    init() {
        arriving.frames.reserveCapacity(8)
        judged.frames.reserveCapacity(8)
    }

    mutating func packet(of frame: AV1AggregationHeader, headerExtension: UnsafeRawBufferPointer) {
        guard !headerExtension.isEmpty, let descriptor = DependencyDescriptor(headerExtension, current: structure) else {
            arriving.described = false
            return
        }
        if let attached = descriptor.structure { structure = attached }
        // One frame per spatial layer; more than that many is no unit to reason about.
        guard arriving.frames.last?.number != descriptor.frameNumber else { return }
        guard arriving.frames.count < 8 else {
            arriving.described = false
            return
        }
        arriving.frames.append((descriptor.frameNumber, descriptor.frame))
    }

    mutating func observe(_ frame: AV1AggregationHeader) {
        swap(&arriving, &judged)
        arriving.clear()
    }

    func intact(_ frame: AV1AggregationHeader) -> Bool {
        guard judged.known else { return layers.intact(layer: 0, sync: false) }
        for (i, f) in judged.frames.enumerated() {
            for k in 0..<f.frame.references.count {
                let reference = f.number &- UInt16(truncatingIfNeeded: f.frame.references[k])
                let inUnit = judged.frames[..<i].contains { $0.number == reference }
                if !inUnit && !pictures.intact(Int(truncatingIfNeeded: reference)) { return false }
            }
        }
        return true
    }

    func isDiscardable(_ frame: AV1AggregationHeader) -> Bool {
        judged.known && judged.frames.allSatisfy { !$0.frame.isReferenced }
    }

    mutating func lost(_ frame: AV1AggregationHeader) {
        for f in judged.frames { pictures.note(Int(truncatingIfNeeded: f.number), intact: false) }
        layers.lost(layer: 0)
    }

    mutating func lostWhole() { layers.lostWhole() }

    mutating func wrote(_ frame: AV1AggregationHeader, isKeyframe: Bool, referencesIntact: Bool) {
        for f in judged.frames { pictures.note(Int(truncatingIfNeeded: f.number), intact: referencesIntact) }
        layers.wrote(layer: 0, sync: false, isKeyframe: isKeyframe)
    }
}
