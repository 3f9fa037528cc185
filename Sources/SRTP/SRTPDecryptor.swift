import RTPCore

/// Why an SRTP or SRTCP packet was dropped before anything parsed it.
public enum SRTPFailure: String, CaseIterable, Sendable {
    /// Its authentication tag did not verify under any key tried: a wrong key or suite, or damage.
    case authentication = "auth"
    /// Live: its index was seen already (a replayed or repeated packet).
    case replay
    /// Live: older than the replay window.
    case old
    /// A capture's packet seen twice: a duplicate in the capture, not an attack.
    case duplicate
    /// A capture's packet older than the replay window: reordered that far.
    case late
    /// Its MKI names no key given, or no key was given at all.
    case noKey = "no_key"
    /// Too short for SRTP, or refused by libsrtp for its form.
    case malformed

    /// What it counts, for the metrics.
    public var help: String {
        switch self {
        case .authentication: "SRTP packets dropped: the authentication tag did not verify (a wrong key or suite, or damage)"
        case .replay: "SRTP packets dropped live: their index was seen already (replayed or repeated)"
        case .old: "SRTP packets dropped live: older than the replay window"
        case .duplicate: "SRTP packets dropped from a capture: seen twice"
        case .late: "SRTP packets dropped from a capture: older than the replay window"
        case .noKey: "SRTP packets dropped: their MKI names no key given, or no key was given"
        case .malformed: "SRTP packets dropped: too short, or refused by libsrtp for their form"
        }
    }
}

/// The security layer (RFC 3711): SRTP and SRTCP datagrams authenticated and decrypted into a buffer
/// of its own (libsrtp works in place; the input's buffers may be read-only, a capture's mapping, or
/// another's), before the RTP parser sees them. A capture of a call holds both
/// directions with different keys, so each key is tried on a new SSRC, and the one that authenticates
/// is kept for it. Datagrams that are not RTP version 2 (STUN, DTLS) pass through untouched.
public final class SRTPDecryptor {
    /// Per SSRC: packets decrypted, and those dropped, by reason.
    public struct Counters: Sendable {
        public var decrypted = 0
        public var decryptedControl = 0
        public var failures: [SRTPFailure: Int] = [:]
        public var failed: Int { failures.values.reduce(0, +) }

        /// Every count of the SSRC, declared once: the report, the JSON and the metrics read this.
        public var counts: [Count] {
            [Count(name: "decrypted", help: "SRTP packets decrypted", value: decrypted),
             Count(name: "decrypted_rtcp", help: "SRTCP packets decrypted", value: decryptedControl)]
                + SRTPFailure.allCases.map { Count(name: $0.rawValue, help: $0.help, value: failures[$0] ?? 0) }
        }
    }

    public private(set) var counters: [UInt32: Counters] = [:]
    public let keys: [SRTPMasterKey]
    private let contexts: [SRTPContext]
    /// The context that authenticated each SSRC.
    private var bound: [UInt32: Int] = [:]
    private let inCapture: Bool
    /// Where a datagram is decrypted, a copy of it for each key tried (a failed AEAD attempt may
    /// leave it altered); the plain packet is a view into it until the next call.
    private let working: UnsafeMutableRawBufferPointer
    /// Counted SSRCs are bounded, as the receiver's streams are.
    private let maxSSRCs: Int

    /// `inCapture`: packets come from a capture, whose repeats are duplicates rather than attacks.
    /// `replayWindow`: how far behind the newest packet one may arrive (libsrtp's window, in packets).
    public init(keys: [SRTPMasterKey], inCapture: Bool, replayWindow: Int = 1024, maxPacketBytes: Int = 65_535,
                maxSSRCs: Int = 1024) throws(SRTPError) {
        self.keys = keys
        var contexts: [SRTPContext] = []
        for key in keys { contexts.append(try SRTPContext(key: key, replayWindow: replayWindow)) }
        self.contexts = contexts
        self.inCapture = inCapture
        self.maxSSRCs = maxSSRCs
        working = .allocate(byteCount: maxPacketBytes, alignment: 16)
    }

    deinit { working.deallocate() }

    /// The plain packet, in the decryptor's buffer until the next call; `datagram` itself when it is
    /// not RTP or RTCP (STUN, DTLS); nil when it is dropped (and counted).
    public func unprotect(_ datagram: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard datagram.count >= 8, datagram[0] >> 6 == 2 else { return datagram }
        // RFC 5761 §4: RTCP packet types 192–223 sit where RTP has the marker bit and payload type.
        let control = (192...223).contains(datagram[1])
        let at = control ? 4 : 8
        guard datagram.count >= at + 4 else { return fail(nil, .malformed) }
        let ssrc = UInt32(datagram[at]) << 24 | UInt32(datagram[at + 1]) << 16 | UInt32(datagram[at + 2]) << 8 | UInt32(datagram[at + 3])
        guard datagram.count <= working.count else { return fail(ssrc, .malformed) }
        let packet = UnsafeMutableRawBufferPointer(rebasing: working[0..<datagram.count])
        if let index = bound[ssrc] {
            packet.copyMemory(from: datagram)
            switch contexts[index].unprotect(packet, control: control) {
            case .plain(let length): return succeed(ssrc, control: control, length: length)
            case .failed(let reason): return fail(ssrc, reason)
            }
        }
        guard !contexts.isEmpty else { return fail(ssrc, .noKey) }
        var reason = SRTPFailure.authentication
        for (index, context) in contexts.enumerated() {
            packet.copyMemory(from: datagram)
            switch context.unprotect(packet, control: control) {
            case .plain(let length):
                bound[ssrc] = index
                return succeed(ssrc, control: control, length: length)
            case .failed(let why):
                if why != .authentication { reason = why }
            }
        }
        return fail(ssrc, reason)
    }

    /// The key that authenticated `ssrc`, if one did.
    public func key(of ssrc: UInt32) -> SRTPMasterKey? { bound[ssrc].map { contexts[$0].key } }

    private func succeed(_ ssrc: UInt32, control: Bool, length: Int) -> UnsafeRawBufferPointer {
        if counters[ssrc] != nil || counters.count < maxSSRCs {
            if control { counters[ssrc, default: Counters()].decryptedControl += 1 } else { counters[ssrc, default: Counters()].decrypted += 1 }
        }
        return UnsafeRawBufferPointer(rebasing: working[0..<min(max(0, length), working.count)])
    }

    private func fail(_ ssrc: UInt32?, _ reason: SRTPFailure) -> UnsafeRawBufferPointer? {
        var reason = reason
        if inCapture {
            if reason == .replay { reason = .duplicate }
            if reason == .old { reason = .late }
        }
        let key = ssrc ?? 0
        if counters[key] != nil || counters.count < maxSSRCs { counters[key, default: Counters()].failures[reason, default: 0] += 1 }
        return nil
    }
}
