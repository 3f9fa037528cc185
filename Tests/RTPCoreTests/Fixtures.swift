@testable import RTPCore
import XCTest

/// Builds RTP packets and NAL units for tests, field by field.
enum Fixture {
    /// An SPS for 320x240 Baseline (profile 66, level 30, id 0), as x264 writes it.
    static let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E, 0xD9, 0x01, 0x41, 0xFB, 0x01, 0x10, 0x00, 0x00, 0x03, 0x00,
                               0x10, 0x00, 0x00, 0x03, 0x03, 0xC0, 0xF1, 0x62, 0xE4, 0x80]
    /// PPS id 0 referring to SPS 0.
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]

    /// A slice NAL unit: first_mb_in_slice, slice_type 7 (I) or 5 (P), pps id 0, then filler bytes.
    /// With `frameNum`, also frame_num (4 bits, as `sps` says) and, in an IDR slice, idr_pic_id 0.
    /// P slices have nal_ref_idc 2, or 0 when not `reference`.
    static func slice(idr: Bool, firstMb: Int = 0, bytes: Int = 40, tag: UInt8 = 0x55, frameNum: Int? = nil,
                      reference: Bool = true) -> [UInt8] {
        // ue(firstMb) ue(slice_type) ue(0): encode bit by bit.
        var bits: [UInt8] = []
        func ue(_ v: Int) {
            let code = v + 1
            let length = Int.bitWidth - code.leadingZeroBitCount
            bits += Array(repeating: 0, count: length - 1)
            for i in stride(from: length - 1, through: 0, by: -1) { bits.append(UInt8(code >> i & 1)) }
        }
        ue(firstMb)
        ue(idr ? 7 : 5)
        ue(0)
        if let frameNum {
            for i in stride(from: 3, through: 0, by: -1) { bits.append(UInt8(frameNum >> i & 1)) }
            if idr { ue(0) }
        }
        bits.append(1)
        while bits.count % 8 != 0 { bits.append(0) }
        var body: [UInt8] = stride(from: 0, to: bits.count, by: 8).map { i in
            bits[i..<i + 8].reduce(0) { $0 << 1 | $1 }
        }
        body += Array(repeating: tag, count: max(0, bytes - body.count))
        return [idr ? 0x65 : reference ? 0x41 : 0x01] + body
    }

    static func rtp(seq: UInt16, ts: UInt32, marker: Bool = false, pt: UInt8 = 96, ssrc: UInt32 = 0x1234,
                    payload: [UInt8]) -> [UInt8] {
        [0x80, (marker ? 0x80 : 0) | pt, UInt8(seq >> 8), UInt8(seq & 0xFF),
         UInt8(ts >> 24), UInt8(ts >> 16 & 0xFF), UInt8(ts >> 8 & 0xFF), UInt8(ts & 0xFF),
         UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF)] + payload
    }

    static func stapA(_ units: [[UInt8]]) -> [UInt8] {
        [0x78] + units.flatMap { [UInt8($0.count >> 8), UInt8($0.count & 0xFF)] + $0 }
    }

    /// FU-A fragments of `nal`, `size` bytes of it per fragment.
    static func fuA(_ nal: [UInt8], size: Int) -> [[UInt8]] {
        let body = Array(nal.dropFirst())
        let chunks = stride(from: 0, to: body.count, by: size).map { Array(body[$0..<min($0 + size, body.count)]) }
        return chunks.enumerated().map { i, chunk in
            let s: UInt8 = i == 0 ? 0x80 : 0, e: UInt8 = i == chunks.count - 1 ? 0x40 : 0
            return [nal[0] & 0xE0 | 28, s | e | nal[0] & 0x1F] + chunk
        }
    }

    static func annexB(_ nals: [[UInt8]]) -> [UInt8] { nals.flatMap { [0, 0, 0, 1] + $0 } }
}

/// Collects what the receiver writes, and its ledger.
final class CollectingSink: AccessUnitSink {
    var records: [FrameRecord] = []
    func account(_ record: FrameRecord) throws {
        records.append(record)
    }
    var accessUnits: [[UInt8]] = []
    var keyframes: [Bool] = []
    var timestamps: [UInt32] = []
    var pieceCounts: [Int] = []
    var nalUnitOffsets: [[Int]] = []
    func write(_ accessUnit: AccessUnit) throws {
        pieceCounts.append(accessUnit.pieces.count)
        XCTAssertEqual(accessUnit.pieces.reduce(0) { $0 + $1.count }, accessUnit.byteCount)
        let bytes = accessUnit.pieces.flatMap { Array($0) }
        accessUnits.append(bytes)
        nalUnitOffsets.append(Array(accessUnit.nalUnitOffsets))
        if [.h264, .h265].contains(accessUnit.codec) {
            // The fixtures' NAL units hold no start code of their own.
            let startCodes = bytes.indices.filter { bytes[$0...].starts(with: [0, 0, 0, 1]) }
            XCTAssertEqual(Array(accessUnit.nalUnitOffsets), startCodes)
        }
        keyframes.append(accessUnit.isKeyframe)
        timestamps.append(accessUnit.timestamp)
    }
}

/// Feeds packets to a `Receiver` with a 1 ms packet clock.
final class Feeder {
    let sink = CollectingSink()
    let receiver: Receiver
    private var clock: Int64 = 1_000_000_000

    init(_ configure: (inout Receiver.Configuration) -> Void = { _ in }) {
        var c = Receiver.Configuration()
        c.stream.reorder.latencyNanoseconds = 50_000_000
        configure(&c)
        receiver = Receiver(configuration: c, sink: sink)
    }

    func send(_ datagram: [UInt8]) throws {
        try datagram.withUnsafeBytes { try send($0) }
    }

    func send(_ datagram: UnsafeRawBufferPointer) throws {
        clock += 1_000_000
        try receiver.receive(datagram: datagram, source: nil, destination: nil, arrival: clock)
    }

    /// Time passes on the arrival clock, no packet coming.
    func wait(nanoseconds: Int64) { clock += nanoseconds }

    func finish() throws -> [[UInt8]] {
        try receiver.finish()
        return sink.accessUnits
    }

    var stream: StreamStatistics { receiver.selected!.statistics }
}
