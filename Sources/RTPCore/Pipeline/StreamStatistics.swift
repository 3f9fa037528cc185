/// What happened to every packet and access unit of one RTP stream.
public struct StreamStatistics: Sendable {
    public var ssrc: UInt32
    public var payloadType: UInt8
    public var source: Endpoint?
    public var destination: Endpoint?

    public var packets = 0
    public var bytes = 0
    public var invalidPayload: [H264Payload.Invalid: Int] = [:]
    public var duplicates = 0
    public var reordered = 0
    /// Arrived after its gap had been declared lost.
    public var late = 0
    /// Declared lost at release, less those that came late (RFC 3550 A.3 without duplicates).
    public var lost = 0
    public var tooLarge = 0
    public var restarts = 0
    public var jitter: Double = 0
    public var clockRate = 90000

    public var accessUnitsWritten = 0
    public var keyframesWritten = 0
    public var droppedIncomplete = 0
    public var droppedBeforeKeyframe = 0
    public var droppedWithoutParameterSets = 0
    public var oversizedAccessUnits = 0
    public var fragmentedUnitsDropped = 0
    /// Fragments of a unit whose start never came.
    public var strayFragments = 0
    /// SPS/PPS repeated between the slices of one picture, dropped.
    public var repeatedParameterSetsRemoved = 0
    public var parameterSetChanges = 0
    /// Packetization mode 2 (from the SDP or the packets).
    public var interleaved = false
    public var decodingOrderGaps = 0
    public var lateInterleavedUnits = 0
    public var notAllowedInInterleavedMode = 0
    /// RTP timestamps of the first dropped incomplete access units.
    public var droppedTimestamps: [UInt32] = []
    public static let maxDroppedTimestamps = 1000

    /// Bit n set when NAL unit type n was seen.
    public var nalTypesSeen: UInt32 = 0
    public var sps: SequenceParameterSet?

    public init(ssrc: UInt32, payloadType: UInt8) {
        self.ssrc = ssrc
        self.payloadType = payloadType
    }

    public var jitterMilliseconds: Double { jitter * 1000 / Double(clockRate) }

    public var invalidPackets: Int { invalidPayload.values.reduce(0, +) }
}
