import XCTest
@testable import RTPCore

/// Link layer → IP → UDP, on hand-built frames.
final class LinkFrameDecoderTests: XCTestCase {
    /// IPv4 header (no options) + UDP header + payload, 10.0.0.1:4000 → 10.0.0.2:5004.
    private func ipv4UDP(payload: [UInt8], flags: UInt16 = 0x4000, udpLength: Int? = nil) -> [UInt8] {
        let total = 20 + 8 + payload.count
        let udpLen = udpLength ?? 8 + payload.count
        return [0x45, 0, UInt8(total >> 8), UInt8(total & 0xFF),  // version/IHL, DSCP, total length
                0, 0, UInt8(flags >> 8), UInt8(flags & 0xFF),      // id, flags/fragment offset
                64, 17, 0, 0,                                       // TTL, protocol UDP, checksum
                10, 0, 0, 1, 10, 0, 0, 2,                           // addresses
                0x0F, 0xA0, 0x13, 0x8C,                             // ports 4000 → 5004
                UInt8(udpLen >> 8), UInt8(udpLen & 0xFF), 0, 0] + payload
    }

    private func decode(_ linkType: LinkType, _ frame: [UInt8], originalLength: Int? = nil) throws -> (UDPDatagram, [UInt8]) {
        try frame.withUnsafeBytes { raw in
            let d = try LinkFrameDecoder.udpDatagram(linkType: linkType, frame: raw, originalLength: originalLength ?? frame.count)
            return (d, Array(raw[d.payloadRange]))
        }
    }

    private func assertSkip(_ linkType: LinkType, _ frame: [UInt8], _ reason: FrameSkip, originalLength: Int? = nil, line: UInt = #line) {
        XCTAssertThrowsError(try decode(linkType, frame, originalLength: originalLength), line: line) {
            XCTAssertEqual($0 as? FrameSkip, reason, line: line)
        }
    }

    func testEthernetWithVLANTags() throws {
        let ethernet: [UInt8] = Array(repeating: 0, count: 12) + [0x81, 0x00, 0x00, 0x64] + [0x08, 0x00]
        let (d, payload) = try decode(.ethernet, ethernet + ipv4UDP(payload: [1, 2, 3]))
        XCTAssertEqual(payload, [1, 2, 3])
        XCTAssertEqual(d.source.description, "10.0.0.1:4000")
        XCTAssertEqual(d.destination.port, 5004)
    }

    func testLinuxCookedAndLoopbackHeaders() throws {
        let sll: [UInt8] = [0, 0, 3, 4, 0, 6] + Array(repeating: 0, count: 8) + [0x08, 0x00]
        XCTAssertEqual(try decode(.linuxSLL, sll + ipv4UDP(payload: [9])).1, [9])
        let sll2: [UInt8] = [0x08, 0x00, 0, 0, 0, 0, 0, 1, 3, 4, 0, 6] + Array(repeating: 0, count: 8)
        XCTAssertEqual(try decode(.linuxSLL2, sll2 + ipv4UDP(payload: [8])).1, [8])
        XCTAssertEqual(try decode(.null, [2, 0, 0, 0] + ipv4UDP(payload: [7])).1, [7])      // little-endian host
        XCTAssertEqual(try decode(.null, [0, 0, 0, 2] + ipv4UDP(payload: [7])).1, [7])      // big-endian host
        XCTAssertEqual(try decode(.loop, [0, 0, 0, 2] + ipv4UDP(payload: [6])).1, [6])
        XCTAssertEqual(try decode(.rawIP, ipv4UDP(payload: [5])).1, [5])
    }

    func testIPv6SkipsExtensionHeaders() throws {
        let udp: [UInt8] = [0x0F, 0xA0, 0x13, 0x8C, 0, 10, 0, 0, 0xAB, 0xCD]
        let hop: [UInt8] = [17, 0, 1, 4, 0, 0, 0, 0]                  // next header UDP, PadN
        var ip6: [UInt8] = [0x60, 0, 0, 0, 0, UInt8(hop.count + udp.count), 0, 64]
        ip6 += Array(repeating: 0, count: 15) + [1] + Array(repeating: 0, count: 15) + [1]
        let (d, payload) = try decode(.ipv6, ip6 + hop + udp)
        XCTAssertEqual(payload, [0xAB, 0xCD])
        XCTAssertEqual(d.source.description, "[::1]:4000")
    }

    func testFragmentsTruncationAndLiesAreSkippedByReason() {
        assertSkip(.rawIP, ipv4UDP(payload: [1, 2], flags: 0x2000), .ipFragment)        // more fragments
        assertSkip(.rawIP, ipv4UDP(payload: [1, 2], flags: 0x0010), .ipFragment)        // non-zero offset
        assertSkip(.rawIP, ipv4UDP(payload: [1, 2, 3]), .truncated, originalLength: 100)
        assertSkip(.rawIP, ipv4UDP(payload: [1, 2], udpLength: 60), .malformed)         // UDP length lies
        assertSkip(.rawIP, ipv4UDP(payload: [1, 2], udpLength: 4), .malformed)
        assertSkip(.rawIP, Array(ipv4UDP(payload: [1, 2, 3]).prefix(24)), .truncated)  // IP length beyond capture
        assertSkip(.ethernet, Array(repeating: 0, count: 12) + [0x08, 0x06, 0, 0], .notIP)
        assertSkip(.ethernet, [0, 1], .malformed)
        var tcp = ipv4UDP(payload: [1])
        tcp[9] = 6
        assertSkip(.rawIP, tcp, .notUDP)
    }

    /// A good frame with a few bytes changed and its end cut anywhere, under every link type: it
    /// decodes to a payload inside the frame, or is skipped by reason; it never traps. Both outcomes
    /// come many times, so the frames reach the IP and UDP layers.
    func testMutatedFramesDecodeInsideTheFrameOrAreSkipped() {
        var rng = SeededGenerator(state: 7)
        let good = Array(repeating: 0, count: 12) + [0x08, 0x00] + ipv4UDP(payload: Array(0..<40))
        var decoded = 0, skipped = 0
        for _ in 0..<20000 {
            var frame = good
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                frame[Int.random(in: 0..<frame.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            frame.removeLast(Int.random(in: 0...8, using: &rng) == 0 ? Int.random(in: 0...frame.count, using: &rng) : 0)
            for linkType in [LinkType.ethernet, .linuxSLL, .linuxSLL2, .null, .rawIP, .ipv6] {
                do {
                    let (d, payload) = try frame.withUnsafeBytes { raw in
                        let d = try LinkFrameDecoder.udpDatagram(linkType: linkType, frame: raw, originalLength: frame.count)
                        return (d, Array(raw[d.payloadRange]))
                    }
                    XCTAssertLessThanOrEqual(d.payloadRange.upperBound, frame.count)
                    XCTAssertGreaterThanOrEqual(d.payloadRange.lowerBound, 8 + 20)  // past an IPv4 and a UDP header at least
                    XCTAssertLessThanOrEqual(payload.count, 40 + 24)
                    decoded += 1
                } catch {
                    XCTAssertNotNil(error as? FrameSkip, "\(error)")
                    skipped += 1
                }
            }
        }
        XCTAssertGreaterThan(decoded, 5000)
        XCTAssertGreaterThan(skipped, 5000)
    }
}
