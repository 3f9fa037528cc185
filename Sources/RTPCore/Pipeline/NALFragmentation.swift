/// The fragmented NAL unit in progress (RFC 6184 §5.8's FU-A and FU-B, RFC 7798 §4.4.3's FU): the
/// strict state machine both payload formats share. A unit needs its start and every fragment up to
/// its end, with no sequence gap, or it is dropped whole.
///
/// Without decoding order numbers, fragments go to the assembler as they come. With them, the unit
/// is rebuilt here and handed on whole, since it waits for its DON's turn in a `DeinterleavingBuffer`.
///
/// The assembler comes with each call rather than being held: the depacketizer's own reference to
/// it costs no reference counting on every fragment, where one loaded from here would.
struct NALFragmentation<Assembler: NALAccessUnitAssembly> {
    private(set) var isOpen = false
    private(set) var timestamp: UInt32 = 0
    /// The timestamp of a unit a loss cut short: its later fragments are its tail, not fragments
    /// whose start was lost.
    private var interrupted: UInt32?
    /// The open unit is of a type the codec skips (H.265's reserved ones): so are its fragments.
    private var skipping = false
    /// The open unit is rebuilt in `unit`, not begun in the assembler.
    private var rebuilding = false
    private var unit: [UInt8] = []
    private var don: UInt16 = 0
    private var packet: Int64 = 0

    private(set) var unitsDropped = 0
    private(set) var strayFragments = 0

    /// Whether a later fragment with `timestamp` goes on with the open unit.
    @inline(__always)
    func continues(at timestamp: UInt32) -> Bool { isOpen && timestamp == self.timestamp }

    /// Packets were lost before the one now arriving: the open unit cannot be finished.
    mutating func noteLoss(_ assembler: Assembler) {
        interrupted = isOpen ? timestamp : nil
        drop(assembler)
    }

    /// A packet that is not a later fragment: fragments after it no longer belong to a unit a loss
    /// cut short.
    mutating func forgetInterruption() { interrupted = nil }

    /// Drops the open unit, if any: a piece of it is missing, or something else came in its middle.
    mutating func drop(_ assembler: Assembler) {
        guard isOpen else { return }
        isOpen = false
        guard !skipping else { return }
        unitsDropped += 1
        if !rebuilding { assembler.abortNAL() }
    }

    /// Forgets the open unit without counting it (a source restart).
    mutating func reset() { isOpen = false }

    /// A first fragment (S set): the unit begins in the assembler, unless `skip`. S and E together
    /// are invalid, but real cameras send them: a whole unit.
    mutating func start(_ assembler: Assembler, header: Assembler.Header, body: UnsafeRawBufferPointer, timestamp: UInt32,
                        end: Bool, skip: Bool = false, borrowing: Bool) throws {
        drop(assembler)
        skipping = skip
        rebuilding = false
        if !skip { try assembler.beginNAL(header: header, body: body, timestamp: timestamp, borrowing: borrowing) }
        if end {
            if !skip { assembler.endNAL() }
        } else {
            isOpen = true
            self.timestamp = timestamp
        }
    }

    /// A later fragment (S clear) of the open unit: its bytes, and the unit's end at E.
    @inline(__always)
    mutating func append(_ assembler: Assembler, _ bytes: UnsafeRawBufferPointer, end: Bool, borrowing: Bool) {
        if !skipping { assembler.appendNAL(bytes, borrowing: borrowing) }
        if end {
            if !skipping { assembler.endNAL() }
            isOpen = false
        }
    }

    /// A later fragment of no open unit, or of another picture's: its start was lost, or a loss
    /// cut its unit short. Counted; the assembler hears of it when its header is known (`header`
    /// nil: a unit whose decoding order number shows its loss later, or of a skipped type).
    mutating func stray(_ assembler: Assembler, header: Assembler.Header?, timestamp: UInt32) throws {
        drop(assembler)
        strayFragments += 1
        guard let header else { return }
        try assembler.noteStrayFragment(header: header, timestamp: timestamp, startLost: interrupted != timestamp)
    }

    // MARK: Rebuilt for a decoding-order buffer

    /// A first fragment, with its unit's decoding order number: `header` (the NAL header's bytes)
    /// and `body` start the unit rebuilt here. Returns whether it is whole already (E set too).
    mutating func startRebuilding(_ assembler: Assembler, header: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer,
                                  don: UInt16, timestamp: UInt32, packet: Int64, end: Bool) -> Bool {
        drop(assembler)
        unit.removeAll(keepingCapacity: true)
        unit.append(contentsOf: header)
        unit.append(contentsOf: body)
        (self.don, self.timestamp, self.packet) = (don, timestamp, packet)
        skipping = false
        rebuilding = true
        isOpen = !end
        return end
    }

    /// A later fragment of the unit being rebuilt (check `continues(at:)` first). Returns whether
    /// the unit is whole now.
    mutating func appendRebuilt(_ bytes: UnsafeRawBufferPointer, end: Bool) -> Bool {
        unit.append(contentsOf: bytes)
        if end { isOpen = false }
        return end
    }

    func fold(into s: inout StreamStatistics) {
        s.fragmentedUnitsDropped = unitsDropped
        s.strayFragments = strayFragments
    }

    /// The rebuilt unit, whole, with its decoding order number, timestamp and first packet.
    func withRebuiltUnit<R>(_ body: (_ nal: UnsafeRawBufferPointer, _ don: UInt16, _ timestamp: UInt32, _ packet: Int64) throws -> R)
        rethrows -> R {
        try unit.withUnsafeBytes { try body($0, don, timestamp, packet) }
    }
}
