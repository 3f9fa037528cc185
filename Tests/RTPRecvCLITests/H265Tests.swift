import Foundation
import XCTest

/// H.265 over RTP (RFC 7798) end to end: captures of real senders (GStreamer rtph265pay in each
/// aggregate mode, FFmpeg's muxer with parameter sets in-band and in the SDP alone), the forms no
/// common sender emits (DONL with out-of-order units, PACI, reserved types) from the test
/// packetizer, and damaged variants. Every output is checked with ffmpeg against the elementary
/// stream the capture was made from.
final class H265Tests: XCTestCase {
    private func capture(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    private func replay(_ pcap: URL, _ extra: [String] = [], name: String = #function) throws -> (URL, Harness.Result) {
        let out = Harness.temporaryFile(name + ".h265")
        let result = try Harness.rtprecv(["--pcap", pcap.path, "--out", out.path] + extra)
        XCTAssertEqual(result.status, 0, result.stderr)
        return (out, result)
    }

    /// The RTP packets of a tcpdump capture of loopback (Ethernet, IPv4, UDP), each with its time.
    private func packets(_ name: String) throws -> [(microseconds: UInt64, rtp: [UInt8])] {
        try TestPcap.records(of: capture(name)).map { ($0.microseconds, Array($0.frame[42...])) }
    }

    private func write(_ packets: [(microseconds: UInt64, rtp: [UInt8])], name: String) throws -> URL {
        let url = Harness.temporaryFile(name + ".pcap")
        try TestPcap.data(linkType: 1, records: packets.map { ($0.microseconds * 1000, TestPcap.udpFrame($0.rtp, ethernet: true)) })
            .write(to: url)
        return url
    }

    // MARK: Real senders

    /// A dynamic payload type below 96, as WebRTC stacks use when 96 to 127 run out: found, listed
    /// and written with no option, H.264 and H.265 alike.
    func testStreamsOnPayloadType49NeedNoOption() throws {
        for (name, codec) in [("ffmpeg-h265-inband", "H265"), ("gst-stapa-fua", "H264")] {
            let moved = try packets(name + ".pcap").map { packet in
                var rtp = packet.rtp
                rtp[1] = rtp[1] & 0x80 | 49
                return (packet.microseconds, rtp)
            }
            let pcap = try write(moved, name: "pt49-" + name)
            let list = try Harness.rtprecv(["--pcap", pcap.path, "--list"])
            XCTAssertTrue(String(decoding: list.stdout, as: UTF8.self).contains(" 49 ") , "\(name): \(list.stdout)")
            XCTAssertTrue(String(decoding: list.stdout, as: UTF8.self).contains(codec), "\(name): \(list.stdout)")
            let (out, _) = try replay(pcap, name: "pt49-" + name)
            let source = capture(name + (codec == "H265" ? ".h265" : ".h264"))
            XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(source), name)
        }
    }

    func testEveryCleanCaptureIsFrameIdenticalToItsSource() throws {
        for (name, sdp) in [("gst-h265-none", false), ("gst-h265-zero-latency", false), ("gst-h265-max", false),
                            ("ffmpeg-h265-inband", false), ("ffmpeg-h265-global", true)] {
            let (out, result) = try replay(capture(name + ".pcap"), sdp ? ["--sdp", capture(name + ".sdp").path] : [],
                                           name: name)
            let expected = try Harness.frameMD5(capture(name + ".h265"))
            XCTAssertEqual(expected.count, 120, name)
            XCTAssertEqual(try Harness.frameMD5(out), expected, name)
            XCTAssertTrue(result.stderr.contains("120 written"), "\(name): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("video      H.265"), result.stderr)
        }
    }

    /// A WebRTC stack's own test capture (Tau's, of a real call), beside the stream its depacketizer
    /// extracted: found without an SDP, listed as H.265, and every frame identical.
    func testAWebRTCStacksRealCaptureIsFrameIdenticalToItsOwnExtraction() throws {
        let listed = try Harness.rtprecv(["--pcap", capture("tau-wilson.pcap").path, "--list"])
        XCTAssertTrue(String(decoding: listed.stdout, as: UTF8.self).contains("H265 640x480 Main"),
                      String(decoding: listed.stdout, as: UTF8.self))
        let (out, result) = try replay(capture("tau-wilson.pcap"))
        let expected = try Harness.frameMD5(capture("tau-wilson.h265"))
        XCTAssertEqual(expected.count, 276)
        XCTAssertEqual(try Harness.frameMD5(out), expected, result.stderr)
        XCTAssertEqual(try Harness.decodeErrors(out), "")
    }

    func testTheSPSIsReportedAsFFprobeReadsIt() throws {
        for (name, profile, depth, chroma) in [("gst-h265-none", "Main", 8, "4:2:0"), ("gst-h265-zero-latency", "Main 10", 10, "4:2:0"),
                                               ("gst-h265-max", "Range Extensions", 12, "4:4:4")] {
            let probed = try Harness.probe(capture(name + ".h265"), "stream=width,height,profile,pix_fmt,level")
            XCTAssertTrue(probed.contains("width=320") && probed.contains("height=240"), probed)
            let json = Harness.temporaryFile(name + ".json")
            _ = try replay(capture(name + ".pcap"), ["--stats-json", json.path], name: name)
            let text = try String(contentsOf: json, encoding: .utf8)
            XCTAssertTrue(text.contains("\"codec\": \"h265\"") || text.contains("\"codec\":\"h265\""), text)
            let (_, result) = try replay(capture(name + ".pcap"), [], name: name)
            XCTAssertTrue(result.stderr.contains("H.265 \(profile), Main tier, level 2.0, 320x240, \(depth)-bit \(chroma)"),
                          "\(name): \(result.stderr) / ffprobe: \(probed)")
            let level = probed.split(separator: "\n").first { $0.hasPrefix("level=") }.map { String($0.dropFirst(6)) }
            XCTAssertEqual(level, "60", "ffprobe's level for 2.0 is 60 (30 × 2.0)")
        }
    }

    func testGlobalHeaderStreamNeedsItsSDPAndSaysSo() throws {
        let (out, result) = try replay(capture("ffmpeg-h265-global.pcap"))
        XCTAssertEqual(try Data(contentsOf: out).count, 0, "without VPS/SPS/PPS nothing decodes, so nothing is written")
        XCTAssertTrue(result.stderr.contains("pass it with --sdp FILE"), result.stderr)
    }

    func testListShowsTheStreamWithItsParameterSets() throws {
        let result = try Harness.rtprecv(["--pcap", capture("gst-h265-max.pcap").path, "--list"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let text = String(decoding: result.stdout, as: UTF8.self) + result.stderr
        XCTAssertTrue(text.contains("H265 320x240"), text)
        XCTAssertTrue(text.contains("VPS") && text.contains("SPS") && text.contains("PPS"), text)
        XCTAssertTrue(text.contains("Range Extensions"), text)
    }

    // MARK: What no common sender emits

    private func packetize(_ source: String, _ packetizer: HEVCTestPacketizer, damage: (inout [(payload: [UInt8], timestamp: UInt32, marker: Bool)]) -> Void = { _ in },
                           name: String) throws -> (pcap: URL, sdp: URL, types: Set<UInt8>) {
        let units = packetizer.nalUnits([UInt8](try Data(contentsOf: capture(source))))
        let order = packetizer.transmissionOrder(units)
        var payloads = packetizer.payloads(order)
        damage(&payloads)
        let pcap = Harness.temporaryFile(name + ".pcap"), sdp = Harness.temporaryFile(name + ".sdp")
        try HEVCTestPacketizer.pcap(payloads).write(to: pcap)
        try packetizer.sdp(packetizer.decodingOrderBounds(order)).write(to: sdp, atomically: true, encoding: .utf8)
        return (pcap, sdp, Set(payloads.map { $0.payload[0] >> 1 & 0x3F }))
    }

    func testDONLWithWrappingNumbersAndUnitsOutOfOrderIsFrameIdentical() throws {
        for source in ["gst-h265-max.h265", "ffmpeg-h265-global.h265"] {
            let (pcap, sdp, types) = try packetize(source, HEVCTestPacketizer(), name: "donl-" + source)
            XCTAssertTrue(types.isSuperset(of: [48, 49]), "APs and FUs with DONL/DOND: \(types)")
            let (out, result) = try replay(pcap, ["--sdp", sdp.path], name: "donl-" + source)
            XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(capture(source)), "\(source): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("0 DON gaps"), result.stderr)
        }
    }

    func testPACIAndReservedTypesAreUnwrappedAndSkipped() throws {
        for donl in [false, true] {
            var packetizer = HEVCTestPacketizer()
            packetizer.decodingOrderNumbers = donl
            packetizer.paci = true
            packetizer.reserved = true
            let (pcap, sdp, types) = try packetize("gst-h265-zero-latency.h265", packetizer, name: "paci-\(donl)")
            XCTAssertTrue(types.contains(50), "PACI packets: \(types)")
            let json = Harness.temporaryFile("paci-\(donl).json")
            let (out, result) = try replay(pcap, ["--sdp", sdp.path, "--stats-json", json.path], name: "paci-\(donl)")
            XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(capture("gst-h265-zero-latency.h265")), result.stderr)
            let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any]
            let stream = (stats?["streams"] as? [[String: Any]])?.first ?? stats?["stream"] as? [String: Any]
            XCTAssertGreaterThan(stream?["paci_packets"] as? Int ?? 0, 10, "\(String(describing: stats))")
            // Types 41, 47 and a fragmented 45 every 10 access units, of 120.
            XCTAssertEqual(stream?["reserved_nal_units_skipped"] as? Int, 36, "\(String(describing: stream))")
        }
    }

    func testALostDONIsADamagedAccessUnitNeverWritten() throws {
        var dropped = 0
        let (pcap, sdp, _) = try packetize("gst-h265-max.h265", HEVCTestPacketizer(), damage: { payloads in
            // Drop a single-NAL or AP packet now and then: its DONs go missing.
            for i in stride(from: payloads.count - 40, to: 30, by: -53) where payloads[i].payload[0] >> 1 & 0x3F != 49 {
                payloads.remove(at: i)
                dropped += 1
            }
        }, name: "don-gap")
        XCTAssertGreaterThan(dropped, 2)
        let ledger = Harness.temporaryFile("don-gap.ndjson")
        let (out, result) = try replay(pcap, ["--sdp", sdp.path, "--wait-keyframe", "--frames-json", ledger.path], name: "don-gap")
        XCTAssertFalse(result.stderr.contains(" 0 DON gaps"), result.stderr)
        XCTAssertEqual(try Harness.decodeErrors(out), "", "nothing damaged is written")
        let source = Set(try Harness.frameMD5(capture("gst-h265-max.h265")))
        let written = try Harness.frameMD5(out)
        XCTAssertTrue(written.allSatisfy(source.contains), "every written frame is one of the source's")
        XCTAssertLessThan(written.count, 120)
        let records = try Harness.ledger(ledger)
        XCTAssertTrue(records.contains { $0.reason == "don_gap" }, "\(records.map(\.reason))")
    }

    // MARK: Damaged real captures

    func testReorderedAndDuplicatedPacketsAreFrameIdentical() throws {
        var list = try packets("gst-h265-none.pcap")
        for i in stride(from: 5, to: list.count - 3, by: 11) { list.swapAt(i, i + 2) }
        for i in stride(from: list.count - 10, to: 0, by: -17) { list.insert(list[i], at: i + 1) }
        let (out, result) = try replay(try write(list, name: "h265-reorder"))
        XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(capture("gst-h265-none.h265")), result.stderr)
        XCTAssertTrue(result.stderr.contains("0 lost"), result.stderr)
    }

    func testLossNeverWritesATruncatedUnitAndWaitKeyframeWritesOnlySourceFrames() throws {
        var list = try packets("gst-h265-max.pcap")
        for i in stride(from: list.count - 7, to: 20, by: -31) { list.remove(at: i) }
        let pcap = try write(list, name: "h265-loss")
        let source = Set(try Harness.frameMD5(capture("gst-h265-max.h265")))
        let (strict, result) = try replay(pcap, ["--wait-keyframe"], name: "h265-loss-strict")
        XCTAssertEqual(try Harness.decodeErrors(strict), "", result.stderr)
        let written = try Harness.frameMD5(strict)
        XCTAssertFalse(written.isEmpty)
        XCTAssertTrue(written.allSatisfy(source.contains), "with --wait-keyframe every frame is one of the source's")
        XCTAssertTrue(result.stderr.contains("dropped"), result.stderr)
        // Without it, what is written still holds no truncated NAL unit: the decoder reports no
        // damaged slice, only missing references.
        let (lenient, _) = try replay(pcap, [], name: "h265-loss-lenient")
        XCTAssertFalse(try Harness.decodeErrors(lenient).contains("Invalid NAL unit size"))
        XCTAssertGreaterThanOrEqual(try Harness.frameMD5(lenient).count, written.count)
    }

    func testHostileDatagramsBetweenTheGoodOnesCostNothing() throws {
        var list = try packets("gst-h265-zero-latency.pcap")
        let good = list
        var rng = SystemRandomNumberGenerator()
        for i in stride(from: list.count - 5, to: 0, by: -9) {
            var rtp = Array(list[i].rtp[0..<12])
            // Same SSRC and timestamps, no sequence number of the stream's own: a forged header, a
            // PACI whose extension runs past the end, an AP whose first size overruns, a zero TID.
            rtp[2] = 0x7F; rtp[3] = UInt8.random(in: 0...255, using: &rng)
            let payloads: [[UInt8]] = [[50 << 1, 1, 0x3F, 0xF0], [48 << 1, 1, 0xFF, 0xFF, 2], [2, 0, 1, 2, 3], [0x80, 1, 0]]
            list.insert((list[i].microseconds, rtp + payloads[i % payloads.count]), at: i)
        }
        XCTAssertGreaterThan(list.count, good.count)
        let (out, result) = try replay(try write(list, name: "h265-hostile"))
        let json = result.stderr
        XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(capture("gst-h265-zero-latency.h265")), json)
    }

    func testJoiningAtACRAWritesNoRASLPictureAndDecodesCleanly() throws {
        // FFmpeg's x265 stream opens GOPs: every keyframe after the first is a CRA whose RASL
        // pictures refer to the GOP before. Start the capture at the second keyframe.
        let list = try packets("ffmpeg-h265-inband.pcap")
        // The packet with the second VPS (type 32, alone or in an AP after the AUD) starts it.
        func carriesVPS(_ rtp: [UInt8]) -> Bool {
            let p = Array(rtp[12...])
            if p[0] >> 1 & 0x3F == 32 { return true }
            guard p[0] >> 1 & 0x3F == 48 else { return false }
            var i = 2
            while i + 2 < p.count {
                if p[i + 2] >> 1 & 0x3F == 32 { return true }
                i += 2 + (Int(p[i]) << 8 | Int(p[i + 1]))
            }
            return false
        }
        let vps = list.indices.filter { carriesVPS(list[$0].rtp) }
        XCTAssertGreaterThanOrEqual(vps.count, 2)
        let pcap = try write(Array(list[vps[1]...]), name: "h265-cra")
        let ledger = Harness.temporaryFile("h265-cra.ndjson")
        let (out, result) = try replay(pcap, ["--frames-json", ledger.path])
        XCTAssertEqual(try Harness.decodeErrors(out), "", result.stderr)
        let records = try Harness.ledger(ledger)
        let skipped = records.filter { $0.reason == "rasl_skipped" }.count
        XCTAssertGreaterThan(skipped, 0, "the CRA's RASL pictures are dropped and counted: \(result.stderr)")
        let source = Set(try Harness.frameMD5(capture("ffmpeg-h265-inband.h265")))
        let written = try Harness.frameMD5(out)
        XCTAssertTrue(written.allSatisfy(source.contains), "every frame written decodes as in the source")
        XCTAssertEqual(written.count, records.filter { $0.status != "dropped" }.count)
    }
}
