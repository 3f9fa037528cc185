/// Whether the pictures an access unit may refer to all reached the decoder, for each access unit
/// in decoding order. Losing a non-reference picture (nal_ref_idc 0) harms no other picture, so
/// only a lost reference picture breaks the chain, until the next keyframe mends it.
///
/// A dropped access unit tells by the nal_ref_idc of the slices that arrived. Where none did, or
/// whole pictures may have gone with lost packets, frame_num tells (H.264 §7.4.3): with
/// gaps_in_frame_num_value_allowed_flag 0, a picture's frame_num is the last reference picture's
/// plus one, modulo MaxFrameNum, exactly when no reference picture came between them. When neither
/// can tell (no parameter sets, field pictures, gaps allowed), a reference picture is taken as lost.
struct ReferenceContinuity {
    /// Every reference picture since the last keyframe reached the decoder.
    private(set) var intact = false
    /// frame_num of the last reference picture written.
    private var lastReferenceFrameNum: UInt32?
    /// A dropped access unit with no slice to say whether it was a reference picture.
    private var unknownLoss = false

    /// Whether `au`'s references are intact. Call once per access unit, before `record`.
    mutating func referencesIntact(_ au: AccessUnitAssembler.Assembled) -> Bool {
        if au.followsLoss || unknownLoss {
            if au.isDamaged && au.frameNum == nil && !au.isIDR {
                // None of its slices came to tell frame_num: the next picture's will.
                unknownLoss = true
            } else {
                unknownLoss = false
                if !continuesFrameNumbering(au) { intact = false }
            }
        }
        // A keyframe is where decoding may start: it needs nothing before it.
        return intact || au.isKeyframe
    }

    /// What became of `au`: whether the decoder gets it.
    mutating func record(_ au: AccessUnitAssembler.Assembled, written: Bool) {
        let isReference = au.nalRefIdc.map { $0 != 0 }
        if written {
            if au.isKeyframe { intact = true }
            if isReference == true, let frameNum = au.frameNum { lastReferenceFrameNum = frameNum.value }
        } else if let isReference {
            if isReference { intact = false }
        } else {
            unknownLoss = true
        }
    }

    /// Whether no reference picture is missing between the last one written and `au`.
    private func continuesFrameNumbering(_ au: AccessUnitAssembler.Assembled) -> Bool {
        // An IDR refers to nothing before it.
        if au.isIDR { return true }
        guard let frameNum = au.frameNum, let last = lastReferenceFrameNum, !frameNum.gapsAllowed,
              !frameNum.fieldPicture else { return false }
        return frameNum.value == (last + 1) % frameNum.maxFrameNum
    }
}
