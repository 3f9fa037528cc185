import Foundation
import XCTest

/// AV1 over RTP ("RTP Payload Format For AV1", AOMedia) end to end. No packetizer ships in Debian,
/// so scripts/av1-rtp-packetize (Python, written from the specification, sharing nothing with
/// rtprecv) packetizes a libaom encode (captures/av1-source.ivf) in each way the specification
/// allows; every temporal unit rtprecv writes must be the encoder's, byte for byte, and decode as
/// the ffmpeg CLI decodes the source.
final class AV1Tests: XCTestCase {
    private let source = FrameCaptures.capture("av1-source.ivf")

    /// The source (or `ivf`) packetized with `options`, as a pcap.
    private func packetized(_ options: [String], name: String, from ivf: URL? = nil) throws -> URL {
        let pcap = Harness.temporaryFile(name + ".pcap")
        let script = Harness.packageRoot.appendingPathComponent("scripts/av1-rtp-packetize").path
        let result = try Harness.run("/usr/bin/python3", [script, (ivf ?? source).path, pcap.path] + options)
        XCTAssertEqual(result.status, 0, result.stderr)
        return pcap
    }

    /// Aggregation with a length on every element (W=0) and without the last one's (W=count), in
    /// packets large and small enough that most OBUs are fragmented across several (Z, Y).
    func testEveryPacketizationIsTheEncodersTemporalUnits() throws {
        let expected = try FrameCaptures.packetHashes(source)
        XCTAssertEqual(expected.count, 60)
        let decoded = try Harness.frameMD5(source)
        for options in [["--mode", "w0"], ["--mode", "count"], ["--mode", "mixed", "--mtu", "500"], ["--mode", "count", "--mtu", "120"]] {
            let name = "av1-" + options.joined(separator: "")
            let (ivf, ledger, stderr) = try FrameCaptures.replay(try packetized(options, name: name), ["--codec", "av1"], name: name)
            XCTAssertEqual(try FrameCaptures.packetHashes(ivf), expected, "\(options)")
            XCTAssertEqual(try Harness.frameMD5(ivf), decoded, "\(options)")
            XCTAssertEqual(ledger.filter { $0.keyframe }.count, 2, "\(options)")
            XCTAssertTrue(ledger.allSatisfy { $0.status == "written" && $0.refs_intact }, "\(options)")
            XCTAssertTrue(stderr.contains("video      AV1 Main, Main tier, level 2.0, 320x240, 8-bit 4:2:0"), stderr)
        }
        XCTAssertEqual(try Harness.probe(source, "stream=profile,pix_fmt"), "profile=Main\npix_fmt=yuv420p\n")
    }

    /// rtprecv's own decoder output (libavcodec's libdav1d) is the ffmpeg CLI's decode of the
    /// source, picture for picture.
    func testTheDecodedFramesAreTheSourcesDecodedByFFmpeg() throws {
        let md5 = Harness.temporaryFile("av1.md5")
        let pcap = try packetized(["--mode", "mixed", "--mtu", "500"], name: "av1-decode")
        let result = try Harness.rtprecv(["--pcap", pcap.path, "--codec", "av1", "--frame-md5", md5.path, "-q"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(Harness.hashes(try Data(contentsOf: md5)), try Harness.frameMD5(source))
    }

    /// A sender that sends the sequence header only once: rtprecv puts the one it kept in front of
    /// the next keyframe, so that the unit is the encoder's again and a file cut there plays.
    func testTheSequenceHeaderIsPutBackInFrontOfAKeyframeThatCameWithoutIt() throws {
        let pcap = try packetized(["--strip-repeated-sequence-headers"], name: "av1-stripped")
        let (ivf, _, _) = try FrameCaptures.replay(pcap, ["--codec", "av1"], name: "av1-stripped")
        XCTAssertEqual(try FrameCaptures.packetHashes(ivf), try FrameCaptures.packetHashes(source))
    }

    /// Without an SDP or --codec, the sequence header in a packet with N proves AV1 (for --list and
    /// the receiver alike); with an SDP's AV1/90000, the payload type is AV1 from the start.
    func testAV1IsKnownWithoutAnSDPAndFromOne() throws {
        let pcap = try packetized(["--mode", "mixed"], name: "av1-plain")
        let list = try Harness.rtprecv(["--pcap", pcap.path, "--list"])
        XCTAssertTrue(String(decoding: list.stdout, as: UTF8.self).contains("AV1 320x240  2 coded video sequences"),
                      String(decoding: list.stdout, as: UTF8.self))
        let (found, _, _) = try FrameCaptures.replay(pcap, name: "av1-found")
        XCTAssertEqual(try FrameCaptures.packetHashes(found).count, 60)
        let sdp = Harness.temporaryFile("av1.sdp")
        try "v=0\r\nc=IN IP4 127.0.0.1\r\nm=video 5004 RTP/AVP 96\r\na=rtpmap:96 AV1/90000\r\na=fmtp:96 profile=0;level-idx=5;tier=0\r\n"
            .write(to: sdp, atomically: true, encoding: .utf8)
        let (named, _, stderr) = try FrameCaptures.replay(pcap, ["--sdp", sdp.path], name: "av1-sdp")
        XCTAssertEqual(try FrameCaptures.packetHashes(named).count, 60, stderr)
    }

    /// libaom's SVC encoder (two spatial layers of two temporal layers each, captures/av1-svc.ivf):
    /// --list names the layers, from the OBUs' extension headers, and every unit, both spatial
    /// layers' frames, is written as the encoder wrote it.
    func testTheLayersOfAnSVCStreamAreNamedAndItsUnitsKept() throws {
        let svc = FrameCaptures.capture("av1-svc.ivf")
        let pcap = try packetized(["--mode", "mixed", "--mtu", "500"], name: "av1-svc", from: svc)
        let list = try Harness.rtprecv(["--pcap", pcap.path, "--list"])
        let listed = String(decoding: list.stdout, as: UTF8.self)
        XCTAssertTrue(listed.contains("AV1 320x240  2 spatial layers, 2 temporal layers, 2 coded video sequences"), listed)
        let (ivf, ledger, stderr) = try FrameCaptures.replay(pcap, ["--codec", "av1"], name: "av1-svc")
        XCTAssertEqual(try FrameCaptures.packetHashes(ivf), try FrameCaptures.packetHashes(svc), stderr)
        XCTAssertEqual(ledger.filter { $0.keyframe }.count, 2)
        // The plain stream has no layers to name.
        let plain = try Harness.rtprecv(["--pcap", try packetized([], name: "av1-unlayered").path, "--list"])
        XCTAssertTrue(String(decoding: plain.stdout, as: UTF8.self).contains("AV1 320x240  2 coded video sequences"))
    }

    /// A packet lost inside a unit drops that unit, and every unit up to the next keyframe (30) is
    /// written with damaged references; a unit whose first packet was lost is dropped too, as
    /// nothing marks a unit's start.
    func testALostPacketDamagesUpToTheNextKeyframe() throws {
        let pcap = try packetized(["--mode", "w0", "--mtu", "300"], name: "av1-lossy-source")
        let records = try TestPcap.records(of: pcap)
        let timestamps = records.map { Array($0.frame[42...])[4...7].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
        let units = Array(Set(timestamps)).sorted()
        let unit10 = timestamps.indices.filter { timestamps[$0] == units[10] }, unit40 = timestamps.indices.filter { timestamps[$0] == units[40] }
        XCTAssertGreaterThan(unit10.count, 1)
        let lost: Set<Int> = [unit10[1], unit40[0]]
        let kept = records.enumerated().filter { !lost.contains($0.offset) }.map { ($0.element.microseconds, Array($0.element.frame[42...])) }
        let (ivf, ledger, _) = try FrameCaptures.replay(try FrameCaptures.pcap(kept, name: "av1-lossy"), ["--codec", "av1"], name: "av1-lossy")
        XCTAssertEqual(ledger.count, 60)
        XCTAssertEqual(ledger.enumerated().filter { $0.element.status == "dropped" }.map(\.offset), [10, 40])
        // The unit that lost its first packet begins with the rest of an OBU: its start is missing.
        XCTAssertEqual(ledger.filter { $0.status == "dropped" }.map(\.reason), ["missing_packets", "missing_fragment_start"])
        let damaged = ledger.enumerated().filter { $0.element.status == "written" && !$0.element.refs_intact }.map(\.offset)
        XCTAssertEqual(damaged, Array(11..<30) + Array(41..<60))
        // Every unit written came whole: byte for byte the encoder's, the two lost ones aside.
        let expected = try FrameCaptures.packetHashes(source).enumerated().filter { ![10, 40].contains($0.offset) }.map(\.element)
        XCTAssertEqual(try FrameCaptures.packetHashes(ivf), expected)
    }

    /// libaom's L1T3 stream (captures/av1-l1t3.ivf: T0 T2 T1 T2 ..., keyframes at 0 and 32, each
    /// frame referring to one), packetized with the dependency descriptor that says so (frame
    /// numbers wrapping, the structure on each keyframe, some frames described by their own fields):
    /// a lost T2 frame costs only itself, a lost T1 frame itself and the T2 frame that refers to it,
    /// a lost T0 frame every frame to the next keyframe. With --wait-keyframe, every frame written
    /// decodes (by the ffmpeg CLI and by rtprecv's decoder) as the source's does. Without the
    /// descriptor, any loss damages all to the next keyframe.
    func testTheDependencyDescriptorLimitsALossToTheFramesThatReferToIt() throws {
        let l1t3 = FrameCaptures.capture("av1-l1t3.ivf")
        let records = try TestPcap.records(of: try packetized(["--mtu", "300", "--dependency-descriptor", "7"], name: "av1-dd", from: l1t3))
        let timestamps = records.map { Array($0.frame[42...])[4...7].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
        let units = Array(Set(timestamps)).sorted()
        XCTAssertEqual(units.count, 64)
        func packets(of unit: Int) -> [Int] { timestamps.indices.filter { timestamps[$0] == units[unit] } }
        XCTAssertGreaterThan(packets(of: 10).count, 1)
        let lost: Set<Int> = [packets(of: 5)[0], packets(of: 10)[1], packets(of: 40)[0]]
        let kept = records.enumerated().filter { !lost.contains($0.offset) }.map { ($0.element.microseconds, Array($0.element.frame[42...])) }
        let pcap = try FrameCaptures.pcap(kept, name: "av1-dd-lossy")
        func damaged(_ ledger: [Harness.LedgerRecord]) -> [Int] {
            ledger.enumerated().filter { $0.element.status == "written" && !$0.element.refs_intact }.map(\.offset)
        }
        func dropped(_ ledger: [Harness.LedgerRecord]) -> [Int] {
            ledger.enumerated().filter { $0.element.status == "dropped" }.map(\.offset)
        }

        let (_, ledger, _) = try FrameCaptures.replay(pcap, ["--codec", "av1", "--dependency-descriptor", "7"], name: "av1-dd")
        XCTAssertEqual(ledger.count, 64)
        XCTAssertEqual(dropped(ledger), [5, 10, 40])
        XCTAssertEqual(damaged(ledger), [11] + Array(41..<64))
        // The SDP's extmap names the element as the option does.
        let sdp = Harness.temporaryFile("av1-dd.sdp")
        try ("v=0\r\nc=IN IP4 127.0.0.1\r\nm=video 5004 RTP/AVP 96\r\na=rtpmap:96 AV1/90000\r\n"
             + "a=extmap:7 https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension\r\n").write(to: sdp, atomically: true, encoding: .utf8)
        let (_, named, _) = try FrameCaptures.replay(pcap, ["--sdp", sdp.path], name: "av1-dd-sdp")
        XCTAssertEqual(named.map(\.refs_intact), ledger.map(\.refs_intact))

        // Packets that come out of order bring their descriptors through the reorder buffer.
        var swapped = kept
        for k in stride(from: 3, to: swapped.count - 1, by: 7) { swapped.swapAt(k, k + 1) }
        let (_, reordered, stderr) = try FrameCaptures.replay(try FrameCaptures.pcap(swapped, name: "av1-dd-reordered"),
                                                              ["--codec", "av1", "--dependency-descriptor", "7"], name: "av1-dd-reordered")
        XCTAssertFalse(stderr.contains(" 0 reordered"), stderr)
        XCTAssertEqual(reordered.map(\.refs_intact), ledger.map(\.refs_intact))
        XCTAssertEqual(dropped(reordered), [5, 10, 40])

        let md5 = Harness.temporaryFile("av1-dd.md5")
        let (ivf, waited, _) = try FrameCaptures.replay(pcap, ["--codec", "av1", "--dependency-descriptor", "7", "--wait-keyframe",
                                                               "--frame-md5", md5.path], name: "av1-dd-wait")
        let written = waited.indices.filter { waited[$0].status == "written" }
        XCTAssertEqual(written, Array(0..<64).filter { ![5, 10, 11].contains($0) && !(40..<64).contains($0) })
        XCTAssertEqual(try FrameCaptures.packetHashes(ivf), try FrameCaptures.packetHashes(l1t3).enumerated()
            .filter { written.contains($0.offset) }.map(\.element))
        let decoded = try Harness.frameMD5(l1t3)
        XCTAssertEqual(try Harness.frameMD5(ivf), written.map { decoded[$0] })
        XCTAssertEqual(Harness.hashes(try Data(contentsOf: md5)), written.map { decoded[$0] })

        let (_, blind, _) = try FrameCaptures.replay(pcap, ["--codec", "av1"], name: "av1-dd-blind")
        XCTAssertEqual(dropped(blind), [5, 10, 40])
        XCTAssertEqual(damaged(blind), Array(6..<32).filter { $0 != 10 } + Array(41..<64))
    }

    /// Units lost whole: with the descriptor, its start-of-frame bit shows that the next unit's first
    /// packet came, so that unit is kept, and only the frames that refer to a lost one are damaged
    /// (here the T2 unit 47, which refers to the T1 unit 46). Without it, the unit after a loss may
    /// lack its start: it is dropped, and every unit to the next keyframe is damaged.
    func testTheStartOfAFrameAfterALossIsKnownFromTheDependencyDescriptor() throws {
        let l1t3 = FrameCaptures.capture("av1-l1t3.ivf")
        let records = try TestPcap.records(of: try packetized(["--mtu", "300", "--dependency-descriptor", "7"], name: "av1-dd-s", from: l1t3))
        let timestamps = records.map { Array($0.frame[42...])[4...7].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
        let units = Array(Set(timestamps)).sorted()
        func packets(of unit: Int) -> [Int] { timestamps.indices.filter { timestamps[$0] == units[unit] } }
        XCTAssertGreaterThan(packets(of: 45).count, 1)
        // Unit 21 (T2) whole; unit 45's (T2) last packet and unit 46 (T1) whole.
        let lost = Set(packets(of: 21) + [packets(of: 45).last!] + packets(of: 46))
        let kept = records.enumerated().filter { !lost.contains($0.offset) }.map { ($0.element.microseconds, Array($0.element.frame[42...])) }
        let pcap = try FrameCaptures.pcap(kept, name: "av1-dd-s-lossy")
        func unit(_ r: Harness.LedgerRecord) -> Int { units.firstIndex(of: r.ts)! }
        func damaged(_ ledger: [Harness.LedgerRecord]) -> [Int] { ledger.filter { $0.status == "written" && !$0.refs_intact }.map(unit) }
        func dropped(_ ledger: [Harness.LedgerRecord]) -> [Int] { ledger.filter { $0.status == "dropped" }.map(unit) }

        let described = ["--codec", "av1", "--dependency-descriptor", "7"]
        let (_, ledger, _) = try FrameCaptures.replay(pcap, described, name: "av1-dd-s")
        XCTAssertEqual(ledger.map(unit), Array(0..<64).filter { ![21, 46].contains($0) })
        XCTAssertEqual(dropped(ledger), [45])
        XCTAssertEqual(damaged(ledger), [47])

        let (ivf, waited, _) = try FrameCaptures.replay(pcap, described + ["--wait-keyframe"], name: "av1-dd-s-wait")
        let written = waited.filter { $0.status == "written" }.map(unit)
        XCTAssertEqual(written, Array(0..<64).filter { ![21, 45, 46, 47].contains($0) })
        let decoded = try Harness.frameMD5(l1t3)
        XCTAssertEqual(try Harness.frameMD5(ivf), written.map { decoded[$0] })

        let (_, blind, _) = try FrameCaptures.replay(pcap, ["--codec", "av1"], name: "av1-dd-s-blind")
        XCTAssertEqual(dropped(blind), [22, 45, 47])
        XCTAssertEqual(damaged(blind), Array(23..<32) + Array(48..<64))
    }
}
