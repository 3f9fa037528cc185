/// Something a stream does that the receiver works around, said once per stream when first seen,
/// so that a user learns of it while it happens and not only in the summary.
public enum StreamNotice: Sendable, Equatable {
    /// New pictures came with the RTP timestamp of the one before; timing comes from elsewhere.
    case timestampsNotAdvancing(source: PresentationClock.Source)
    /// MTAP unit sizes count DOND and the TS offset, against RFC 6184 §5.7.2.
    case mtapSizeCountsPrefix
    /// Units arrive more interleaved than the SDP's sprop-interleaving-depth says.
    case interleavingDepthGrown(declared: Int, needed: Int)
    /// A sender report the session clock did not follow (said once a reason; each is counted).
    case senderReportRejected(MediaClock.RejectedReport)
    /// The sender's NTP clock moved (stepped, or it is not the session's): the stream follows it from where it is.
    case senderClockStepped(nanoseconds: Int64)
    /// NAL units came with Annex-B start codes inside them: split into the units between.
    case startCodesInNALUnits
    /// AAC access units came behind ADTS headers: taken off.
    case adtsHeadersOnAccessUnits
    /// Every payload holds `bytes` more than its samples: SRTP's authentication tag, the stream
    /// read without its key.
    case authenticationTagOnPayloads(bytes: Int)

    public var description: String {
        switch self {
        case .timestampsNotAdvancing(let source):
            return "new pictures arrive with the RTP timestamp of the one before; " + source.description
        case .mtapSizeCountsPrefix:
            return "MTAP unit sizes count the DOND and TS offset too (RFC 6184 §5.7.2 counts the NAL unit "
                + "alone); the stream is read that way"
        case .interleavingDepthGrown(let declared, let needed):
            return "NAL units arrive more interleaved than sprop-interleaving-depth \(declared) allows "
                + "(\(needed) VCL units ahead of one in transmission that follow it in decoding); the de-interleaving "
                + "buffer waits for more"
        case .senderReportRejected(let why):
            return "a sender report was not followed: \(why.rawValue) (each such report is counted)"
        case .senderClockStepped(let step):
            let seconds = Double(step / 1_000_000) / 1000
            return "its sender's NTP clock moved by \(seconds) s against its RTP time (stepped, or not the session's): "
                + "the stream follows the new clock from where it is"
        case .startCodesInNALUnits:
            return "its packets hold Annex-B start codes where one NAL unit belongs (RFC 6184 §5.6, RFC 7798 §4.4.1 "
                + "carry NAL units bare); the units between them are taken"
        case .adtsHeadersOnAccessUnits:
            return "its AAC access units come behind ADTS headers (RFC 3640 carries them bare); the headers are taken off"
        case .authenticationTagOnPayloads(let bytes):
            return "each packet holds \(bytes) bytes more than its samples, as SRTP's authentication tag makes it: it looks "
                + "encrypted, and its audio is noise; give its key with --srtp-key"
        }
    }
}
