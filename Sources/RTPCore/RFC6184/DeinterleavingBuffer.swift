/// The de-interleaving buffer of RFC 6184 §7.2 for the interleaved packetization mode: NAL units
/// arrive in transmission order with a decoding order number (DON) and leave in DON order.
///
/// DONs are extended to 64 bits relative to the NAL unit transmitted before (AbsDON, §8.1), so units
/// leave in the order don_diff (§5.5) gives; §7.2.2's PDON distance agrees except at the start of a
/// session, where its PDON of 0 would put DON 1 before 65535. After an initial buffering (§7.2.2),
/// the NAL unit with the smallest AbsDON leaves whenever the buffer holds more VCL NAL units than the
/// interleaving depth, more bytes than deint-buf-req, or a DON span above max-don-diff. A lost NAL
/// unit therefore never stalls the buffer; as a last resort, a unit that has waited the latency
/// bound leaves too.
///
/// An SDP may understate the depth. Each unit shows what it needs: the VCL units that came before it
/// in transmission order and follow it in decoding order (the definition of §8.1). Once one needs
/// more than the depth (or came after its turn, and was lost), the depth is kept at twice what units
/// showed they need, up to `maxInterleavingDepth`, so that a stream that interleaves a little deeper
/// later loses nothing. The initial buffering (§7.2.2) does not take the SDP's word either: as the
/// reorder buffer holds a stream's first packets, it holds the first units until `primingUnits`
/// counted units or the latency bound, so that what they need is known before the first leaves
/// (the first IDR of a stream sent deeper than said is kept). With `startsAtKeyframe`, it also
/// waits for an IDR slice, which output starts at anyway.
public final class DeinterleavingBuffer {
    /// The SDP's sprop-* parameters (RFC 6184 §8.1), with defaults for those a sender leaves out.
    public struct Parameters: Sendable, Equatable {
        /// sprop-interleaving-depth: VCL NAL units that may precede one in transmission order and
        /// follow it in decoding order.
        public var interleavingDepth = 32
        /// sprop-deint-buf-req: bytes the buffer needs.
        public var bufferBytes = 8 << 20
        /// sprop-init-buf-time: initial buffering, on the 90 kHz clock.
        public var initialBufferTime: Int64 = 0
        /// sprop-max-don-diff: the largest DON distance between units that must be reordered.
        public var maxDONDiff = 32767

        public init() {}
    }

    public struct Unit {
        public var absDON: Int64
        public var timestamp: UInt32
        /// The extended sequence number of the packet it came in.
        public var packet: Int64
        /// The NAL unit, header byte first; valid during the release callback only.
        public var nal: UnsafeRawBufferPointer
        /// DONs are missing between the unit released before and this one: units were lost.
        public var followsGap: Bool
    }

    private struct Entry {
        var absDON: Int64
        var timestamp: UInt32
        var arrival: Int64
        var isVCL: Bool
        var packet: Int64
        var bytes: [UInt8]
    }

    /// The depth a late unit can grow the buffer to; also how many released VCL units are remembered
    /// to measure what it needed.
    public static let maxInterleavingDepth = 1024
    /// Counted units the initial buffering holds before trusting the depth, as the reorder buffer's
    /// priming: enough for the interleaving of a few access units, while a live stream's first
    /// frames wait at most the latency bound.
    public static let primingUnits = 64

    public let parameters: Parameters
    public let latencyNanoseconds: Int64
    public let startsAtKeyframe: Bool
    private var hasKeyframe = false
    /// The SDP's depth, or more once units arrived after their turn.
    public private(set) var interleavingDepth: Int
    /// The most a unit needed since one came late: the depth the stream showed it interleaves to.
    public private(set) var neededDepth = 0
    /// A unit came late: the SDP's depth is not to be trusted, and the depth follows what units need.
    private var adapting = false
    /// AbsDONs of the VCL units released last, oldest overwritten first.
    private var releasedVCL: [Int64] = []
    private var releasedVCLNext = 0
    private var entries: [Entry] = []  // ascending AbsDON
    private var pool: [[UInt8]] = []
    private var lastDON: UInt16?
    private var lastAbsDON: Int64 = 0
    private var lastReleased: Int64?
    private var vclCount = 0
    private var byteCount = 0
    private var initialBuffering = true
    private var firstTimestamp: UInt32?

    public private(set) var lateUnits = 0

    public init(parameters: Parameters, latencyNanoseconds: Int64, startsAtKeyframe: Bool = false) {
        self.parameters = parameters
        self.latencyNanoseconds = latencyNanoseconds
        self.startsAtKeyframe = startsAtKeyframe
        interleavingDepth = parameters.interleavingDepth
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// Adds an H.264 NAL unit (`header` then `body`, which may be copied from several fragments).
    public func insert(don: UInt16, timestamp: UInt32, header: UInt8, body: UnsafeRawBufferPointer, arrival: Int64,
                       packet: Int64 = 0) {
        let type = nalUnitType(header)
        withUnsafeBytes(of: header) { head in
            insert(don: don, timestamp: timestamp, head: head, body: body, counted: NALUnitType.isVCL(type),
                   isKeyframe: type == NALUnitType.idrSlice, arrival: arrival, packet: packet)
        }
    }

    /// Adds a NAL unit of either codec: `head` (its header) then `body`. `counted`: it counts towards
    /// the depth (H.264's VCL units; every H.265 unit, as sprop-depack-buf-nalus counts them).
    /// `isKeyframe`: the initial buffering may end with it (`startsAtKeyframe`).
    public func insert(don: UInt16, timestamp: UInt32, head: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer,
                       counted isVCL: Bool, isKeyframe: Bool, arrival: Int64, packet: Int64) {
        // AbsDON (§8.1): each unit's DON taken relative to the unit transmitted before it.
        let absDON = lastDON.map { lastAbsDON + Int64(donDiff($0, don)) } ?? Int64(don)
        lastDON = don
        lastAbsDON = absDON
        if let released = lastReleased, absDON < released {
            // Its turn has passed: the access unit it belonged to is already out. An equal DON is
            // still in time: units sharing a DON may be decoded in any order (§5.5).
            lateUnits += 1
            growDepth(toCover: absDON)
            return
        }
        var bytes = pool.popLast() ?? []
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: head)
        bytes.append(contentsOf: body)
        if firstTimestamp == nil { firstTimestamp = timestamp }
        // Mostly near the end: search from there, counting the counted units that came before it
        // and follow it in decoding order.
        var index = entries.count
        var ahead = 0
        while index > 0 && entries[index - 1].absDON > absDON {
            index -= 1
            if entries[index].isVCL { ahead += 1 }
        }
        if ahead > interleavingDepth || (adapting && 2 * ahead > interleavingDepth) {
            adapting = true
            need(ahead)
        }
        if isKeyframe { hasKeyframe = true }
        entries.insert(Entry(absDON: absDON, timestamp: timestamp, arrival: arrival, isVCL: isVCL, packet: packet,
                             bytes: bytes), at: index)
        if isVCL { vclCount += 1 }
        byteCount += bytes.count
    }

    /// Hands on, in DON order, every unit §7.2.2 lets leave at `now` (the packet clock).
    public func release(now: Int64, _ body: (Unit) throws -> Void) throws {
        while let first = entries.first {
            let span = Int(entries[entries.count - 1].absDON - first.absDON)
            let overDepth = vclCount > interleavingDepth
            let overSize = byteCount > parameters.bufferBytes
            let overSpan = span > parameters.maxDONDiff
            let waitedTooLong = now &- first.arrival >= latencyNanoseconds
            if initialBuffering {
                let buffered = Int64(timestampDistance(entries[entries.count - 1].timestamp, firstTimestamp ?? first.timestamp))
                let primed = vclCount > max(interleavingDepth, Self.primingUnits)
                let waited = primed || (parameters.initialBufferTime > 0 && buffered >= parameters.initialBufferTime)
                guard (waited && (hasKeyframe || !startsAtKeyframe)) || overSize || overSpan || waitedTooLong else { return }
                initialBuffering = false
            }
            guard overDepth || overSize || overSpan || waitedTooLong else { return }
            try releaseFirst(body)
        }
    }

    /// Hands on everything left, in DON order (end of stream).
    public func flush(_ body: (Unit) throws -> Void) throws {
        while !entries.isEmpty { try releaseFirst(body) }
    }

    private func releaseFirst(_ body: (Unit) throws -> Void) throws {
        let entry = entries.removeFirst()
        if entry.isVCL {
            vclCount -= 1
            rememberReleased(entry.absDON)
        }
        byteCount -= entry.bytes.count
        let followsGap = lastReleased.map { entry.absDON > $0 + 1 } ?? false
        lastReleased = entry.absDON
        try entry.bytes.withUnsafeBytes { nal in
            try body(Unit(absDON: entry.absDON, timestamp: entry.timestamp, packet: entry.packet, nal: nal, followsGap: followsGap))
        }
        pool.append(entry.bytes)
    }

    private func rememberReleased(_ absDON: Int64) {
        if releasedVCL.count < Self.maxInterleavingDepth {
            releasedVCL.append(absDON)
        } else {
            releasedVCL[releasedVCLNext] = absDON
            releasedVCLNext = (releasedVCLNext + 1) % Self.maxInterleavingDepth
        }
    }

    /// A unit at `absDON` came too late: every VCL unit waiting, and every one released with a later
    /// DON, came before it in transmission order and follows it in decoding order.
    private func growDepth(toCover absDON: Int64) {
        let needed = vclCount + releasedVCL.lazy.filter { $0 > absDON }.count
        adapting = true
        need(needed)
    }

    private func need(_ depth: Int) {
        neededDepth = max(neededDepth, depth)
        interleavingDepth = min(max(interleavingDepth, 2 * depth), Self.maxInterleavingDepth)
    }
}
