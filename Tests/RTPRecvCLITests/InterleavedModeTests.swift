import Foundation
import XCTest

/// Packetization mode 2 end to end: a stream packetized out of decoding order by the test packetizer
/// must decode identical to its source, checked with ffmpeg's framemd5.
final class InterleavedModeTests: XCTestCase {
    private func source(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    /// Packetizes `sourceName`, optionally damages the packet list, replays it, and returns the output.
    private func run(_ sourceName: String, extra: [String] = [], sdpMode: Int = 2,
                     packetizer: InterleavedPacketizer = InterleavedPacketizer(), declaredDepth: Int? = nil,
                     damage: (inout [(payload: [UInt8], timestamp: UInt32)]) -> Void = { _ in },
                     arrivalOrder: ((Int) -> [Int])? = nil,
                     name: String = #function) throws -> (URL, Harness.Result, Int) {
        let units = packetizer.nalUnits([UInt8](try Data(contentsOf: source(sourceName))))
        let order = packetizer.transmissionOrder(units)
        let depth = packetizer.interleavingDepth(order)
        var payloads = packetizer.payloads(order)
        let types = Set(payloads.map { $0.payload[0] & 0x1F })
        XCTAssertTrue(types.isSuperset(of: [25, 26, 27, 29]), "the packetizer should use every mode-2 type: \(types)")
        damage(&payloads)
        let pcap = Harness.temporaryFile(name + ".pcap"), sdp = Harness.temporaryFile(name + ".sdp")
        try InterleavedPacketizer.pcap(payloads, arrivalOrder: arrivalOrder?(payloads.count)).write(to: pcap)
        try """
            v=0
            o=- 0 0 IN IP4 127.0.0.1
            s=interleaved
            c=IN IP4 127.0.0.1
            t=0 0
            m=video 5004 RTP/AVP 96
            a=rtpmap:96 H264/90000
            a=fmtp:96 packetization-mode=\(sdpMode); sprop-interleaving-depth=\(declaredDepth ?? depth); sprop-deint-buf-req=1000000; sprop-max-don-diff=\(depth * 4 + 8)

            """.write(to: sdp, atomically: true, encoding: .utf8)
        let out = Harness.temporaryFile(name + ".h264")
        let result = try Harness.rtprecv(["--pcap", pcap.path, "--sdp", sdp.path, "--out", out.path] + extra)
        XCTAssertEqual(result.status, 0, result.stderr)
        return (out, result, depth)
    }

    func testInterleavedStreamDecodesIdenticalToItsSource() throws {
        for name in ["ffmpeg-mode0.h264", "ffmpeg-bframes.h264"] {
            let (out, result, depth) = try run(name, name: "interleaved-" + name)
            XCTAssertGreaterThan(depth, 0, "the order should really interleave")
            XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(source(name)), name)
            XCTAssertTrue(result.stderr.contains("interleaved mode (packetization-mode 2): 0 DON gaps"), result.stderr)
        }
    }

    func testReorderedPacketsStillDecodeIdentical() throws {
        // Packets arrive up to 5 places late, and one twice: the RTP reorder buffer puts them back
        // in sequence before de-interleaving.
        let (out, _, _) = try run("ffmpeg-mode0.h264", arrivalOrder: { count in
            var order = Array(0..<count)
            for i in stride(from: 10, to: count - 6, by: 9) { order.swapAt(i, i + 5) }
            order.insert(order[40], at: 44)
            return order
        })
        XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(source("ffmpeg-mode0.h264")))
    }

    func testLossIsAccountedAndNothingDamagedIsWritten() throws {
        let (out, result, _) = try run("ffmpeg-mode0.h264", extra: ["--wait-keyframe"]) { payloads in
            payloads.remove(at: 120)
            payloads.remove(at: 60)
        }
        let frames = try Harness.frameMD5(out)
        let all = try Harness.frameMD5(source("ffmpeg-mode0.h264"))
        XCTAssertGreaterThan(frames.count, 30)
        XCTAssertLessThan(frames.count, all.count)
        // In order, and each one a frame of the source.
        var cursor = all.startIndex
        for f in frames {
            guard let at = all[cursor...].firstIndex(of: f) else { return XCTFail("frame not in the source, or out of order") }
            cursor = at + 1
        }
        XCTAssertEqual(try Harness.decodeErrors(out), "")
        XCTAssertFalse(result.stderr.contains("0 DON gaps"), result.stderr)
    }

    func testSDPThatSaysMode1IsOverruledByThePackets() throws {
        let (out, result, _) = try run("ffmpeg-mode0.h264", sdpMode: 1)
        XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(source("ffmpeg-mode0.h264")))
        XCTAssertTrue(result.stderr.contains("says packetization-mode=1, but the packets use the interleaved mode"), result.stderr)
    }

    func testMTAPSizesThatCountDONDAndTheOffsetAreReadThatWay() throws {
        var packetizer = InterleavedPacketizer()
        packetizer.mtapSizeCountsPrefix = true
        let stats = Harness.temporaryFile("mtap-prefix.json")
        for name in ["ffmpeg-mode0.h264", "ffmpeg-bframes.h264"] {
            let (out, result, _) = try run(name, extra: ["--stats-json", stats.path], packetizer: packetizer,
                                           name: "mtap-prefix-" + name)
            XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(source(name)), name)
            XCTAssertEqual(result.stderr.components(separatedBy: "MTAP unit sizes count the DOND").count - 1, 1, result.stderr)
            let stream = ((try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any])["streams"]
                          as! [[String: Any]])[0]
            XCTAssertGreaterThan(stream["mtap_packets_with_prefix_in_size"] as! Int, 0)
            XCTAssertEqual(stream["decoding_order_gaps"] as? Int, 0)
        }
    }

    func testUnderstatedInterleavingDepthGrowsAndLosesNothing() throws {
        for name in ["ffmpeg-mode0.h264", "ffmpeg-bframes.h264"] {
            let (out, result, depth) = try run(name, declaredDepth: 1, name: "understated-" + name)
            XCTAssertGreaterThan(depth, 1)
            XCTAssertTrue(result.stderr.contains("more interleaved than sprop-interleaving-depth 1 allows"), result.stderr)
            XCTAssertTrue(result.stderr.contains("0 DON gaps, 0 units too late, interleaving depth \(depth) needed where the SDP said 1"),
                          result.stderr)
            XCTAssertEqual(try Harness.frameMD5(out), try Harness.frameMD5(source(name)), name)
        }
    }
}
