import Foundation

/// A test-only RFC 7798 sender for what no common sender emits: DONL and DOND (with the DON
/// wrapping, and access units sent out of decoding order), PACI packets with payload header
/// extensions, and NAL units of reserved types. Turns an Annex-B H.265 stream into payloads; a
/// receiver's output is then checked against that stream, never against this packetizer.
struct HEVCTestPacketizer {
    struct NALUnit {
        var bytes: [UInt8]
        var don: UInt16
        var timestamp: UInt32
        var accessUnit: Int
    }

    var mtu = 700
    /// With DONs: access units sent in reverse order within groups of this many.
    var group = 3
    var decodingOrderNumbers = true
    var firstDON: UInt16 = 65400
    /// Every third packet wrapped in a PACI with an extension of 0–31 bytes.
    var paci = false
    /// Reserved NAL units (types 41, 47, and a large 45 that needs fragments) put in every 10 access units.
    var reserved = false

    static func type(_ nal: [UInt8]) -> UInt8 { nal[0] >> 1 & 0x3F }

    /// The NAL units of an Annex-B stream, in decoding order, grouped into access units as H.265
    /// §7.4.2.4.4 says (a first slice segment, or AUD/VPS/SPS/PPS/prefix SEI, after a picture's slices).
    func nalUnits(_ stream: [UInt8]) -> [NALUnit] {
        var starts: [Int] = []
        var i = 0
        while i + 3 <= stream.count {
            if stream[i] == 0 && stream[i + 1] == 0 && stream[i + 2] == 1 { starts.append(i + 3); i += 3 } else { i += 1 }
        }
        var units: [NALUnit] = []
        var accessUnit = -1, sawVCL = false, opened = false
        func add(_ nal: [UInt8]) {
            units.append(NALUnit(bytes: nal, don: firstDON &+ UInt16(truncatingIfNeeded: units.count),
                                 timestamp: 0xFFFF_F000 &+ UInt32(accessUnit) &* 3000, accessUnit: accessUnit))
        }
        for (n, start) in starts.enumerated() {
            var end = n + 1 < starts.count ? starts[n + 1] - 3 : stream.count
            while end > start && stream[end - 1] == 0 { end -= 1 }
            let nal = Array(stream[start..<end])
            let type = Self.type(nal)
            let isVCL = type < 32
            let prefix = (32...35).contains(type) || type == 39
            if (prefix && (sawVCL || !opened)) || (isVCL && nal.count > 2 && nal[2] & 0x80 != 0 && (sawVCL || !opened)) {
                accessUnit += 1
                sawVCL = false
                opened = true
            }
            if isVCL { sawVCL = true }
            add(nal)
            if reserved && isVCL && accessUnit % 10 == 0 && nal[2] & 0x80 != 0 {
                for (t, size) in [(UInt8(41), 12), (47, 30), (45, 3 * mtu)] {
                    add([t << 1, 1] + (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) })
                }
            }
        }
        return units
    }

    /// Transmission order: with DONs, access units reversed within each group; else as decoded.
    func transmissionOrder(_ units: [NALUnit]) -> [NALUnit] {
        guard decodingOrderNumbers else { return units }
        let byAU = Dictionary(grouping: units, by: \.accessUnit)
        let count = (units.map(\.accessUnit).max() ?? -1) + 1
        var order: [NALUnit] = []
        for base in stride(from: 0, to: count, by: group) {
            for au in (base..<min(base + group, count)).reversed() { order += byAU[au] ?? [] }
        }
        return order
    }

    /// sprop-depack-buf-nalus and sprop-max-don-diff for `order` (§7.1): the most units that precede
    /// one in transmission order and follow it in decoding order, and the largest DON distance between
    /// such a pair.
    func decodingOrderBounds(_ order: [NALUnit]) -> (units: Int, donDiff: Int) {
        var units = 0, donDiff = 0
        for (i, unit) in order.enumerated() {
            let distances = order[..<i].map { Int(Int16(bitPattern: $0.don &- unit.don)) }.filter { $0 > 0 }
            units = max(units, distances.count)
            donDiff = max(donDiff, distances.max() ?? 0)
        }
        return (units, donDiff)
    }

    /// The payloads, with each access unit's last packet (in transmission order) marked.
    func payloads(_ order: [NALUnit]) -> [(payload: [UInt8], timestamp: UInt32, marker: Bool)] {
        var out: [(payload: [UInt8], timestamp: UInt32, marker: Bool)] = []
        var run: [NALUnit] = []
        func don(_ unit: NALUnit) -> [UInt8] { decodingOrderNumbers ? [UInt8(unit.don >> 8), UInt8(unit.don & 0xFF)] : [] }
        func flushRun() {
            defer { run.removeAll() }
            guard let first = run.first else { return }
            if run.count == 1 {
                out.append((first.bytes[0..<2] + don(first) + first.bytes[2...], first.timestamp, false))
                return
            }
            // An AP: its header takes the lowest F... of its units (here all 0), the lowest LayerId and TID.
            let tid = run.map { $0.bytes[1] & 7 }.min()!
            var payload: [UInt8] = [48 << 1, tid] + don(first)
            for (k, unit) in run.enumerated() {
                if k > 0 && decodingOrderNumbers { payload.append(UInt8(unit.don &- run[k - 1].don &- 1)) }
                payload += [UInt8(unit.bytes.count >> 8), UInt8(unit.bytes.count & 0xFF)] + unit.bytes
            }
            out.append((payload, first.timestamp, false))
        }
        for (n, unit) in order.enumerated() {
            if unit.bytes.count > mtu {
                flushRun()
                let header = unit.bytes[0..<2], type = Self.type(unit.bytes)
                var rest = Array(unit.bytes[2...])
                var first = true
                while !rest.isEmpty {
                    let take = min(rest.count, mtu)
                    let last = take == rest.count
                    let fu: UInt8 = (first ? 0x80 : 0) | (last ? 0x40 : 0) | type
                    out.append(([49 << 1 | header[header.startIndex] & 1, header[header.startIndex + 1], fu] + (first ? don(unit) : [])
                                    + rest[0..<take], unit.timestamp, false))
                    rest.removeFirst(take)
                    first = false
                }
            } else {
                let size = run.reduce(0) { $0 + $1.bytes.count + 3 } + unit.bytes.count
                if let last = run.last, last.accessUnit != unit.accessUnit || unit.don != last.don &+ 1 || size > mtu { flushRun() }
                run.append(unit)
            }
            if n + 1 == order.count || order[n + 1].accessUnit != unit.accessUnit {
                flushRun()
                out[out.count - 1].marker = true
            }
        }
        return paci ? out.enumerated().map { $0.offset % 3 == 1 ? (wrapInPACI($0.element.payload, extensionBytes: $0.offset % 32), $0.element.timestamp, $0.element.marker) : $0.element } : out
    }

    /// RFC 7798 §4.4.4: the payload header's Type becomes 50, with F in A and the type in cType, then
    /// PHSsize bytes of extension, then the rest of the payload.
    func wrapInPACI(_ payload: [UInt8], extensionBytes: Int) -> [UInt8] {
        let f = payload[0] & 0x80, type = payload[0] >> 1 & 0x3F
        let header: [UInt8] = [50 << 1 | payload[0] & 1, payload[1]]
        let fields: [UInt8] = [f | type << 1 | UInt8(extensionBytes >> 4), UInt8(extensionBytes & 0xF) << 4]
        return header + fields + (0..<extensionBytes).map { UInt8(truncatingIfNeeded: 0xA5 ^ $0) } + payload[2...]
    }

    /// A pcap of the payloads, in UDP to 127.0.0.1:5004, sequence numbers in order.
    static func pcap(_ payloads: [(payload: [UInt8], timestamp: UInt32, marker: Bool)], ssrc: UInt32 = 0x2652_0001,
                     firstSequence: UInt16 = 65000) -> Data {
        let records = payloads.enumerated().map { n, p -> (UInt64, [UInt8]) in
            let rtp = TestPcap.rtp(p.payload, marker: p.marker, sequence: firstSequence &+ UInt16(truncatingIfNeeded: n),
                                   timestamp: p.timestamp, ssrc: ssrc)
            return (UInt64(1_700_000_000) * 1_000_000_000 + UInt64(n) * 1_000_000, TestPcap.udpFrame(rtp, ethernet: true))
        }
        return TestPcap.data(linkType: 1, records: records)
    }

    /// An SDP for the payloads: H265/90000 with the DON parameters when DONs are in use.
    func sdp(_ bounds: (units: Int, donDiff: Int)) -> String {
        let fmtp = decodingOrderNumbers
            ? "a=fmtp:96 sprop-max-don-diff=\(max(bounds.donDiff, 1)); sprop-depack-buf-nalus=\(bounds.units); sprop-depack-buf-bytes=4000000\n"
            : ""
        return "v=0\no=- 0 0 IN IP4 127.0.0.1\ns=h265\nc=IN IP4 127.0.0.1\nt=0 0\nm=video 5004 RTP/AVP 96\na=rtpmap:96 H265/90000\n" + fmtp
    }
}
