/// RTCP Extended Reports (RFC 3611, PT 207): how a receiver that sends no RTP learns the round trip.
/// It sends a Receiver Reference Time block (§4.4, BT 4) with its NTP time; a sender that supports
/// XR echoes the middle 32 bits in a DLRR block (§4.5, BT 5) with the delay it held them, and
///
///     RTT = arrival - LRR - DLRR     (all in 1/65536 s)
///
///    |V=2|P|reserved |   PT=XR=207   |             length            |
///    |                              SSRC                             |
///    :                         report blocks                         :
///
/// each block starting with
///
///    |      BT       | type-specific |         block length          |
///
/// where the block length counts the 32-bit words after that header.
public enum ExtendedReport {
    public static let packetType: UInt8 = 207
    public static let receiverReferenceTime: UInt8 = 4
    public static let delaySinceLastReceiverReport: UInt8 = 5

    /// One DLRR sub-block (§4.5): a receiver's last RRTR as seen by the sender, and how long ago.
    public struct DelaySinceLastReceiverReport: Equatable, Sendable {
        /// SSRC_i: the receiver whose RRTR this answers.
        public var ssrc: UInt32
        /// LRR: the middle 32 bits of that RRTR's NTP time.
        public var lastReceiverReport: UInt32
        /// DLRR: from that RRTR's arrival to this report, in 1/65536 s.
        public var delay: UInt32

        public init(ssrc: UInt32, lastReceiverReport: UInt32, delay: UInt32) {
            self.ssrc = ssrc
            self.lastReceiverReport = lastReceiverReport
            self.delay = delay
        }

        /// The round trip in nanoseconds, given when this arrived (NTP middle 32 bits); nil when
        /// the echo is absent (LRR 0) or the result is negative (a clock that stepped).
        public func roundTrip(arrival: UInt32) -> Int64? {
            guard lastReceiverReport != 0 else { return nil }
            let units = Int32(bitPattern: arrival &- lastReceiverReport &- delay)
            guard units >= 0 else { return nil }
            return Int64(units) * 1_000_000_000 / 65536
        }
    }

    /// The DLRR sub-blocks of an XR packet's body (after the header); other blocks are skipped.
    static func delays(in body: inout ByteCursor) throws -> [DelaySinceLastReceiverReport] {
        var found: [DelaySinceLastReceiverReport] = []
        while body.readableBytes > 0 {
            guard let blockType = body.readUInt8(), body.skip(1), let words = body.readUInt16(),
                  let slice = body.readSlice(4 * Int(words)) else { throw RTCPPacket.Invalid.tooShort }
            guard blockType == delaySinceLastReceiverReport else { continue }
            var block = ByteCursor(slice)
            while let ssrc = block.readUInt32() {
                guard let lrr = block.readUInt32(), let dlrr = block.readUInt32() else { throw RTCPPacket.Invalid.tooShort }
                found.append(DelaySinceLastReceiverReport(ssrc: ssrc, lastReceiverReport: lrr, delay: dlrr))
            }
        }
        return found
    }
}

extension RTCPWriter {
    /// XR with one Receiver Reference Time block: `ntp` is this receiver's wall clock, NTP format.
    public mutating func receiverReferenceTime(ssrc: UInt32, ntp: UInt64) {
        let start = begin(count: 0, packetType: ExtendedReport.packetType)
        u32(ssrc)
        u8(ExtendedReport.receiverReferenceTime)
        u8(0)
        u16(2)
        u32(UInt32(ntp >> 32))
        u32(UInt32(truncatingIfNeeded: ntp))
        end(start)
    }

    /// XR with one DLRR block (what a sender answers; the tests build it).
    public mutating func delaySinceLastReceiverReport(ssrc: UInt32, _ blocks: [ExtendedReport.DelaySinceLastReceiverReport]) {
        let start = begin(count: 0, packetType: ExtendedReport.packetType)
        u32(ssrc)
        u8(ExtendedReport.delaySinceLastReceiverReport)
        u8(0)
        u16(UInt16(3 * blocks.count))
        for b in blocks {
            u32(b.ssrc)
            u32(b.lastReceiverReport)
            u32(b.delay)
        }
        end(start)
    }
}
