import RTPCore
import XCTest

/// What a depacketizer gave, in order.
private final class Collected: AudioUnitOutput {
    var units: [(timestamp: Int64, duration: Int64, bytes: [UInt8])] = []
    var dropped: [(timestamp: Int64, reason: FrameRecord.Reason)] = []
    var invalid: [AudioPayloadInvalid] = []
    var tracks: [AudioTrack] = []

    func unit(_ track: AudioTrack, timestamp: Int64, duration: Int64, bytes: UnsafeRawBufferPointer,
              firstSequenceNumber: Int64, lastSequenceNumber: Int64) throws {
        units.append((timestamp, duration, Array(bytes)))
        tracks.append(track)
    }

    func dropped(timestamp: Int64, reason: FrameRecord.Reason, bytes: Int, firstSequenceNumber: Int64,
                 lastSequenceNumber: Int64, missingPackets: Int) throws {
        dropped.append((timestamp, reason))
    }

    func invalid(_ reason: AudioPayloadInvalid) { invalid.append(reason) }
}

private func feed<D: AudioDepacketizer>(_ d: inout D, _ packets: [(payload: [UInt8], timestamp: Int64, marker: Bool, lost: Int)]) throws -> Collected {
    let out = Collected()
    for (i, p) in packets.enumerated() {
        try p.payload.withUnsafeBytes {
            try d.process(payload: $0, timestamp: p.timestamp, marker: p.marker, lostBefore: p.lost,
                          sequenceNumber: Int64(i), into: out)
        }
    }
    try d.flush(into: out)
    return out
}

private func aacFormat(_ extra: String = "") -> MediaDescription.Format {
    var f = MediaDescription.Format(encodingName: "MPEG4-GENERIC", clockRate: 48000, channels: 2)
    f.parameters = [("mode", "AAC-hbr"), ("sizelength", "13"), ("indexlength", "3"), ("indexdeltalength", "3"),
                    ("config", "1190")]
    return f
}

/// AU-headers-length, then 16-bit AAC-hbr headers (13-bit size, 3-bit index or delta).
private func hbr(_ aus: [(size: Int, index: Int)]) -> [UInt8] {
    var out: [UInt8] = [UInt8((aus.count * 16) >> 8), UInt8((aus.count * 16) & 0xFF)]
    for au in aus {
        let header = au.size << 3 | au.index
        out += [UInt8(header >> 8), UInt8(header & 0xFF)]
    }
    return out
}

final class AudioSpecificConfigTests: XCTestCase {
    func testReadsFFmpegsConfigWithItsSBRSyncExtension() throws {
        // 00010 0011 0010 0 0 0 | 0x2b7 00101 0 | padding: AAC LC, 48 kHz, stereo, SBR signalled absent.
        let config = try AudioSpecificConfig(hex: "119056E500")
        XCTAssertEqual(config.audioObjectType, 2)
        XCTAssertEqual(config.samplingFrequency, 48000)
        XCTAssertEqual(config.channels, 2)
        XCTAssertNil(config.extensionSamplingFrequency)
        XCTAssertEqual(config.bytes, [0x11, 0x90, 0x56, 0xE5, 0x00], "FLV gets the bytes as given")
        XCTAssertEqual(config.samplesPerFrame, 1024)
    }

    func testADTSHeaderCarriesProfileRateChannelsAndLength() throws {
        let h = ADTSHeader.bytes(for: try AudioSpecificConfig(hex: "1190"), accessUnitBytes: 100)
        // FFF1, profile 1 (LC), index 3, channels 2, length 107, fullness 0x7FF.
        XCTAssertEqual([h.0, h.1, h.2, h.3, h.4, h.5, h.6], [0xFF, 0xF1, 0x4C, 0x80, 0x0D, 0x7F, 0xFC])
    }

    func testStreamMuxConfigThatEndsAfterTheAudioSpecificConfigIsTaken() throws {
        // GStreamer's rtpmp4apay: the config stops at the padded AudioSpecificConfig.
        let config = try StreamMuxConfig(hex: "40002320adca00")
        XCTAssertEqual(config.numSubFrames, 0)
        XCTAssertEqual(config.audioSpecificConfig.samplingFrequency, 48000)
        XCTAssertEqual(config.audioSpecificConfig.channels, 2)
        XCTAssertEqual(config.audioSpecificConfig.bytes.prefix(2), [0x11, 0x90], "the config starts at bit 15")
    }
}

final class MPEG4GenericPayloadTests: XCTestCase {
    private func depacketizer() throws -> MPEG4GenericPayload {
        try XCTUnwrap(try AudioFormats.depacketizer(for: aacFormat()) as? MPEG4GenericPayload)
    }

    func testSeveralAUsInAPacketStepOneFrameEach() throws {
        var d = try depacketizer()
        let out = try feed(&d, [(hbr([(3, 0), (2, 0), (1, 0)]) + [1, 1, 1, 2, 2, 3], 1000, true, 0)])
        XCTAssertEqual(out.units.map(\.timestamp), [1000, 2024, 3048])
        XCTAssertEqual(out.units.map(\.bytes), [[1, 1, 1], [2, 2], [3]])
    }

    func testFragmentedAUIsRebuiltAndDroppedWholeOnLoss() throws {
        var d = try depacketizer()
        let au = [UInt8](0..<10)
        let out = try feed(&d, [
            (hbr([(10, 0)]) + au[0..<4], 0, false, 0), (hbr([(10, 0)]) + au[4..<8], 0, false, 0),
            (hbr([(10, 0)]) + au[8..<10], 0, true, 0),
            // The second AU loses its middle fragment.
            (hbr([(10, 0)]) + au[0..<4], 1024, false, 0), (hbr([(10, 0)]) + au[8..<10], 1024, true, 1),
            (hbr([(1, 0)]) + [7], 2048, true, 0),
        ])
        XCTAssertEqual(out.units.map(\.bytes), [au, [7]])
        XCTAssertEqual(out.dropped.map(\.timestamp), [1024])
        XCTAssertEqual(out.dropped.first?.reason, .missingPackets)
    }

    func testInterleavedAUsArePutBackInOrder() throws {
        // RFC 3640 §3.3.6's pattern: packets of AUs 1,4,7 / 2,5,8 / 3,6,9, index deltas of 2.
        var d = try depacketizer()
        var packets: [(payload: [UInt8], timestamp: Int64, marker: Bool, lost: Int)] = []
        for first in 0..<3 {
            let aus = [first, first + 3, first + 6]
            packets.append((hbr(aus.enumerated().map { (1, $0.offset == 0 ? first : 2) }) + aus.map(UInt8.init),
                            Int64(first * 1024), true, 0))
        }
        let out = try feed(&d, packets)
        XCTAssertEqual(out.units.map { $0.bytes[0] }, Array(0...8))
        XCTAssertEqual(out.units.map(\.timestamp), (0...8).map { Int64($0 * 1024) })
    }

    func testHeadersThatRunPastThePayloadAreRefused() throws {
        var d = try depacketizer()
        let out = try feed(&d, [([0x00, 0x40, 0x00], 0, true, 0)])
        XCTAssertEqual(out.invalid, [.auHeadersOverrun])
        XCTAssertTrue(out.units.isEmpty)
    }
}

final class LATMPayloadTests: XCTestCase {
    func testInBandStreamMuxConfigShiftsTheFrameIntoBytes() throws {
        // cpresent=1: useSameStreamMux 0, StreamMuxConfig (version 0, ASC 1190, frameLengthType 0,
        // fullness 0xFF, no other data, no CRC), length 2, frame AB CD; then bits to the byte.
        var bits = "0" + "0" + "1" + "000000" + "0000" + "000" + "0001000110010000" + "000" + "11111111" + "0" + "0"
        bits += "00000010" + "10101011" + "11001101"
        while bits.count % 8 != 0 { bits += "0" }
        var payload: [UInt8] = []
        var i = bits.startIndex
        while i < bits.endIndex {
            let next = bits.index(i, offsetBy: 8)
            payload.append(UInt8(bits[i..<next], radix: 2)!)
            i = next
        }
        var d = try XCTUnwrap(try AudioFormats.depacketizer(
            for: MediaDescription.Format(encodingName: "MP4A-LATM", clockRate: 48000, channels: 2)) as? LATMPayload)
        let out = try feed(&d, [(payload, 0, true, 0)])
        XCTAssertEqual(out.units.map(\.bytes), [[0xAB, 0xCD]])
        XCTAssertEqual(out.tracks.first?.config?.samplingFrequency, 48000)
    }

    func testFrameBeforeAnyConfigIsRefused() throws {
        var d = try XCTUnwrap(try AudioFormats.depacketizer(
            for: MediaDescription.Format(encodingName: "MP4A-LATM", clockRate: 48000, channels: 2)) as? LATMPayload)
        let out = try feed(&d, [([0x80, 0x02, 0xAB, 0xCD], 0, true, 0)])  // useSameStreamMux 1, but no config yet
        XCTAssertEqual(out.invalid, [.noStreamMuxConfig])
    }
}

final class MPEGAudioPayloadTests: XCTestCase {
    /// An MPEG-1 layer III frame header: 128 kbit/s, 48 kHz, no padding: 384 bytes.
    private let header: [UInt8] = [0xFF, 0xFB, 0x94, 0x00]

    func testFramesSplitOverPacketsAreJoinedAndStrayFragmentsDropped() throws {
        var d = try XCTUnwrap(try AudioFormats.depacketizer(for: StaticPayloadType.mpa.format) as? MPEGAudioPayload)
        let frame = header + [UInt8](repeating: 7, count: 380)
        let out = try feed(&d, [
            ([0, 0, 0, 0] + frame[0..<200], 0, false, 0), ([0, 0, 0, 200] + frame[200...], 0, true, 0),
            // Two whole frames in one packet, 1152 samples (2160 ticks at 90 kHz) apart.
            ([0, 0, 0, 0] + frame + frame, 2160, true, 0),
            // A fragment whose start was lost.
            ([0, 0, 0, 200] + frame[200...], 6480, true, 1),
        ])
        XCTAssertEqual(out.units.map(\.timestamp), [0, 2160, 4320])
        XCTAssertTrue(out.units.allSatisfy { $0.bytes == frame })
        XCTAssertEqual(out.dropped.map(\.reason), [.missingFragmentStart])
        XCTAssertEqual(out.tracks.first?.sampleRate, 48000)
    }
}

final class OpusPayloadTests: XCTestCase {
    func testDurationComesFromTheTOC() {
        func samples(_ bytes: [UInt8]) -> Int? { bytes.withUnsafeBytes { OpusPayload.samples($0) } }
        XCTAssertEqual(samples([31 << 3]), 960, "CELT 20 ms, one frame")
        XCTAssertEqual(samples([1 << 3 | 1]), 1920, "SILK 20 ms, two frames")
        XCTAssertEqual(samples([16 << 3 | 3, 4]), 480, "CELT 2.5 ms, four frames")
        XCTAssertNil(samples([3]), "code 3 without its count byte")
    }
}
