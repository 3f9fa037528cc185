import Foundation
import RTPCore

/// A test-only sender for RFC 6184's interleaved mode, since no common sender emits it: turns an
/// Annex-B elementary stream into STAP-B, MTAP16, MTAP24 and FU-B/FU-A packets, sent out of decoding
/// order, and writes them as a pcap.
struct InterleavedPacketizer {
    struct NALUnit {
        var bytes: [UInt8]
        var don: UInt16
        var timestamp: UInt32
        var accessUnit: Int
    }

    var mtu = 900
    /// Access units sent in reverse order within groups of this many.
    var group = 3
    var firstDON: UInt16 = 65496  // wraps after 40 units
    var firstTimestamp: UInt32 = 0xFFFF_0000  // wraps too
    /// MTAP unit sizes that count DOND and the TS offset too, as some senders write them (RFC 6184
    /// §5.7.2 counts the NAL unit alone).
    var mtapSizeCountsPrefix = false

    /// The NAL units of an Annex-B stream, in decoding order, with DONs and access-unit timestamps.
    func nalUnits(_ stream: [UInt8]) -> [NALUnit] {
        var units: [NALUnit] = []
        var starts: [Int] = []
        var i = 0
        while i + 3 <= stream.count {
            if stream[i] == 0 && stream[i + 1] == 0 && stream[i + 2] == 1 { starts.append(i + 3); i += 3 } else { i += 1 }
        }
        var accessUnit = -1, sawVCL = false, pendingNonVCL = false
        for (n, start) in starts.enumerated() {
            var end = n + 1 < starts.count ? starts[n + 1] - 3 : stream.count
            while end > start && stream[end - 1] == 0 { end -= 1 }
            let nal = Array(stream[start..<end])
            let type = nal[0] & 0x1F
            let firstMb = nal.withUnsafeBytes { SliceHeaderPrefix(nal: $0)?.firstMbInSlice }
            if (6...9).contains(type) && (sawVCL || accessUnit < 0) && !pendingNonVCL {
                accessUnit += 1; sawVCL = false; pendingNonVCL = true
            } else if (1...5).contains(type) && firstMb == 0 && !pendingNonVCL {
                accessUnit += 1
            }
            if (1...5).contains(type) { sawVCL = true; pendingNonVCL = false }
            units.append(NALUnit(bytes: nal, don: firstDON &+ UInt16(truncatingIfNeeded: units.count),
                                 timestamp: firstTimestamp &+ UInt32(max(accessUnit, 0)) &* 3000, accessUnit: max(accessUnit, 0)))
        }
        return units
    }

    /// Transmission order: access units reversed within each group.
    func transmissionOrder(_ units: [NALUnit]) -> [NALUnit] {
        let byAU = Dictionary(grouping: units, by: \.accessUnit)
        let count = (units.map(\.accessUnit).max() ?? -1) + 1
        var order: [NALUnit] = []
        for base in stride(from: 0, to: count, by: group) {
            for au in (base..<min(base + group, count)).reversed() { order += byAU[au] ?? [] }
        }
        return order
    }

    /// The interleaving depth this order needs (§8.1): VCL units before one in transmission order that follow it in decoding order.
    func interleavingDepth(_ order: [NALUnit]) -> Int {
        var depth = 0
        for (i, unit) in order.enumerated() where (1...5).contains(unit.bytes[0] & 0x1F) {
            let ahead = order[..<i].filter { (1...5).contains($0.bytes[0] & 0x1F) && Int16(bitPattern: $0.don &- unit.don) > 0 }.count
            depth = max(depth, ahead)
        }
        return depth
    }

    /// RTP payloads with their RTP timestamps: large units as FU-B then FU-A, runs of small ones as
    /// STAP-B (consecutive DONs, one time) or MTAP16/MTAP24 (alternately).
    func payloads(_ order: [NALUnit]) -> [(payload: [UInt8], timestamp: UInt32)] {
        var out: [(payload: [UInt8], timestamp: UInt32)] = []
        var run: [NALUnit] = []
        var mtapCount = 0
        func flushRun() {
            guard !run.isEmpty else { return }
            defer { run.removeAll() }
            let sameTime = run.allSatisfy { $0.timestamp == run[0].timestamp }
            let consecutive = zip(run, run.dropFirst()).allSatisfy { $1.don == $0.don &+ 1 }
            if sameTime && consecutive && run.count > 1 || run.count == 1 && mtapCount % 3 == 0 {
                // STAP-B: DON of the first unit; the rest follow it by one.
                var p: [UInt8] = [0x19, UInt8(run[0].don >> 8), UInt8(run[0].don & 0xFF)]
                for u in run { p += [UInt8(u.bytes.count >> 8), UInt8(u.bytes.count & 0xFF)] + u.bytes }
                out.append((p, run[0].timestamp))
                if run.count == 1 { mtapCount += 1 }
                return
            }
            let base = run.map(\.don).min { Int16(bitPattern: $0 &- $1) < 0 }!
            let minTime = run.map(\.timestamp).min { Int32(bitPattern: $0 &- $1) < 0 }!
            let wide = mtapCount % 2 == 1
            mtapCount += 1
            var p: [UInt8] = [wide ? 0x1B : 0x1A, UInt8(base >> 8), UInt8(base & 0xFF)]
            for u in run {
                let offset = u.timestamp &- minTime
                let size = u.bytes.count + (mtapSizeCountsPrefix ? (wide ? 4 : 3) : 0)
                p += [UInt8(size >> 8), UInt8(size & 0xFF), UInt8(u.don &- base)]
                p += wide ? [UInt8(offset >> 16 & 0xFF), UInt8(offset >> 8 & 0xFF), UInt8(offset & 0xFF)]
                          : [UInt8(offset >> 8 & 0xFF), UInt8(offset & 0xFF)]
                p += u.bytes
            }
            out.append((p, minTime))
        }
        for unit in order {
            if unit.bytes.count + 8 > mtu {
                flushRun()
                let header = unit.bytes[0]
                let body = Array(unit.bytes.dropFirst())
                let chunks = stride(from: 0, to: body.count, by: mtu - 4).map { Array(body[$0..<min($0 + mtu - 4, body.count)]) }
                for (i, chunk) in chunks.enumerated() {
                    let fuHeader = (i == 0 ? 0x80 : 0) | (i == chunks.count - 1 ? 0x40 : 0) | (header & 0x1F)
                    if i == 0 {
                        out.append(([header & 0xE0 | 29, fuHeader, UInt8(unit.don >> 8), UInt8(unit.don & 0xFF)] + chunk, unit.timestamp))
                    } else {
                        out.append(([header & 0xE0 | 28, fuHeader] + chunk, unit.timestamp))
                    }
                }
                continue
            }
            let base = run.first?.don ?? unit.don
            let minTime = run.map(\.timestamp).min() ?? unit.timestamp
            let size = run.reduce(7) { $0 + $1.bytes.count + 6 } + unit.bytes.count + 6
            let fits = size <= mtu && UInt16(unit.don &- base) < 200 && Int32(bitPattern: unit.timestamp &- minTime) < 60000
                && Int32(bitPattern: unit.timestamp &- minTime) >= 0 && Int16(bitPattern: unit.don &- base) >= 0
            if !fits || run.count == 4 { flushRun() }
            run.append(unit)
        }
        flushRun()
        return out
    }

    /// A pcap of the packets, in UDP to 127.0.0.1:5004. Sequence numbers follow `payloads`;
    /// `arrivalOrder` (indices into it) reorders the packets on the wire.
    static func pcap(_ payloads: [(payload: [UInt8], timestamp: UInt32)], arrivalOrder: [Int]? = nil,
                     ssrc: UInt32 = 0x1F1F_0002, firstSequence: UInt16 = 65500) -> Data {
        let records = (arrivalOrder ?? Array(payloads.indices)).enumerated().map { position, n -> (UInt64, [UInt8]) in
            let (payload, ts) = payloads[n]
            let seq = firstSequence &+ UInt16(truncatingIfNeeded: n)
            let rtp = TestPcap.rtp(payload, marker: n == payloads.count - 1, sequence: seq, timestamp: ts, ssrc: ssrc)
            return (UInt64(1_700_000_000) * 1_000_000_000 + UInt64(position) * 1_000_000, TestPcap.udpFrame(rtp, ethernet: true))
        }
        return TestPcap.data(linkType: 1, records: records)
    }
}
