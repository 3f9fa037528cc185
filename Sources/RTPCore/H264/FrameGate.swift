/// Decides what becomes of each access unit the assembler finishes, in decoding order, and gives
/// every one from the stream's first keyframe on a `FrameRecord`:
///
/// - **Damaged** ones are dropped, unless every loss lay before the first slice (the gap held SPS,
///   PPS, SEI or an AUD), the slices that came start the picture (first_mb_in_slice 0), and the
///   parameter sets they name are cached: then the picture lost nothing, and it is written,
///   repaired, with those parameter sets.
/// - **The keyframe gate:** output starts at the first keyframe, and again after a source restart.
///   With `waitForKeyframeAfterLoss`, frames whose references were lost (`ReferenceContinuity`)
///   are dropped until the next keyframe; a lost non-reference picture costs nothing more.
/// - **Parameter sets** are put in front of a keyframe or repaired unit that lacks them, and of any
///   unit whose SPS or PPS changed since it was last written (a new SPS that came in an access unit
///   that was dropped). A unit whose slices name a PPS that never came is dropped.
final class FrameGate {
    /// Gives the verdicts, and holds what they leave: the tally, the clock, the keyframe wait.
    let verdicts: FrameVerdicts
    private var continuity = ReferenceContinuity()
    private var configuration: VideoFormatConfiguration { verdicts.configuration }
    /// The generation (`ParameterSetCache`) of the SPS and PPS last written under each id.
    private var writtenSPS = [UInt32](repeating: 0, count: 32)
    private var writtenPPS = [UInt32](repeating: 0, count: 256)

    init(verdicts: FrameVerdicts) {
        self.verdicts = verdicts
    }

    /// `arrival`: when the packet that completed it arrived, on the packet clock. `assembler` is the
    /// one handing `au` on, for its parameter sets and, where needed, its first slice's header.
    func admit(_ au: AccessUnitAssembler.Assembled, from assembler: AccessUnitAssembler, arrival: Int64) throws {
        let cache = assembler.parameterSets
        let newPicture = au.startsAtFirstMacroblock && !(au.frameNum?.fieldPicture ?? false)
        let pts = verdicts.presentationTime(timestamp: au.timestamp, arrival: arrival, isIDR: au.isIDR, newPicture: newPicture) {
            assembler.firstSlicePicture().map { p, sps in
                (PresentationClock.Picture(
                    isIDR: p.idrPicFlag, isReference: p.isReference,
                    picOrderCntLsb: sps.picOrderCntType == 0 ? p.picOrderCntLsb : nil,
                    maxPicOrderCntLsb: 1 << (sps.log2MaxPicOrderCntLsbMinus4 + 4)), sps.frameRateFraction)
            }
        }

        let spsId = au.firstSlicePPSId.flatMap { cache.spsId(forPPS: $0) }
        let referencesIntact = continuity.referencesIntact(au)
        let facts = FrameVerdicts.Facts(
            timestamp: au.timestamp, packets: au.packets, bytes: au.byteCount, isKeyframe: au.isKeyframe, damage: au.damage,
            pts: pts, slicesBeginPicture: au.startsAtFirstMacroblock && au.slicesParsed,
            slicesNameParameterSets: au.firstSlicePPSId != nil,
            slicesHaveParameterSets: spsId != nil && au.slicePPSIds.allSatisfy { cache.hasParameterSets(forPPS: $0) },
            referencesIntact: referencesIntact)
        guard case .toWrite(let record) = try verdicts.judge(facts) else {
            continuity.record(au, written: false)
            return
        }

        var accessUnit = AccessUnit(record: record, pts: pts, pieces: au.pieces, isIDR: au.isIDR,
                                    frameRate: au.firstSlicePPSId.flatMap { cache.frameRate(forPPS: $0) }, arrival: arrival,
                                    codec: .h264)
        let taken: Bool
        let early = au.nalUnits.beforeFirstSlice(isVCL: NALUnitType.isVCL)
        if let spsId, let ppsId = au.firstSlicePPSId {
            // A keyframe or a repaired unit must carry its parameter sets; any unit, those that
            // changed since they were last written. Sets that come only after the first slice do
            // not serve it.
            let mustCarry = au.isKeyframe || record.status == .repaired
            let carriesSPS = au.spsIds & (1 << spsId) != 0 && early.contains { $0.type == NALUnitType.sps }
            let carriesPPS = au.ppsIds.contains(ppsId) && early.contains { $0.type == NALUnitType.pps }
            let needSPS = !carriesSPS && (mustCarry || writtenSPS[Int(spsId)] != cache.spsGeneration(id: spsId))
            let needPPS = !carriesPPS && (mustCarry || writtenPPS[Int(ppsId)] != cache.ppsGeneration(id: ppsId))
            taken = try write(&accessUnit, au, before: early, sps: needSPS ? cache.sps(id: spsId) : nil,
                              pps: needPPS ? cache.pps(id: ppsId) : nil)
        } else {
            taken = try write(&accessUnit, au, before: early, sps: nil, pps: nil)
        }
        continuity.record(au, written: taken)
        guard taken else { return }
        verdicts.wrote(accessUnit.record, isKeyframe: au.isKeyframe, referencesIntact: referencesIntact)
        // What the output now has: the sets the unit carried, and those put in front of it.
        for id in 0..<32 where au.spsIds & (1 << id) != 0 { noteWritten(sps: UInt32(id), cache) }
        au.ppsIds.forEach { noteWritten(pps: $0, cache) }
        if let spsId, let ppsId = au.firstSlicePPSId {
            noteWritten(sps: spsId, cache)
            noteWritten(pps: ppsId, cache)
        }
    }

    // Written only when changed: most access units change nothing, and a write costs a uniqueness check.
    private func noteWritten(sps id: UInt32, _ cache: ParameterSetCache) {
        let generation = cache.spsGeneration(id: id)
        if writtenSPS[Int(id)] != generation { writtenSPS[Int(id)] = generation }
    }

    private func noteWritten(pps id: UInt32, _ cache: ParameterSetCache) {
        let generation = cache.ppsGeneration(id: id)
        if writtenPPS[Int(id)] != generation { writtenPPS[Int(id)] = generation }
    }

    /// Hands `accessUnit` on, with `sps` and `pps` put in front of its slices when given: after a
    /// leading AUD, or after the access unit's own last SPS before them (of `early`, its units
    /// before the first slice), so that the order of §7.4.1.2.3 holds.
    private func write(_ accessUnit: inout AccessUnit, _ au: AccessUnitAssembler.Assembled,
                       before early: Slice<UnsafeBufferPointer<NALUnitRecord>>, sps: [UInt8]?, pps: [UInt8]?) throws -> Bool {
        // Built only when something is put in: most units take nothing, and an array costs an allocation.
        var inserted: [[UInt8]] = []
        if let sps { inserted.append(sps) }
        if let pps { inserted.append(pps) }
        var at = 0
        for nal in early where !inserted.isEmpty {
            if nal.type == NALUnitType.accessUnitDelimiter && nal.offset == 0 { at = nal.length }
            if nal.type == NALUnitType.sps { at = nal.offset + nal.length }
        }
        return try verdicts.write(&accessUnit, pieces: au.pieces, units: au.nalUnits, inserting: inserted, at: at)
    }

    /// The source restarted: output waits for a keyframe again, and nothing before refers on.
    func restart() {
        verdicts.restart()
        continuity = ReferenceContinuity()
    }
}
