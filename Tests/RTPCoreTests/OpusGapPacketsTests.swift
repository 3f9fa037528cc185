import RTPCore
import XCTest

/// The packets an Ogg Opus file fills a gap with (RFC 7845 §4.1), read back by `OpusPayload`.
final class OpusGapPacketsTests: XCTestCase {
    private func packets(_ samples: Int, after toc: UInt8) -> [(bytes: [UInt8], samples: Int)] {
        var out: [(bytes: [UInt8], samples: Int)] = []
        OpusGapPackets.forEach(lasting: samples, after: toc) { out.append((Array($0), $1)) }
        return out
    }

    /// SILK wideband 20 ms stereo (configuration 9, s set): three frames in one packet with a frame
    /// count byte, two with code 1, one with code 0.
    func testFramesOfThePacketBeforeInAsFewPacketsAsAllowed() {
        let toc: UInt8 = 9 << 3 | 0x04 | 3
        XCTAssertEqual(packets(2880, after: toc).map(\.bytes), [[9 << 3 | 0x04 | 3, 3]])
        XCTAssertEqual(packets(1920, after: toc).map(\.bytes), [[9 << 3 | 0x04 | 1]])
        XCTAssertEqual(packets(960, after: toc).map(\.bytes), [[9 << 3 | 0x04]])
        // 200 ms: 120 ms, the most a packet holds, then 80.
        XCTAssertEqual(packets(9600, after: toc).map(\.bytes), [[9 << 3 | 0x04 | 3, 6], [9 << 3 | 0x04 | 3, 4]])
    }

    /// 27.5 ms after 20 ms frames: one of them, then CELT frames of the same band (wideband, 21 and
    /// 20 for 5 and 2.5 ms); a length between steps of 2.5 ms goes to the nearest.
    func testWhatIsShorterThanAFrameIsCELTOfTheSameBand() {
        let toc: UInt8 = 9 << 3
        XCTAssertEqual(packets(1320, after: toc).map(\.bytes), [[9 << 3], [21 << 3], [20 << 3]])
        XCTAssertEqual(packets(1330, after: toc).map(\.bytes), packets(1320, after: toc).map(\.bytes))
        XCTAssertEqual(packets(59, after: toc).count, 0)
        XCTAssertEqual(packets(60, after: toc).map(\.bytes), [[20 << 3]])
    }

    /// Whatever the TOC byte before (all 256) and the length: the packets add up to it to the
    /// nearest 2.5 ms, each at most 120 ms, each read back as lasting what it was said to.
    func testEveryTOCAndLengthAddsUp() {
        var generator = SeededGenerator(state: 7845)
        for toc in 0...255 {
            for _ in 0..<20 {
                let samples = Int(generator.next() % 200_000)
                let made = packets(samples, after: UInt8(toc))
                XCTAssertEqual(made.reduce(0) { $0 + $1.samples }, (samples + 60) / 120 * 120, "TOC \(toc), \(samples)")
                for packet in made {
                    XCTAssertLessThanOrEqual(packet.samples, 5760)
                    XCTAssertEqual(packet.bytes.withUnsafeBytes { OpusPayload.samples($0) }, packet.samples, "TOC \(toc)")
                }
            }
        }
    }
}
