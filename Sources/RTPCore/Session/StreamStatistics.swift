/// What happened to every packet and access unit of one RTP stream.
public struct StreamStatistics: Sendable {
    public var ssrc: UInt32
    public var payloadType: UInt8
    public var source: Endpoint?
    public var destination: Endpoint?

    /// When its first packet arrived, on the packet clock.
    public var firstArrival: Int64 = 0
    public var packets = 0
    public var bytes = 0
    public var invalidPayload: [VideoPayloadInvalid: Int] = [:]
    public var duplicates = 0
    /// Packets that carried only padding (RFC 3550 §5.1), as WebRTC senders probe bandwidth with:
    /// received, in sequence, with no media.
    public var paddingOnly = 0
    /// Packets of other payload types on its SSRC (comfort noise and telephone events beside a
    /// call's audio): received, in sequence, with none of its media.
    public var otherPayloadType = 0
    public var reordered = 0
    /// Arrived after its gap had been declared lost.
    public var late = 0
    /// Declared lost at release, less those that came late (RFC 3550 A.3 without duplicates).
    public var lost = 0
    public var tooLarge = 0
    public var restarts = 0
    public var jitter: Double = 0
    public var clockRate = 90000

    /// What became of its access units: the frame ledger, tallied.
    public var frames = FrameTally()
    /// Access units given a presentation time of their own: the sender's timestamps stood still.
    public var retimedFrames = 0
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
    /// VP9: packets of spatial layers above --spatial-layer, left out.
    public var upperSpatialLayerPackets = 0
    /// The de-interleaving depth the SDP declared, and the one the stream needed.
    public var interleavingDepth: (declared: Int, needed: Int)?
    /// Aggregation units that ran past their packet, lost alone.
    public var aggregationUnitsOverrun = 0
    /// MTAP packets whose unit sizes count DOND and the TS offset.
    public var mtapPacketsWithPrefixInSize = 0
    /// H.265 PACI packets (RFC 7798 §4.4.4), unwrapped.
    public var paciPackets = 0
    /// H.265 NAL units of reserved or unspecified types, skipped.
    public var reservedUnitsSkipped = 0
    /// Single NAL units and aggregated ones that held Annex-B start codes, split into the units between.
    public var unitsWithStartCodes = 0
    /// RTP timestamps of the first damaged access units dropped.
    public var droppedTimestamps: [UInt32] = []
    /// What the stream does that was worked around, as said when first seen.
    public var notices: [StreamNotice] = []

    // RTCP from the stream's sender (RFC 3550 §6).
    public var senderReports = 0
    /// The latest sender report, and when it arrived on the packet clock.
    public var lastSenderReport: RTCPPacket.SenderReport?
    public var lastSenderReportArrival: Int64?
    /// RFC 4588: packets asked for again (NACK), and what the retransmissions that came did.
    public var retransmissions = Retransmissions()

    public struct Retransmissions: Sendable, Equatable {
        public var requested = 0
        /// Filled a gap before it was declared lost.
        public var recovered = 0
        /// Of a packet that had come already.
        public var duplicate = 0
        /// After the gap was declared lost.
        public var late = 0
        /// Frames with a recovered packet in them.
        public var framesRepaired = 0

        /// Every count of the retransmissions, declared once: the report, the JSON and the metrics read this.
        public var counts: [Count] {
            [Count(name: "requested", help: "packets asked for again (NACK)", value: requested),
             Count(name: "recovered", help: "retransmissions that filled a gap before it was declared lost", value: recovered),
             Count(name: "duplicate", help: "retransmissions of a packet that had come already", value: duplicate),
             Count(name: "late", help: "retransmissions after their gap was declared lost", value: late),
             Count(name: "frames_repaired", help: "frames with a retransmitted packet in them", value: framesRepaired)]
        }
    }
    /// When the first one arrived: before it, the stream's times can only be anchored on arrival.
    public var firstSenderReportArrival: Int64?
    public var cname: String?
    /// The sender said BYE.
    public var goodbye = false

    /// An audio stream's codec, gaps and invalid payloads.
    public var audio: AudioStreamStatistics?

    /// A video stream's codec.
    public var codec: VideoCodec?
    /// Bit n set when NAL unit type n (of `codec`) was seen.
    public var nalTypesSeen: UInt64 = 0
    /// What the latest SPS says of the pictures.
    public var video: VideoParameters?

    public init(ssrc: UInt32, payloadType: UInt8) {
        self.ssrc = ssrc
        self.payloadType = payloadType
    }

    public var jitterMilliseconds: Double { jitter * 1000 / Double(clockRate) }

    /// Every count of the stream, declared once: the statistics JSON and the metrics read this.
    public var counters: [Count] {
        [Count(name: "packets", help: "RTP packets received", value: packets),
         Count(name: "payload_bytes", help: "RTP payload bytes received", value: bytes),
         Count(name: "lost", help: "packets lost (RFC 3550 A.3, late arrivals taken back)", value: lost),
         Count(name: "duplicates", help: "packets received twice", value: duplicates),
         Count(name: "padding_only", help: "packets that carried only padding (bandwidth probes)", value: paddingOnly),
         Count(name: "other_payload_type", help: "packets of another payload type on the stream's SSRC",
                 value: otherPayloadType),
         Count(name: "reordered", help: "packets that came after a later one", value: reordered),
         Count(name: "late", help: "packets that came after their gap was given up on", value: late),
         Count(name: "restarts", help: "times the source restarted its sequence", value: restarts),
         Count(name: "packets_too_large", help: "packets over --max-packet-bytes", value: tooLarge),
         Count(name: "frames_written", help: "frames written", value: frames.written),
         Count(name: "keyframes_written", help: "keyframes written", value: frames.keyframesWritten),
         Count(name: "frames_repaired", help: "frames written with cached parameter sets", value: frames.repaired),
         Count(name: "frames_written_after_lost_reference", help: "frames written though a reference was lost",
                 value: frames.writtenWithDamagedReferences),
         Count(name: "frames_before_first_keyframe", help: "frames before the first keyframe, never written",
                 value: frames.beforeFirstKeyframe),
         Count(name: "frames_retimed", help: "frames given a time of their own", value: retimedFrames),
         Count(name: "aggregation_units_overrun", help: "aggregation units that ran past their packet", value: aggregationUnitsOverrun),
         Count(name: "mtap_packets_with_prefix_in_size", help: "MTAP packets whose sizes count DOND and the TS offset",
                 value: mtapPacketsWithPrefixInSize),
         Count(name: "fragmented_units_dropped", help: "fragmented NAL units dropped", value: fragmentedUnitsDropped),
         Count(name: "stray_fragments", help: "fragments whose start never came", value: strayFragments),
         Count(name: "repeated_parameter_sets_removed", help: "SPS/PPS repeated within a picture, dropped",
                 value: repeatedParameterSetsRemoved),
         Count(name: "decoding_order_gaps", help: "gaps in the decoding order number", value: decodingOrderGaps),
         Count(name: "late_interleaved_units", help: "interleaved units that came too late", value: lateInterleavedUnits),
         Count(name: "not_allowed_in_interleaved_mode", help: "packets of a type the interleaved mode forbids",
                 value: notAllowedInInterleavedMode),
         Count(name: "paci_packets", help: "H.265 PACI packets unwrapped", value: paciPackets),
         Count(name: "reserved_nal_units_skipped", help: "H.265 NAL units of reserved types, skipped",
                 value: reservedUnitsSkipped),
         Count(name: "nal_units_with_start_codes", help: "NAL units that held Annex-B start codes, split into the units between",
                 value: unitsWithStartCodes),
         Count(name: "upper_spatial_layer_packets", help: "VP9 packets of spatial layers above --spatial-layer, left out",
                 value: upperSpatialLayerPackets),
         Count(name: "sender_reports", help: "RTCP sender reports received", value: senderReports)]
    }

    public var invalidPackets: Int { invalidPayload.values.reduce(0, +) }
}
