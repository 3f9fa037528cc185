import Foundation
import XCTest

/// Cameras' packets out of the RFCs' shape, made from real captures: what rtprecv writes must be
/// what it writes from the capture as sent.
final class CameraQuirksTests: XCTestCase {
    /// Parameter sets in one packet with start codes between, where RFC 6184 and RFC 7798 carry one
    /// bare NAL unit a packet: each run of parameter-set packets of the capture joined into one.
    func testParameterSetsJoinedByStartCodesGiveTheSameStream() throws {
        // H.264's SPS and PPS (types 7, 8); H.265's VPS, SPS and PPS (32-34).
        let cases: [(name: String, file: String, isParameterSet: ([UInt8]) -> Bool)] = [
            ("ffmpeg-inband", "h264", { [7, 8].contains($0[0] & 0x1F) }),
            ("gst-h265-none", "h265", { (32...34).contains($0[0] >> 1 & 0x3F) }),
        ]
        for c in cases {
            let (joined, runs) = try Self.joiningParameterSets(of: c.name, c.isParameterSet)
            XCTAssertGreaterThan(runs, 0, c.name)
            var outputs: [Data] = []
            for (pcap, tag) in [(FrameCaptures.capture(c.name + ".pcap"), "as-sent"), (joined, "joined")] {
                let out = Harness.temporaryFile("\(c.name)-\(tag).\(c.file)"), stats = Harness.temporaryFile("\(c.name)-\(tag).json")
                let run = try Harness.rtprecv(["--pcap", pcap.path, "--out", out.path, "--stats-json", stats.path])
                XCTAssertEqual(run.status, 0, run.stderr)
                XCTAssertEqual(run.stderr.contains("Annex-B start codes"), tag == "joined", run.stderr)
                let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any]
                let stream = try XCTUnwrap((json?["streams"] as? [[String: Any]])?.first)
                XCTAssertEqual(stream["nal_units_with_start_codes"] as? Int, tag == "joined" ? runs : 0, c.name)
                outputs.append(try Data(contentsOf: out))
            }
            XCTAssertGreaterThan(outputs[0].count, 10_000, c.name)
            XCTAssertEqual(outputs[0], outputs[1], "\(c.name): the stream written differs")
        }
    }

    /// A packet of another payload type after each packet, with its sequence number (Geovision's
    /// cameras send PT 50 so): nothing counted as lost or duplicate, and the stream as sent.
    func testAnotherPayloadTypeRepeatingASequenceNumberTakesNoPlaceInTheSequence() throws {
        let name = "ffmpeg-inband"
        var packets: [FrameCaptures.Packet] = []
        for frame in try FrameCaptures.frames(name + ".pcap") {
            for packet in frame.packets {
                packets.append(packet)
                packets.append((packet.microseconds, Array(packet.rtp[0..<12]) + [0, 0, 0, 0]))
                packets[packets.count - 1].rtp[1] = 50
            }
        }
        let doubled = try FrameCaptures.pcap(packets, name: name + "-pt50")
        var outputs: [Data] = []
        for pcap in [FrameCaptures.capture(name + ".pcap"), doubled] {
            let out = Harness.temporaryFile(pcap.lastPathComponent + ".h264"), stats = Harness.temporaryFile(pcap.lastPathComponent + ".json")
            let run = try Harness.rtprecv(["--pcap", pcap.path, "--out", out.path, "--stats-json", stats.path, "-q"])
            XCTAssertEqual(run.status, 0, run.stderr)
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any]
            let stream = try XCTUnwrap((json?["streams"] as? [[String: Any]])?.first)
            XCTAssertEqual(stream["duplicates"] as? Int, 0, pcap.lastPathComponent)
            XCTAssertEqual(stream["lost"] as? Int, 0, pcap.lastPathComponent)
            outputs.append(try Data(contentsOf: out))
        }
        XCTAssertGreaterThan(outputs[0].count, 10_000)
        XCTAssertEqual(outputs[0], outputs[1], "the stream written differs")
    }

    /// AAC access units behind ADTS headers inside RFC 3640's payload (some cameras send them so),
    /// the AU-size counting the header: the AAC written (as .aac and in Matroska) is the capture's
    /// as sent, every frame, and the stream says so once.
    func testAACBehindADTSHeadersIsTakenWithout() throws {
        let name = "gst-h264-aac", sdp = FrameCaptures.capture(name + ".sdp").path
        // config=119056e500: AAC LC (profile 1), 48 kHz (index 3), 2 channels.
        func adts(_ length: Int) -> [UInt8] {
            [0xFF, 0xF1, 1 << 6 | 3 << 2, 2 << 6 | UInt8(length >> 11), UInt8(length >> 3 & 0xFF), UInt8(length & 7) << 5 | 0x1F, 0xFC]
        }
        var wrapped = 0
        let records = try TestPcap.records(of: FrameCaptures.capture(name + ".pcap")).map { record -> (nanoseconds: UInt64, frame: [UInt8]) in
            var frame = record.frame
            guard frame[36] == 0x13, frame[37] == 0xF8 else { return (record.microseconds * 1000, frame) }  // port 5112
            // One AU a packet: AU-headers-length 16, then a 13-bit size and a 3-bit index.
            let rtp = 42, header = rtp + 12
            XCTAssertEqual(Array(frame[header..<header + 2]), [0, 16])
            let size = Int(frame[header + 2]) << 5 | Int(frame[header + 3]) >> 3
            XCTAssertEqual(frame.count, header + 4 + size)
            let length = size + 7
            frame[header + 2] = UInt8(length >> 5)
            frame[header + 3] = UInt8(length & 0x1F) << 3
            frame.insert(contentsOf: adts(length), at: header + 4)
            for (at, value) in [(16, frame.count - 14), (38, frame.count - 34)] {
                frame[at] = UInt8(value >> 8)
                frame[at + 1] = UInt8(value & 0xFF)
            }
            frame[40] = 0
            frame[41] = 0  // no UDP checksum
            wrapped += 1
            return (record.microseconds * 1000, frame)
        }
        XCTAssertGreaterThan(wrapped, 100)
        let pcap = Harness.temporaryFile(name + "-adts.pcap")
        try TestPcap.data(linkType: 1, records: records).write(to: pcap)
        var outputs: [(aac: [String], mkv: [String])] = []
        for (input, tag) in [(FrameCaptures.capture(name + ".pcap"), "as-sent"), (pcap, "adts")] {
            let aac = Harness.temporaryFile("\(tag).aac"), mkv = Harness.temporaryFile("\(tag).mkv")
            let run = try Harness.rtprecv(["--pcap", input.path, "--sdp", sdp, "--audio", aac.path, "--mkv", mkv.path])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(run.stderr.contains("ADTS headers"), tag == "adts", run.stderr)
            outputs.append((try Harness.packetMD5(aac), try Harness.packetMD5(mkv)))
        }
        XCTAssertGreaterThan(outputs[0].aac.count, 100)
        XCTAssertEqual(outputs[0].aac, outputs[1].aac)
        XCTAssertEqual(outputs[0].mkv, outputs[1].mkv)
    }

    /// The capture with each run of parameter-set packets (single NAL unit packets) made one packet,
    /// the units joined by 4-byte start codes, and sequence numbers given anew; and how many runs.
    private static func joiningParameterSets(of name: String, _ isParameterSet: ([UInt8]) -> Bool) throws -> (URL, Int) {
        var packets: [FrameCaptures.Packet] = [], runs = 0, joining = false
        for frame in try FrameCaptures.frames(name + ".pcap") {
            for packet in frame.packets {
                let payload = Array(packet.rtp[12...])
                if isParameterSet(payload) && joining {
                    packets[packets.count - 1].rtp += [0, 0, 0, 1] + payload
                } else {
                    if isParameterSet(payload) { runs += 1 }
                    packets.append(packet)
                }
                joining = isParameterSet(payload)
            }
        }
        for i in packets.indices {
            packets[i].rtp[2] = UInt8(i >> 8 & 0xFF)
            packets[i].rtp[3] = UInt8(i & 0xFF)
        }
        return (try FrameCaptures.pcap(packets, name: name + "-joined"), runs)
    }
}
