/// The NAL unit types this stream's whole access units began with, learned apart for keyframes and
/// for other pictures: after a loss, whether the packet that comes next can be the true start of an
/// access unit, or its head was lost too.
struct LeadingNALTypes {
    private var keyframes: UInt64 = 0
    private var others: UInt64 = 0

    /// `types`: bit n for type n.
    mutating func learn(_ types: UInt64, keyframe: Bool) {
        if keyframe { keyframes |= types } else { others |= types }
    }

    /// Whether `type` begins access units as learned; before anything is learned, any does. A slice
    /// (`keyframeSlice` non-nil) is compared with the pictures of its kind, other units with both.
    func admit(_ type: UInt8, keyframeSlice: Bool?) -> Bool {
        let learned = keyframeSlice.map { $0 ? keyframes : others } ?? keyframes | others
        return learned == 0 || learned & 1 << type != 0
    }
}
