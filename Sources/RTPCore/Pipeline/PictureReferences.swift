/// Which recent pictures, by number (VP9's PictureID, the dependency descriptor's frame number),
/// were written whole with their references intact: what a picture's references are checked
/// against. A picture not among them (lost whole, or too long ago) is taken as damaged.
struct PictureReferences {
    /// The last pictures, by number modulo the slot count.
    private var slots: [(id: Int, intact: Bool)]
    private let mask: Int

    /// `slots`: a power of two, at least as far back as a reference may reach.
    init(slots count: Int) {
        precondition(count > 0 && count.nonzeroBitCount == 1)
        slots = Array(repeating: (-1, false), count: count)
        mask = count - 1
    }

    func intact(_ id: Int) -> Bool {
        let slot = slots[id & mask]
        return slot.id == id && slot.intact
    }

    mutating func note(_ id: Int, intact: Bool) { slots[id & mask] = (id, intact) }
}
