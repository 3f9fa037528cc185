/// What became of one access unit: a line of the frame ledger (`--frames-json`), and what the frame
/// counts of the statistics add up. Both read this one type, so they agree count for count.
public struct FrameRecord: Sendable, Equatable {
    public enum Status: String, Sendable {
        /// Complete as it arrived.
        case written
        /// Lost only SPS, PPS, SEI or AUD before its first slice, and written with cached parameter sets.
        case repaired
        case dropped
    }

    /// Why an access unit was dropped, or what a repaired one had lost. Cases come most telling first:
    /// an access unit with several causes is reported under the first.
    public enum Reason: Int, CaseIterable, Sendable {
        case overMaxFrameBytes
        case aggregationOverrun
        case missingFragmentStart
        case decodingOrderGap
        case missingPackets
        case incompleteAtEnd
        case unfinishedFragment
        case noParameterSets
        case waitingForKeyframe
        /// An H.265 RASL picture of the IRAP output started at: it refers to pictures before it.
        case skippedLeadingPicture

        /// The name in the ledger and the statistics JSON.
        public var code: String {
            switch self {
            case .overMaxFrameBytes: "over_max_frame_bytes"
            case .aggregationOverrun: "aggregation_overrun"
            case .missingFragmentStart: "missing_fragment_start"
            case .decodingOrderGap: "don_gap"
            case .missingPackets: "missing_packets"
            case .unfinishedFragment: "unfinished_fragment"
            case .incompleteAtEnd: "incomplete_at_end"
            case .noParameterSets: "no_parameter_sets"
            case .waitingForKeyframe: "waiting_for_keyframe"
            case .skippedLeadingPicture: "rasl_skipped"
            }
        }

        /// The words of the text report.
        public var description: String {
            switch self {
            case .overMaxFrameBytes: "over --max-frame-bytes"
            case .aggregationOverrun: "an aggregation unit ran past its packet"
            case .missingFragmentStart: "a fragment start missing"
            case .decodingOrderGap: "a DON gap"
            case .missingPackets: "packets missing"
            case .unfinishedFragment: "a fragmented unit never finished"
            case .incompleteAtEnd: "cut off by the end of the stream"
            case .noParameterSets: "no parameter sets for its slices"
            case .waitingForKeyframe: "waiting for a keyframe"
            case .skippedLeadingPicture: "RASL pictures of the CRA output started at"
            }
        }
    }

    /// A set of reasons, one bit each.
    public struct Reasons: OptionSet, Sendable, Equatable {
        public var rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public init(_ reason: Reason) { rawValue = 1 << reason.rawValue }
        /// The most telling reason in the set.
        public var first: Reason? { rawValue == 0 ? nil : Reason(rawValue: rawValue.trailingZeroBitCount) }
    }

    public var ssrc: UInt32
    /// The RTP timestamp.
    public var timestamp: UInt32
    /// Sequence numbers of the first and last packet that carried part of it, as on the wire.
    public var firstSequenceNumber: UInt16
    public var lastSequenceNumber: UInt16
    /// Packets that carried part of it.
    public var packets: Int
    /// Annex-B bytes: as written, parameter sets put in front included; what had arrived when dropped.
    public var bytes: Int
    public var isKeyframe: Bool
    public var status: Status
    /// Why it was dropped, or what was repaired; nil when written as it arrived.
    public var reason: Reason?
    /// Packets missing in the gaps that touched it.
    public var missingPackets: Int
    /// Every picture it may refer to arrived whole (from the last keyframe on).
    public var referencesIntact: Bool
    /// Presentation time in milliseconds from the stream's first keyframe.
    public var presentationMilliseconds: Int64
    /// An audio frame (every one is a keyframe, with no references).
    public var isAudio = false
    /// Packets of it that came in retransmissions (RFC 4588): what NACK repaired.
    public var retransmittedPackets = 0

    public init(ssrc: UInt32, timestamp: UInt32, firstSequenceNumber: UInt16, lastSequenceNumber: UInt16, packets: Int,
                bytes: Int, isKeyframe: Bool, status: Status, reason: Reason? = nil, missingPackets: Int = 0,
                referencesIntact: Bool, presentationMilliseconds: Int64) {
        self.ssrc = ssrc
        self.timestamp = timestamp
        self.firstSequenceNumber = firstSequenceNumber
        self.lastSequenceNumber = lastSequenceNumber
        self.packets = packets
        self.bytes = bytes
        self.isKeyframe = isKeyframe
        self.status = status
        self.reason = reason
        self.missingPackets = missingPackets
        self.referencesIntact = referencesIntact
        self.presentationMilliseconds = presentationMilliseconds
    }
}

extension FrameRecord {
    /// The record of a video access unit a frame gate admits: written, or repaired when it came
    /// with `damage` (the gate turns it to dropped when it cannot be).
    init(ssrc: UInt32, timestamp: UInt32, packets: PacketSpan, bytes: Int, isKeyframe: Bool, damage: AccessUnitDamage?,
         referencesIntact: Bool, presentationMilliseconds: Int64) {
        self.init(ssrc: ssrc, timestamp: timestamp, firstSequenceNumber: UInt16(truncatingIfNeeded: packets.first),
                  lastSequenceNumber: UInt16(truncatingIfNeeded: packets.last), packets: packets.count, bytes: bytes,
                  isKeyframe: isKeyframe, status: damage == nil ? .written : .repaired, reason: damage?.reason,
                  missingPackets: damage?.missingPackets ?? 0, referencesIntact: referencesIntact,
                  presentationMilliseconds: presentationMilliseconds)
    }
}

/// The frame counts of one stream: every ledger record, tallied. Access units before the stream's
/// first keyframe have no record and are counted apart.
public struct FrameTally: Sendable, Equatable {
    public var written = 0
    public var keyframesWritten = 0
    /// Written with cached parameter sets (included in `written`).
    public var repaired = 0
    /// Written though a picture they may refer to was lost (included in `written`).
    public var writtenWithDamagedReferences = 0
    public var dropped: [Int] = Array(repeating: 0, count: FrameRecord.Reason.allCases.count)
    /// Access units before the first keyframe: never written, and not in the ledger.
    public var beforeFirstKeyframe = 0

    public init() {}

    /// Counts `record` (`by` -1: takes back a count).
    public mutating func count(_ record: FrameRecord, by step: Int = 1) {
        switch record.status {
        case .dropped:
            dropped[record.reason!.rawValue] += step
        case .written, .repaired:
            written += step
            if record.isKeyframe { keyframesWritten += step }
            if record.status == .repaired { repaired += step }
            if !record.referencesIntact { writtenWithDamagedReferences += step }
        }
    }

    public func dropped(_ reason: FrameRecord.Reason) -> Int { dropped[reason.rawValue] }
    public var droppedTotal: Int { dropped.reduce(0, +) }
    /// Dropped because something of them was lost (not by the keyframe gate, for parameter sets, or
    /// as leading pictures that cannot be decoded).
    public var droppedDamaged: Int {
        droppedTotal - dropped(.waitingForKeyframe) - dropped(.noParameterSets) - dropped(.skippedLeadingPicture)
    }
    /// Records in the ledger: every access unit from the first keyframe on.
    public var records: Int { written + droppedTotal }
}
