/// Decides what becomes of each H.265 access unit the assembler finishes, as `FrameGate` does for
/// H.264, and gives every one from the stream's first IRAP picture on a `FrameRecord`:
///
/// - **Damaged** ones are dropped, unless every loss lay before the first slice segment, the
///   segments that came begin the picture, and their parameter sets are cached: then the unit is
///   written, repaired, with them.
/// - **The keyframe gate:** output starts at an IRAP picture (IDR, CRA or BLA), and again after a
///   source restart. The RASL pictures of a CRA that output starts at, and of a BLA, refer to
///   pictures before it: they are dropped as `skippedLeadingPicture`. With
///   `waitForKeyframeAfterLoss`, pictures whose references were lost are dropped until the next IRAP.
/// - **Parameter sets**: VPS, SPS and PPS are put in front of an IRAP or repaired unit that lacks
///   them, and of any unit whose sets changed since they were last written.
final class HEVCFrameGate {
    /// Gives the verdicts, and holds what they leave: the tally, the clock, the keyframe wait.
    let verdicts: FrameVerdicts
    private var continuity = HEVCReferenceContinuity()
    /// Output started at the last IRAP (or it is a BLA): its RASL pictures cannot be decoded.
    private var skippingRASL = false
    /// The generation of each set last written, by kind and id.
    private var written: [[UInt32]] = HEVCParameterSetCache.Kind.allCases.map { Array(repeating: 0, count: $0.capacity) }

    private var configuration: VideoFormatConfiguration { verdicts.configuration }

    init(verdicts: FrameVerdicts) {
        self.verdicts = verdicts
    }

    func admit(_ au: HEVCAccessUnitAssembler.Assembled, from assembler: HEVCAccessUnitAssembler, arrival: Int64) throws {
        let cache = assembler.parameterSets
        let chain = au.firstSlicePPSId.flatMap { cache.chain(forPPS: $0) }
        let sps = chain.flatMap { cache.sps(id: $0.sps) }
        // Pictures are timed anew in decoding order: H.265's picture order is not read here.
        let pts = verdicts.presentationTime(timestamp: au.timestamp, arrival: arrival, isIDR: au.isIRAP,
                                            newPicture: au.startsAtFirstSlice) { (nil, sps?.frameRateFraction) }

        let isReference = isReferencePicture(au, sps: sps)
        let referencesIntact = continuity.referencesIntact(au)
        // RASL pictures refer to pictures before their IRAP: where output started at it, or those
        // were lost and damaged frames are not wanted, they cannot be written.
        let facts = FrameVerdicts.Facts(
            timestamp: au.timestamp, packets: au.packets, bytes: au.byteCount, isKeyframe: au.isKeyframe, damage: au.damage,
            pts: pts, slicesBeginPicture: au.startsAtFirstSlice && au.slicesParsed,
            slicesNameParameterSets: au.firstSlicePPSId != nil,
            slicesHaveParameterSets: chain != nil && au.slicePPSIds.allSatisfy { cache.chain(forPPS: $0) != nil },
            referencesIntact: referencesIntact,
            skipsLeadingPicture: au.isRASL && (skippingRASL || (configuration.waitForKeyframeAfterLoss && !referencesIntact)))
        let record: FrameRecord
        switch try verdicts.judge(facts) {
        case .notWritten(let harmless):
            continuity.record(au, isReference: harmless ? false : isReference, written: false)
            return
        case .toWrite(let judged):
            record = judged
        }

        var accessUnit = AccessUnit(record: record, pts: pts, pieces: au.pieces, isIDR: au.isIRAP,
                                    frameRate: sps?.frameRateFraction, arrival: arrival, codec: .h265)
        let early = au.nalUnits.beforeFirstSlice(isVCL: HEVCNALUnitType.isVCL)
        let inserted = chain.map { setsToInsert(au, chain: $0, cache: cache, early: early,
                                                mustCarry: au.isKeyframe || record.status == .repaired) } ?? []
        let taken = try write(&accessUnit, au, before: early, inserting: inserted)
        continuity.record(au, isReference: isReference, written: taken)
        guard taken else { return }
        if au.isKeyframe {
            // Leading pictures decode only when decoding went through the IRAP's predecessors.
            let type = au.pictureType ?? HEVCNALUnitType.craNUT
            skippingRASL = verdicts.waitingForKeyframe || (HEVCNALUnitType.blaWLP...HEVCNALUnitType.blaNLP).contains(type)
        }
        verdicts.wrote(accessUnit.record, isKeyframe: au.isKeyframe, referencesIntact: referencesIntact)
        noteWritten(au, chain: chain, cache: cache)
    }

    /// The parameter sets the unit's first slice needs that it does not carry before that slice: a
    /// keyframe or a repaired unit carries them all, any unit those that changed since last written.
    private func setsToInsert(_ au: HEVCAccessUnitAssembler.Assembled, chain: HEVCParameterSetCache.Chain, cache: HEVCParameterSetCache,
                              early: some Collection<NALUnitRecord>, mustCarry: Bool) -> [[UInt8]] {
        var inserted: [[UInt8]] = []
        for kind in HEVCParameterSetCache.Kind.allCases {
            let id = chain[kind]
            // Sets that come only after the first slice segment do not serve it.
            let carried = au.carried.contains(HEVCAccessUnitAssembler.carriedId(kind, id))
                && early.contains { HEVCParameterSetCache.Kind.of(type: $0.type) == kind }
            guard !carried,
                  mustCarry || written[kind.rawValue][id] != cache.generation(kind, id: id),
                  let bytes = cache.bytes(kind, id: id) else { continue }
            inserted.append(bytes)
        }
        return inserted
    }

    /// What the output now has: the sets the unit carried, and those put in front of it.
    private func noteWritten(_ au: HEVCAccessUnitAssembler.Assembled, chain: HEVCParameterSetCache.Chain?, cache: HEVCParameterSetCache) {
        if let chain {
            for kind in HEVCParameterSetCache.Kind.allCases { written[kind.rawValue][chain[kind]] = cache.generation(kind, id: chain[kind]) }
        }
        au.carried.forEach { member in
            let (kind, id) = HEVCAccessUnitAssembler.carriedSet(member)
            written[kind.rawValue][id] = cache.generation(kind, id: id)
        }
    }

    /// A sub-layer non-reference picture at the stream's highest TemporalId: nothing refers to it.
    /// Nil when no slice segment said what the picture was.
    private func isReferencePicture(_ au: HEVCAccessUnitAssembler.Assembled, sps: HEVCSequenceParameterSet?) -> Bool? {
        guard let type = au.pictureType else { return nil }
        guard HEVCNALUnitType.isSubLayerNonReference(type) else { return true }
        guard let sps else { return true }
        return au.temporalId < Int(sps.maxSubLayersMinus1)
    }

    /// Hands `accessUnit` on, with `inserted` put in front of its slices (after a leading AUD, and
    /// after the sets it carries before them, of `early`, of kinds that precede the first inserted).
    private func write(_ accessUnit: inout AccessUnit, _ au: HEVCAccessUnitAssembler.Assembled,
                       before early: Slice<UnsafeBufferPointer<NALUnitRecord>>, inserting inserted: [[UInt8]]) throws -> Bool {
        var at = 0
        if let first = inserted.first {
            let firstKind = HEVCParameterSetCache.Kind.of(type: HEVCNALHeader(first[0], first[1]).type)!
            for nal in early {
                if nal.type == HEVCNALUnitType.accessUnitDelimiter && nal.offset == 0 { at = nal.length }
                if let kind = HEVCParameterSetCache.Kind.of(type: nal.type), kind.rawValue < firstKind.rawValue {
                    at = nal.offset + nal.length
                }
            }
        }
        return try verdicts.write(&accessUnit, pieces: au.pieces, units: au.nalUnits, inserting: inserted, at: at)
    }

    func restart() {
        verdicts.restart()
        skippingRASL = false
        continuity = HEVCReferenceContinuity()
    }
}

/// Whether the pictures an H.265 access unit may refer to all reached the decoder. H.265 has no
/// frame_num to show that whole pictures went missing, so packets lost between access units count
/// as a lost reference; a dropped picture that nothing refers to (a sub-layer non-reference
/// picture at the highest TemporalId, or a skipped RASL picture) costs nothing. The RASL pictures
/// of an IRAP written while references were broken (or of a BLA) have theirs broken too: they refer
/// to pictures before it.
struct HEVCReferenceContinuity {
    private(set) var intact = false
    private var unknownLoss = false
    private var leadingPicturesBroken = false

    mutating func referencesIntact(_ au: HEVCAccessUnitAssembler.Assembled) -> Bool {
        if au.followsLoss || unknownLoss {
            unknownLoss = false
            if !au.isIRAP { intact = false }
        }
        if au.isRASL && leadingPicturesBroken { return false }
        return intact || au.isKeyframe
    }

    /// `isReference` nil: no slice segment told.
    mutating func record(_ au: HEVCAccessUnitAssembler.Assembled, isReference: Bool?, written: Bool) {
        if let type = au.pictureType {
            if au.isIRAP && written {
                leadingPicturesBroken = !HEVCNALUnitType.isIDR(type) && (!intact || type <= HEVCNALUnitType.blaNLP)
            } else if !au.isRASL && !(type == HEVCNALUnitType.radlN || type == HEVCNALUnitType.radlR) {
                // Leading pictures all precede the trailing ones.
                leadingPicturesBroken = false
            }
        }
        if written {
            if au.isKeyframe { intact = true }
        } else if let isReference {
            if isReference { intact = false }
        } else {
            unknownLoss = true
        }
    }
}
