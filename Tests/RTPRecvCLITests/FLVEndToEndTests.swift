import Foundation
import XCTest

/// --flv checked with ffprobe and ffmpeg: codec and size, keyframes where the IDRs are, decode times
/// that never decrease and never pass the presentation times, and frames identical to the source.
final class FLVEndToEndTests: XCTestCase {
    private func capture(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    private struct Packet { var pts: Int; var dts: Int; var key: Bool }

    private func packets(_ url: URL) throws -> [Packet] {
        let r = try Harness.run("ffprobe", ["-v", "error", "-show_packets", "-show_entries", "packet=pts,dts,flags",
                                            "-of", "csv=p=0", url.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            return Packet(pts: Int(f[0]) ?? -1, dts: Int(f[1]) ?? -1, key: f[2].hasPrefix("K"))
        }
    }

    private func assertFLV(_ pcap: String, source: String, size: (Int, Int), extra: [String] = [],
                           file: StaticString = #filePath, line: UInt = #line) throws {
        let flv = Harness.temporaryFile(pcap + ".flv")
        let r = try Harness.rtprecv(["--pcap", capture(pcap).path, "--flv", flv.path, "-q"] + extra)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        let probe = try Harness.probe(flv, "stream=codec_name,width,height")
        XCTAssertTrue(probe.contains("codec_name=h264\nwidth=\(size.0)\nheight=\(size.1)\n"), probe, file: file, line: line)
        let ours = try packets(flv)
        for (a, b) in zip(ours, ours.dropFirst()) { XCTAssertLessThanOrEqual(a.dts, b.dts, "DTS decreases", file: file, line: line) }
        for p in ours { XCTAssertGreaterThanOrEqual(p.pts, p.dts, "PTS below DTS", file: file, line: line) }
        XCTAssertEqual(ours.map(\.key), try packets(capture(source)).map(\.key), "keyframes", file: file, line: line)
        XCTAssertEqual(try Harness.frameMD5(flv), try Harness.frameMD5(capture(source)), file: file, line: line)
        XCTAssertEqual(try Harness.decodeErrors(flv), "", file: file, line: line)
    }

    func testGStreamerCapture() throws {
        try assertFLV("gst-stapa-fua.pcap", source: "gst-stapa-fua.h264", size: (320, 240))
    }

    func testFFmpegBFramesWithSpropOnlyInSDP() throws {
        try assertFLV("ffmpeg-bframes.pcap", source: "ffmpeg-bframes.h264", size: (320, 240),
                      extra: ["--sdp", capture("ffmpeg-bframes.sdp").path])
        // With B-frames, composition times are not all zero.
        let flv = Harness.temporaryFile("ffmpeg-bframes.pcap.flv")
        XCTAssertTrue(try packets(flv).contains { $0.pts != $0.dts })
    }

    func testMode0And1080p() throws {
        try assertFLV("ffmpeg-mode0.pcap", source: "ffmpeg-mode0.h264", size: (320, 240),
                      extra: ["--sdp", capture("ffmpeg-mode0.sdp").path])
        try assertFLV("ffmpeg-1080p.pcap", source: "ffmpeg-1080p.h264", size: (1920, 1080))
    }

    func testResolutionChangeWritesTwoSequenceHeaders() throws {
        try assertFLV("ffmpeg-reschange.pcap", source: "ffmpeg-reschange.h264", size: (240, 160))
        let data = try [UInt8](Data(contentsOf: Harness.temporaryFile("ffmpeg-reschange.pcap.flv")))
        // Walk the tags: video tags whose AVCPacketType is 0 are sequence headers.
        var i = 13, headers = 0
        while i + 11 <= data.count {
            let size = Int(data[i + 1]) << 16 | Int(data[i + 2]) << 8 | Int(data[i + 3])
            if data[i] == 9 && data[i + 12] == 0 { headers += 1 }
            i += 11 + size + 4
        }
        XCTAssertEqual(headers, 2)
    }

    func testStandardOutputIsNotRewrittenButPlays() throws {
        let r = try Harness.rtprecv(["--pcap", capture("gst-stapa-fua.pcap").path, "--flv", "-", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let piped = Harness.temporaryFile("piped.flv")
        try r.stdout.write(to: piped)
        XCTAssertEqual(try Harness.frameMD5(piped), try Harness.frameMD5(capture("gst-stapa-fua.h264")))
    }

    func testFLVWithAnnexBAndDecodeInOnePass() throws {
        let flv = Harness.temporaryFile("one-pass.flv"), h264 = Harness.temporaryFile("one-pass.h264")
        let r = try Harness.rtprecv(["--pcap", capture("gst-stapa-fua.pcap").path, "--flv", flv.path, "--out", h264.path,
                                     "--decode"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("flv        150 frames"), r.stderr)
        XCTAssertTrue(r.stderr.contains("decode     150 frames decoded"), r.stderr)
        XCTAssertEqual(try Harness.frameMD5(flv), try Harness.frameMD5(h264))
    }

    func testLossResumesAtTheNextKeyframe() throws {
        let flv = Harness.temporaryFile("loss.flv")
        let r = try Harness.rtprecv(["--pcap", capture("gst-loss2.pcap").path, "--flv", flv.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains(" dropped after loss"), r.stderr)
        XCTAssertEqual(try Harness.decodeErrors(flv), "")
        let source = try Harness.frameMD5(capture("gst-stapa-fua.h264"))
        for hash in try Harness.frameMD5(flv) { XCTAssertTrue(source.contains(hash)) }
    }

    func testAccessUnitOver16MiBIsLeftOutAndTheFileReadsToTheEnd() throws {
        // The GStreamer capture with its first IDR grown past 17 MiB by filler data (NAL type 12,
        // after the slices, in FU-A fragments): too large for a tag's 24-bit DataSize.
        let rtp = try TestPcap.records(of: capture("gst-stapa-fua.pcap")).map { Array($0.frame[42...]) }
        let firstMarker = try XCTUnwrap(rtp.firstIndex { $0[1] & 0x80 != 0 })
        let filler = [UInt8](repeating: 0xFF, count: 17 << 20) + [0x80]  // ff_bytes, rbsp_trailing_bits
        var payloads: [(payload: [UInt8], marker: Bool, from: [UInt8])] = []
        for (i, packet) in rtp.enumerated() {
            let header = 12 + 4 * Int(packet[0] & 0x0F)  // no extension in this capture
            payloads.append((Array(packet[header...]), i != firstMarker && packet[1] & 0x80 != 0, packet))
            guard i == firstMarker else { continue }
            let chunks = stride(from: 0, to: filler.count, by: 1400).map { Array(filler[$0..<min($0 + 1400, filler.count)]) }
            for (n, chunk) in chunks.enumerated() {
                let fuHeader: UInt8 = (n == 0 ? 0x80 : 0) | (n == chunks.count - 1 ? 0x40 : 0) | 12
                payloads.append(([0x1C, fuHeader] + chunk, n == chunks.count - 1, packet))
            }
        }
        var records: [(nanoseconds: UInt64, frame: [UInt8])] = []
        for (n, p) in payloads.enumerated() {
            // The original header, renumbered, its marker moved to the last filler fragment.
            var header = Array(p.from[0..<12])
            header[1] = header[1] & 0x7F | (p.marker ? 0x80 : 0)
            header[2] = UInt8(n >> 8 & 0xFF)
            header[3] = UInt8(n & 0xFF)
            records.append((UInt64(1_700_000_000_000_000_000) + UInt64(n) * 100_000, TestPcap.udpFrame(header + p.payload, ethernet: true)))
        }
        let pcap = Harness.temporaryFile("huge-idr.pcap"), flv = Harness.temporaryFile("huge-idr.flv")
        let h264 = Harness.temporaryFile("huge-idr.h264")
        try TestPcap.data(linkType: 1, records: records).write(to: pcap)
        defer { try? FileManager.default.removeItem(at: pcap) }
        let r = try Harness.rtprecv(["--pcap", pcap.path, "--flv", flv.path, "--out", h264.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: "larger than an FLV tag holds").count - 1, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("1 dropped too large"), r.stderr)
        // The Annex-B output keeps it, and decodes whole.
        XCTAssertEqual(try Harness.frameMD5(h264), try Harness.frameMD5(capture("gst-stapa-fua.h264")))
        // The FLV has every frame from the next keyframe on, and ffprobe reads it to its end.
        let all = try Harness.frameMD5(capture("gst-stapa-fua.h264"))
        let probe = try Harness.run("ffprobe", ["-v", "error", "-show_entries", "packet=size", "-of", "csv=p=0", flv.path])
        XCTAssertEqual(probe.stderr, "")
        let flvFrames = try Harness.frameMD5(flv)
        XCTAssertEqual(flvFrames, Array(all.suffix(flvFrames.count)))
        XCTAssertEqual(flvFrames.count, all.count - 30)
        XCTAssertEqual(try Harness.decodeErrors(flv), "")
    }
}
