/// An access-unit assembler of one NAL-based codec (H.264's `AccessUnitAssembler`, H.265's
/// `HEVCAccessUnitAssembler`). The codec says what its NAL headers mean, where its access units
/// begin and what their slices tell; the steps every such assembler takes alike are written once,
/// below: losses, stray fragments, lost aggregation units, markers, handing an access unit on, and
/// the end of the stream. `AccessUnitCollector` keeps the books both read.
protocol NALAccessUnitAssembly: AnyObject {
    /// The NAL unit header as the codec reads it.
    associatedtype Header
    associatedtype Assembled: HandedOnAccessUnit

    var units: AccessUnitCollector { get }
    /// Hands a finished access unit on. A method, not the closure it calls: read through the
    /// protocol, the closure would be wrapped in a thunk allocated every access unit.
    func deliver(_ unit: Assembled) throws
    static func isVCL(_ header: Header) -> Bool
    /// Whether the access unit a loss ends is handed on as following a loss. H.265 says so: it has
    /// no frame_num to tell whether whole pictures went. H.264's damaged unit keeps what came before,
    /// and its frame_num tells the rest.
    static var lossEndingAnAccessUnitPrecedesIt: Bool { get }
    /// Whether `leading` can begin an access unit at all.
    func startsPlausibly(_ leading: (header: Header, body: UnsafeRawBufferPointer)?) -> Bool
    /// Whether `leading` begins access units the way this stream's whole ones began.
    func startsCleanly(_ leading: (header: Header, body: UnsafeRawBufferPointer)?) -> Bool
    /// A lost piece of a slice of the open access unit, its header known: what it says of the picture.
    func noteLostPiece(_ header: Header)
    /// The same, before any access unit is open: what it says of the next picture.
    func noteLostPieceBeforeOpening(_ header: Header)
    func openAccessUnit(at ts: UInt32)
    /// Starts a NAL unit: `body` is what follows its header, the whole unit or a first fragment.
    /// `borrowing`: `body` stays valid until the access unit is handed on.
    func beginNAL(header: Header, body: UnsafeRawBufferPointer, timestamp ts: UInt32, borrowing: Bool) throws
    /// Appends a later fragment to the NAL unit begun last.
    func appendNAL(_ bytes: UnsafeRawBufferPointer, borrowing: Bool)
    func endNAL()
    /// Drops the NAL unit begun last: a piece of it is missing.
    func abortNAL()
    /// What the NAL units of an access unit say about it, read once at its end.
    func describe(_ records: ArraySlice<NALUnitRecord>, byteCount: Int, packets: PacketSpan) -> Assembled
    /// Forgets what the slices so far said (the NAL units carried into the next access unit stay).
    func forgetPicture()
}

extension NALAccessUnitAssembly {
    /// The packet whose units come in now; the depacketizer sets it.
    var packet: Int64 {
        get { units.packet }
        set { units.packet = newValue }
    }

    /// Whether the access unit in progress refers to bytes in `memory` (see `beginNAL`'s `borrowing`).
    func refers(to memory: UnsafeRawBufferPointer) -> Bool { units.refers(to: memory) }

    /// Copies what the access unit in progress holds of `memory`, which may then be reused.
    func stopReferring(to memory: UnsafeRawBufferPointer) { units.stopReferring(to: memory) }

    /// A NAL unit leaves a decoding-order buffer (`header` and `body` read from it): a gap in the
    /// numbers before it is a loss. Returns whether there was one.
    func noteDecodingOrder(of unit: DeinterleavingBuffer.Unit, header: Header, body: UnsafeRawBufferPointer) throws -> Bool {
        packet = unit.packet
        guard unit.followsGap else { return false }
        try noteLoss(before: unit.timestamp, leading: (header, body), missing: 0, reason: .decodingOrderGap)
        return true
    }

    /// A whole NAL unit: begun and ended at once.
    func addNAL(header: Header, body: UnsafeRawBufferPointer, timestamp ts: UInt32, borrowing: Bool) throws {
        try beginNAL(header: header, body: body, timestamp: ts, borrowing: borrowing)
        endNAL()
    }

    @inline(__always)
    func endOfPacket(marker: Bool) throws {
        guard marker else { return }
        units.noteMarker()
        if units.isOpen { try finish() }
    }

    /// `missing` packets (or decoding order numbers) are missing before the one now arriving with
    /// `timestamp`, whose first NAL unit is `leading` (nil for a fragment's continuation). Marks what
    /// the loss may have touched: the access unit open at that timestamp (at its head when no slice
    /// of it has come yet), or the open one and the next.
    func noteLoss(before ts: UInt32, leading: (header: Header, body: UnsafeRawBufferPointer)?, missing: Int,
                  reason: FrameRecord.Reason = .missingPackets) throws {
        if units.isOpen {
            if ts == units.timestamp {
                units.addDamage(reason, missing: missing, beforeFirstSlice: !units.hasVCL)
                units.lossSinceLastAccessUnit = true
                return
            }
            // Whatever was lost may have been this access unit's end.
            units.addDamage(reason, missing: missing, beforeFirstSlice: false)
            if Self.lossEndingAnAccessUnitPrecedesIt { units.lossSinceLastAccessUnit = true }
            try finish()
            units.lossSinceLastAccessUnit = true
            // One packet lost where a marker was due: most likely the one that carried it, so a
            // plausible first unit starts the next access unit whole.
            if reason == .missingPackets && missing == 1 && units.markersSeen && startsPlausibly(leading) { return }
        }
        units.lossSinceLastAccessUnit = true
        // Carried parameter sets, or a first unit that is not how this stream's access units begin:
        // what was lost belonged to the next access unit.
        if !units.isEmpty || !startsCleanly(leading) { units.addPendingHeadDamage(reason, missing: missing) }
    }

    /// A fragment of a unit not begun here (`header` rebuilt from the fragmentation headers): its
    /// start was lost (`startLost`), or a loss cut the unit short before it. The unit is lost, and
    /// the access unit at its timestamp damaged: the open one, or one opened for it, so that it is
    /// accounted for even if nothing of it but such fragments came.
    func noteStrayFragment(header: Header, timestamp ts: UInt32, startLost: Bool = true) throws {
        let isVCL = Self.isVCL(header)
        units.lossSinceLastAccessUnit = true
        if units.isOpen && ts != units.timestamp { try finish() }
        if !units.isOpen { openAccessUnit(at: ts) }
        units.notePacket()
        noteLostPiece(header)
        units.addDamage(startLost ? .missingFragmentStart : .missingPackets, beforeFirstSlice: !units.hasVCL && !isVCL)
    }

    /// A unit of the packet now arriving is lost (one that ran past its aggregation packet, `header`
    /// its NAL header when known): the access unit open at that time is damaged.
    func noteLostUnit(header: Header?, reason: FrameRecord.Reason) {
        // An unknown unit may have been a slice.
        let isVCL = header.map(Self.isVCL) ?? true
        guard units.isOpen else {
            if let header { noteLostPieceBeforeOpening(header) }
            units.addPendingHeadDamage(reason, beforeFirstSlice: !isVCL)
            return
        }
        units.notePacket()
        if let header { noteLostPiece(header) }
        units.addDamage(reason, beforeFirstSlice: !units.hasVCL && !isVCL)
    }

    /// Ends the stream: a NAL unit in progress is incomplete, and so is an access unit without its
    /// marker when the sender uses markers.
    func flush() throws {
        abortNAL()
        if units.isOpen {
            if units.markersSeen { units.addDamage(.incompleteAtEnd, beforeFirstSlice: false) }
            try finish()
        }
        reset()
    }

    /// Hands on the access unit made of the NAL units before index `boundary`; those from
    /// `boundary` on (SEI and parameter sets of the next picture) are carried into the next one.
    func finish(before boundary: Int? = nil) throws {
        abortNAL()
        units.close()
        // No picture yet: carry the parameter sets and SEI into the next access unit. A damaged group
        // without slices was a picture whose slices were lost (such units carry their access unit's
        // timestamp, RFC 6184 §5.1, RFC 7798 §4.1): report it.
        guard units.hasVCL || units.damage != nil else { return }
        // Closures written out, not the methods themselves: a method's reference is allocated.
        let carried = try units.handOn(before: boundary, describe: { describe($0, byteCount: $1, packets: $2) },
                                       to: { try deliver($0) })
        if carried { forgetPicture() } else { reset() }
    }

    func reset() {
        units.reset()
        forgetPicture()
    }
}
