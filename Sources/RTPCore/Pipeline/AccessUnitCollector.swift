/// The books both NAL unit assemblers keep (H.264's `AccessUnitAssembler`, H.265's
/// `HEVCAccessUnitAssembler`): NAL units gathered in Annex-B form into a reused buffer, the packets
/// each came in, what the open access unit lost (and what a loss before it opened cost its head),
/// and the hand-over of a finished access unit, the units after a boundary carried into the next.
/// Where access units begin and what their slices say is the codec's: the assemblers decide, and
/// this keeps the books.
final class AccessUnitCollector {
    let maxAccessUnitBytes: Int
    let maxNALUnits: Int
    private let buffer: AccessUnitBuffer
    private(set) var nals: [NALUnitRecord] = []
    /// An access unit is open, at `timestamp`.
    private(set) var isOpen = false
    private(set) var timestamp: UInt32 = 0
    /// A slice of the open access unit came (or a piece of one was lost).
    var hasVCL = false
    /// What the open access unit lost; nil while it is whole.
    private(set) var damage: AccessUnitDamage?
    /// The packet whose units come in now; the depacketizer sets it.
    var packet: Int64 = 0
    /// The packets the open access unit came in.
    private(set) var span = PacketSpan()
    /// Where a run of units that may begin the next picture (parameter sets, SEI, an AUD) began
    /// after the slices, and the packets before it: the access unit's, should the boundary hold.
    private(set) var tentativeBoundary: Int?
    private var spanBeforeBoundary: PacketSpan?
    private var nalStart: Int?
    private var nalFirstPacket: Int64 = 0
    /// The type of the NAL unit begun last, and whether it is a slice (whose bytes may be borrowed).
    private(set) var nalType: UInt8 = 0
    private var nalIsVCL = false
    /// Packets were lost after the last access unit was handed on.
    var lossSinceLastAccessUnit = false
    /// Loss noted before the next access unit opened: it lost something at its head.
    private var pendingHeadDamage: AccessUnitDamage?
    private(set) var markersSeen = false

    init(maxAccessUnitBytes: Int, maxNALUnits: Int) {
        self.maxAccessUnitBytes = maxAccessUnitBytes
        self.maxNALUnits = maxNALUnits
        buffer = AccessUnitBuffer(capacity: min(maxAccessUnitBytes, 1 << 20))
        nals.reserveCapacity(64)
    }

    /// Whether the access unit in progress refers to bytes in `memory` (see `startNAL`'s `borrowing`).
    func refers(to memory: UnsafeRawBufferPointer) -> Bool { buffer.refers(to: memory) }

    /// Copies what the access unit in progress holds of `memory`, which may then be reused.
    func stopReferring(to memory: UnsafeRawBufferPointer) { buffer.copyViews(pointingInto: memory) }

    /// Nothing is held: no unit, not even parameter sets carried towards the next access unit.
    var isEmpty: Bool { buffer.isEmpty }

    func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withBytes(range, body)
    }

    // MARK: Access units

    func open(at ts: UInt32) {
        isOpen = true
        timestamp = ts
        if let pending = pendingHeadDamage { damage = damage.map { $0.merged(with: pending) } ?? pending }
        pendingHeadDamage = nil
    }

    /// The first of a run of units after the slices that may begin the next picture.
    func markTentativeBoundary() {
        guard tentativeBoundary == nil else { return }
        tentativeBoundary = nals.count
        spanBeforeBoundary = span
    }

    /// A slice of the same picture followed the run: it belongs to this access unit after all.
    func dropTentativeBoundary() {
        tentativeBoundary = nil
        spanBeforeBoundary = nil
    }

    /// Closes the open access unit (the caller has aborted a unit in progress); `handOn` then gives
    /// it on, unless it held nothing to give.
    func close() {
        isOpen = false
        tentativeBoundary = nil
    }

    /// A NAL unit is begun and not yet ended.
    var hasNALInProgress: Bool { nalStart != nil }

    /// Hands on the access unit made of the NAL units before index `boundary` (all when nil):
    /// `describe` reads its units (their byte count and packets given) once, and `deliver` gets the
    /// description with the Annex-B pieces and the unit records, valid during the call. Units from
    /// `boundary` on (SEI and parameter sets of the next picture) are carried into the next access
    /// unit, with the damage, since what was lost may have been in them. Returns whether units were
    /// carried; the caller then forgets the picture, or resets.
    func handOn<Unit: HandedOnAccessUnit>(before boundary: Int?,
                                          describe: (_ units: ArraySlice<NALUnitRecord>, _ byteCount: Int, _ packets: PacketSpan) -> Unit,
                                          to deliver: (Unit) throws -> Void) rethrows -> Bool {
        let end = boundary ?? nals.count
        let byteEnd = end < nals.count ? nals[end].offset : buffer.count
        var packets = span, carried = PacketSpan()
        if end < nals.count, let before = spanBeforeBoundary {
            for record in nals[end...] {
                for p in record.firstPacket...max(record.firstPacket, record.lastPacket) { carried.add(p) }
            }
            packets = before
        }
        var unit = describe(nals[0..<end], byteEnd, packets)
        try buffer.withPieces(upTo: byteEnd) { pieces in
            try nals.withUnsafeBufferPointer { records in
                unit.pieces = pieces
                unit.nalUnits = UnsafeBufferPointer(rebasing: records[0..<end])
                try deliver(unit)
            }
        }
        lossSinceLastAccessUnit = false
        guard end < nals.count else { return false }
        buffer.removeFirst(byteEnd)
        nals.removeSubrange(0..<end)
        for i in nals.indices { nals[i].offset -= byteEnd }
        if let d = damage { addPendingHeadDamage(d.reasons.first ?? .missingPackets, missing: d.missingPackets) }
        span = carried
        return true
    }

    /// Forgets what the picture so far said; the units carried into the next access unit stay.
    func forgetPicture() {
        hasVCL = false
        damage = nil
        spanBeforeBoundary = nil
    }

    func reset() {
        buffer.removeAll()
        nals.removeAll(keepingCapacity: true)
        isOpen = false
        forgetPicture()
        span = PacketSpan()
        tentativeBoundary = nil
        nalStart = nil
    }

    /// Forgets the access unit in progress and what loss left pending (after a source restart).
    func restart() {
        reset()
        pendingHeadDamage = nil
        lossSinceLastAccessUnit = false
    }

    // MARK: NAL units

    /// Starts a NAL unit of `headerSize` bytes, which `writeHeader` writes after the start code, and
    /// `body`. Slices may be borrowed (`borrowing`); everything else is read again. False when it
    /// would pass a bound: then it is dropped, and the access unit damaged.
    func startNAL(type: UInt8, isVCL: Bool, headerSize: Int, body: UnsafeRawBufferPointer, borrowing: Bool,
                  writeHeader: (AccessUnitBuffer) -> Void) -> Bool {
        span.add(packet)
        nalFirstPacket = packet
        nalType = type
        nalIsVCL = isVCL
        guard buffer.count + 4 + headerSize + body.count <= maxAccessUnitBytes, nals.count < maxNALUnits else {
            oversize()
            return false
        }
        nalStart = buffer.count
        writeHeader(buffer)
        buffer.append(body, borrowing: borrowing && isVCL)
        return true
    }

    /// Appends a later fragment to the NAL unit begun last. False when that passed the bound and
    /// dropped the unit.
    @inline(__always)
    func appendNAL(_ bytes: UnsafeRawBufferPointer, borrowing: Bool) -> Bool {
        guard nalStart != nil else { return true }
        span.add(packet)
        guard buffer.count + bytes.count <= maxAccessUnitBytes else {
            oversize()
            return false
        }
        buffer.append(bytes, borrowing: borrowing && nalIsVCL)
        return true
    }

    /// Ends the NAL unit begun last, and returns where it lies.
    func endNAL() -> NALUnitRecord? {
        guard let start = nalStart else { return nil }
        nalStart = nil
        let record = NALUnitRecord(offset: start, length: buffer.count - start, type: nalType,
                                   firstPacket: nalFirstPacket, lastPacket: packet)
        nals.append(record)
        return record
    }

    /// Drops the NAL unit begun last, a piece of it missing; false when none was begun.
    @discardableResult
    func abortNAL() -> Bool {
        guard let start = nalStart else { return false }
        buffer.remove(start..<buffer.count)
        nalStart = nil
        addDamage(.unfinishedFragment, beforeFirstSlice: !hasVCL)
        return true
    }

    /// Drops the unit at `index` of the open access unit (a repeated parameter set).
    func removeNAL(at index: Int) {
        let record = nals[index]
        buffer.remove(record.offset..<record.offset + record.length)
        nals.remove(at: index)
        for i in index..<nals.count { nals[i].offset -= record.length }
    }

    private func oversize() {
        if let start = nalStart { buffer.remove(start..<buffer.count) }
        nalStart = nil
        addDamage(.overMaxFrameBytes, beforeFirstSlice: false)
    }

    // MARK: Packets and loss

    func noteMarker() { markersSeen = true }

    /// The packet now arriving belongs to the open access unit (a piece of it that was lost).
    func notePacket() { span.add(packet) }

    func addDamage(_ reason: FrameRecord.Reason, missing: Int = 0, beforeFirstSlice: Bool) {
        var d = damage ?? AccessUnitDamage()
        d.add(reason, missing: missing, beforeFirstSlice: beforeFirstSlice)
        damage = d
    }

    func addPendingHeadDamage(_ reason: FrameRecord.Reason, missing: Int = 0, beforeFirstSlice: Bool = true) {
        var d = pendingHeadDamage ?? AccessUnitDamage()
        d.add(reason, missing: missing, beforeFirstSlice: beforeFirstSlice)
        pendingHeadDamage = d
    }
}

/// An access unit as an assembler hands it on: its Annex-B pieces and unit records, valid only
/// during the call.
protocol HandedOnAccessUnit {
    var pieces: UnsafeBufferPointer<UnsafeRawBufferPointer> { get set }
    var nalUnits: UnsafeBufferPointer<NALUnitRecord> { get set }
}
