import Foundation
import XCTest

/// Replays every bundled capture through the built binary and checks the output with ffmpeg:
/// decoded frames must be those of the elementary stream the capture was made from.
final class ReplayEndToEndTests: XCTestCase {
    private func replay(_ capture: String, _ extra: [String] = [], name: String = #function) throws -> (URL, Harness.Result) {
        let out = Harness.temporaryFile(name + ".h264")
        let result = try Harness.rtprecv(["--pcap", Harness.captures.appendingPathComponent(capture).path,
                                          "--out", out.path] + extra)
        XCTAssertEqual(result.status, 0, "rtprecv failed: \(result.stderr)")
        return (out, result)
    }

    private func source(_ name: String) -> URL { Harness.captures.appendingPathComponent(name) }

    private func assertIdentical(_ capture: String, to sourceName: String, _ extra: [String] = [], name: String = #function,
                                 file: StaticString = #filePath, line: UInt = #line) throws {
        let (out, _) = try replay(capture, extra, name: name)
        defer { try? FileManager.default.removeItem(at: out) }
        let expected = try Harness.frameMD5(source(sourceName))
        XCTAssertFalse(expected.isEmpty, file: file, line: line)
        XCTAssertEqual(try Harness.frameMD5(out), expected, "\(capture): frames differ from \(sourceName)", file: file, line: line)
    }

    // MARK: Clean captures

    func testGStreamerSTAPAAndFUAWhenCleanIsBitExact() throws {
        try assertIdentical("gst-stapa-fua.pcap", to: "gst-stapa-fua.h264")
    }

    func testFFmpegBFramesWhenParameterSetsOnlyInSDPIsBitExact() throws {
        try assertIdentical("ffmpeg-bframes.pcap", to: "ffmpeg-bframes.h264", ["--sdp", source("ffmpeg-bframes.sdp").path])
    }

    /// An offer's video line that lists VP8 (and its RTX) before the H.264 the sender uses, whose
    /// parameter sets are only in its fmtp, as WebRTC offers and some cameras ("98 96") have it:
    /// the stream on any listed payload type is taken, with that type's fmtp.
    func testAStreamOnAnyPayloadTypeOfTheVideoLineIsTakenWithItsFmtp() throws {
        let given = try String(contentsOf: source("ffmpeg-bframes.sdp"), encoding: .utf8)
        let fmtp = try XCTUnwrap(given.split(whereSeparator: \.isNewline).first { $0.hasPrefix("a=fmtp:96") })
        let offer = Harness.temporaryFile("offer.sdp")
        try """
            v=0\r
            o=- 1 1 IN IP4 127.0.0.1\r
            s=-\r
            t=0 0\r
            m=video 0 RTP/AVPF 100 101 96 97\r
            c=IN IP4 127.0.0.1\r
            a=rtpmap:100 VP8/90000\r
            a=rtpmap:101 rtx/90000\r
            a=fmtp:101 apt=100\r
            a=rtpmap:96 H264/90000\r
            \(fmtp)\r
            a=rtpmap:97 rtx/90000\r
            a=fmtp:97 apt=96\r

            """.write(to: offer, atomically: true, encoding: .utf8)
        try assertIdentical("ffmpeg-bframes.pcap", to: "ffmpeg-bframes.h264", ["--sdp", offer.path])
    }

    func testFFmpegBFramesWithoutSDPWritesNothingUndecodable() throws {
        // No SPS/PPS anywhere: nothing can be decoded, so nothing is written.
        let (out, result) = try replay("ffmpeg-bframes.pcap")
        XCTAssertEqual(try Data(contentsOf: out).count, 0)
        XCTAssertTrue(result.stderr.contains("keyframes without SPS/PPS") || result.stderr.contains("no parameter sets"), result.stderr)
        XCTAssertTrue(result.stderr.contains("hint: the stream sent keyframes without their parameter sets"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pass it with --sdp FILE"), result.stderr)
        let (_, withSDP) = try replay("ffmpeg-bframes.pcap", ["--sdp", source("ffmpeg-bframes.sdp").path])
        XCTAssertFalse(withSDP.stderr.contains("hint:"), withSDP.stderr)
    }

    /// A player on a pipe takes frames whole: rtprecv widens the pipe (1 MiB), so a ~130 KB output
    /// fits while nobody reads, where the default 64 KiB would block it.
    func testStandardOutputPipeIsWidenedAndCarriesTheSameBytes() throws {
        let maxPipe = (try? String(contentsOfFile: "/proc/sys/fs/pipe-max-size", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
        try XCTSkipUnless(getuid() == 0 || maxPipe >= 1 << 20, "fs.pipe-max-size is \(maxPipe) here")
        let file = Harness.temporaryFile("pipe-file.h264")
        XCTAssertEqual(try Harness.rtprecv(["--pcap", source("gst-stapa-fua.pcap").path, "--out", file.path, "-q"]).status, 0)
        let expected = try Data(contentsOf: file)
        XCTAssertGreaterThan(expected.count, 65536)

        let process = Process(), pipe = Pipe()
        process.executableURL = Harness.binary
        process.arguments = ["--pcap", source("gst-stapa-fua.pcap").path, "--out", "-", "-q"]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        let finishedUnread = !process.isRunning
        if !finishedUnread { process.terminate() }
        let written = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertTrue(finishedUnread, "rtprecv waited for the pipe's reader")
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(written, expected)
    }

    func testFFmpegMode0SingleNALUnitsIsBitExact() throws {
        try assertIdentical("ffmpeg-mode0.pcap", to: "ffmpeg-mode0.h264", ["--sdp", source("ffmpeg-mode0.sdp").path])
    }

    func test1080pAt20MbitIsBitExact() throws {
        try assertIdentical("ffmpeg-1080p.pcap", to: "ffmpeg-1080p.h264")
    }

    func testPcapngWithNanosecondTimestampsIsBitExact() throws {
        try assertIdentical("gst-pcapng.pcapng", to: "gst-stapa-fua.h264")
    }

    func testEveryLinkTypeAndFileFlavourIsBitExact() throws {
        // Linux SLL and SLL2, BSD loopback, raw IP, Ethernet with QinQ VLAN tags, IPv6 with a
        // hop-by-hop header, and a big-endian microsecond pcap.
        for variant in ["gst-link-sll", "gst-link-sll2", "gst-link-null", "gst-link-rawip", "gst-link-vlan",
                        "gst-link-ipv6", "gst-bigendian"] {
            try assertIdentical(variant + ".pcap", to: "gst-stapa-fua.h264", name: variant)
        }
    }

    // MARK: Damage that loses nothing

    func testReorderingBySixPositionsIsBitExact() throws {
        try assertIdentical("gst-reorder6.pcap", to: "gst-stapa-fua.h264")
    }

    /// WebRTC's bandwidth probes, packets of padding only between frames and inside them: received
    /// packets of the sequence, never lost nor invalid, and the frames are the source's.
    func testPaddingOnlyProbesAreReceivedWithNoMediaAndNoLoss() throws {
        try assertIdentical("gst-padding-probes.pcap", to: "gst-stapa-fua.h264")
        let json = Harness.temporaryFile("probes.json")
        _ = try replay("gst-padding-probes.pcap", ["--stats-json", json.path, "-q"])
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as! [String: Any]
        let stream = (stats["streams"] as! [[String: Any]])[0]
        let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: source("gst-padding-probes.expect.json"))) as! [String: Any]
        XCTAssertEqual(stream["padding_only"] as? Int, expected["padding_only"] as? Int)
        XCTAssertEqual(stream["packets"] as? Int, stats["records"] as? Int)
        XCTAssertEqual(stream["lost"] as? Int, 0)
        XCTAssertEqual((stream["invalid"] as? [String: Any])?.count, 0, "\(stream["invalid"] ?? "")")
    }

    func testDuplicatesAreDropped() throws {
        try assertIdentical("gst-duplicates.pcap", to: "gst-stapa-fua.h264")
    }

    func testHostileDatagramsChangeNothing() throws {
        try assertIdentical("gst-hostile.pcap", to: "gst-stapa-fua.h264")
    }

    func testSequenceAndTimestampWrapIsBitExact() throws {
        try assertIdentical("gst-wrap.pcap", to: "gst-stapa-fua.h264")
    }

    // MARK: Loss

    /// With --wait-keyframe: exactly the frames of the reference receiver (scripts/damage-captures),
    /// and its ledger record for record.
    private func assertKeepsIntactFramesWaitingForKeyframes(_ variant: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let expect = try Harness.expectation(variant)
        XCTAssertTrue(expect.damaged.contains(true), "the variant should damage something", file: file, line: line)
        let all = try Harness.frameMD5(source(expect.source))
        XCTAssertEqual(all.count, expect.au_timestamps.count, file: file, line: line)
        let ledger = Harness.temporaryFile(variant + ".jsonl")
        let (out, _) = try replay(variant + ".pcap", ["--wait-keyframe", "--frames-json", ledger.path], name: variant)
        XCTAssertEqual(try Harness.frameMD5(out), Harness.frames(expect.frames_wait!, of: all), "\(variant): frames differ",
                       file: file, line: line)
        XCTAssertEqual(try Harness.decodeErrors(out), "", file: file, line: line)
        Harness.assertLedger(try Harness.ledger(ledger), expect.ledger_wait!, variant, file: file, line: line)
    }

    func testRandomLossWhenWaitingForKeyframeKeepsExactlyTheIntactFrames() throws {
        try assertKeepsIntactFramesWaitingForKeyframes("gst-loss2")
    }

    func testBurstLossWhenWaitingForKeyframeKeepsExactlyTheIntactFrames() throws {
        try assertKeepsIntactFramesWaitingForKeyframes("gst-burst")
    }

    func testLossWithoutWaitingWritesEveryCompleteFrame() throws {
        for variant in ["gst-loss2", "gst-burst"] {
            let expect = try Harness.expectation(variant)
            let ledger = Harness.temporaryFile(variant + "-all.jsonl")
            let (out, _) = try replay(variant + ".pcap", ["--frames-json", ledger.path], name: variant)
            XCTAssertTrue(try Harness.probe(out, "stream=nb_read_packets").contains("nb_read_packets=\(expect.frames!.count)\n"),
                          "\(variant): expected \(expect.frames!.count) access units")
            Harness.assertLedger(try Harness.ledger(ledger), expect.ledger!, variant)
        }
    }

    func testSenderRestartResumesAtTheNextKeyframe() throws {
        // A new SSRC, and a sequence jump on the same SSRC, in the middle of a GOP.
        for variant in ["gst-restart-ssrc", "gst-restart-seq"] {
            let expect = try Harness.expectation(variant)
            let restart = try XCTUnwrap(expect.restart_au)
            let nextKey = try XCTUnwrap(expect.keyframe[restart...].firstIndex(of: true))
            let all = try Harness.frameMD5(source(expect.source))
            let (out, result) = try replay(variant + ".pcap", name: variant)
            XCTAssertEqual(try Harness.frameMD5(out), Array(all[..<restart] + all[nextKey...]), variant)
            XCTAssertTrue(result.stderr.contains("restarts   1") || result.stderr.contains("1 ssrc changes"), result.stderr)
        }
    }

    // MARK: Files

    func testTruncatedCaptureKeepsTheIntactPrefixAndWarns() throws {
        let expect = try Harness.expectation("gst-truncated")
        let (out, result) = try replay("gst-truncated.pcap")
        XCTAssertTrue(result.stderr.contains("capture truncated at byte \(expect.truncated_at!)"), result.stderr)
        let intact = expect.damaged.prefix { !$0 }.count
        XCTAssertGreaterThan(intact, 0)
        XCTAssertEqual(try Harness.frameMD5(out), Array(try Harness.frameMD5(source(expect.source)).prefix(intact)))
    }

    /// A capture cut while rtprecv reads it ends with the truncation warning, never SIGBUS, as pcap and
    /// as pcapng: cut past where the walk is (seen by fstat before the walk gets there), and cut to
    /// nothing under records still held for frames in progress (the mapping's guard) and under
    /// packets walked ahead but not yet received, where the replay ends rather than count their
    /// zeros as packets that are not RTP. rtprecv is held up in the middle by a FIFO that nothing
    /// reads yet.
    func testCaptureShrinkingWhileReadEndsWithTheWarning() throws {
        let once = try Data(contentsOf: source("ffmpeg-1080p.pcap"))
        var pcap = once
        for _ in 1..<8 { pcap.append(once[24...]) }
        var pcapng = PcapNGTests.Writer()
        pcapng.section()
        pcapng.interface()
        let records = try TestPcap.records(of: source("ffmpeg-1080p.pcap"))
        for _ in 0..<8 { for record in records { pcapng.enhanced(units: record.microseconds, record.frame) } }
        for (format, data) in [("pcap", pcap), ("pcapng", pcapng.data)] {
            for cut in [data.count / 2, 0] {
                try assertShrinkingWhileRead(data, format: format, cut: cut)
            }
        }
    }

    /// Replays `data` into a FIFO, and cuts the capture to `cut` bytes while rtprecv waits on it.
    private func assertShrinkingWhileRead(_ data: Data, format: String, cut: Int) throws {
        let capture = Harness.temporaryFile("shrinking-\(cut).\(format)"), out = Harness.temporaryFile("shrinking-\(cut).h264")
        let errors = Harness.temporaryFile("shrinking-\(cut).err")
        try data.write(to: capture)
        unlink(out.path)
        XCTAssertEqual(mkfifo(out.path, 0o600), 0)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { for f in [capture, out, errors] { try? FileManager.default.removeItem(at: f) } }
        let process = Process()
        process.executableURL = Harness.binary
        process.arguments = ["--pcap", capture.path, "--out", out.path]
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let reader = try FileHandle(forReadingFrom: out)
        _ = try reader.read(upToCount: 1)
        Thread.sleep(forTimeInterval: 0.5)  // the pipe fills, and rtprecv waits in write(2)
        XCTAssertEqual(truncate(capture.path, off_t(cut)), 0)
        _ = try reader.readToEnd()
        process.waitUntilExit()
        let stderr = try String(contentsOf: errors, encoding: .utf8)
        XCTAssertEqual(process.terminationReason, .exit, "\(format) cut to \(cut): signal \(process.terminationStatus)")
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        XCTAssertTrue(stderr.contains("capture truncated at byte") && stderr.contains("shrank"), "\(format) cut to \(cut): \(stderr)")
        XCTAssertFalse(stderr.contains("not RTP"), "\(format) cut to \(cut): \(stderr)")
    }

    func testNonCaptureFileExitsOneWithOneLineNamingIt() throws {
        let path = source("gst-stapa-fua.h264").path
        let result = try Harness.rtprecv(["--pcap", path, "--out", Harness.temporaryFile("x.h264").path])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains(path), result.stderr)
    }

    func testEmptyFileExitsOneSayingSo() throws {
        let empty = Harness.temporaryFile("empty.pcap")
        _ = FileManager.default.createFile(atPath: empty.path, contents: Data())
        let result = try Harness.rtprecv(["--pcap", empty.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("empty"), result.stderr)
    }

    /// A capture whose datagrams are no RTP (here: DNS-like junk and an RTCP receiver report) ends
    /// with the exit status of a run that received no RTP, 3, saying so.
    func testACaptureWithoutRTPExitsThree() throws {
        let rr: [UInt8] = [0x80, 201, 0, 1, 0x12, 0x34, 0x56, 0x78]
        let records = [(UInt64(1_000_000_000), TestPcap.udpFrame(Array("not rtp at all".utf8), ethernet: true)),
                       (UInt64(1_100_000_000), TestPcap.udpFrame(rr, ethernet: true))]
        let capture = Harness.temporaryFile("no-rtp.pcap")
        try TestPcap.data(linkType: 1, records: records).write(to: capture)
        let result = try Harness.rtprecv(["--pcap", capture.path, "--out", Harness.temporaryFile("no-rtp.h264").path])
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains("warning: no RTP packet in \(capture.path) (2 datagrams)"), result.stderr)
    }

    func testAbsurdRecordLengthKeepsWhatCameBefore() throws {
        // The 41st record claims 2 GiB: everything before it is kept, and the damage reported.
        var data = try Data(contentsOf: source("gst-stapa-fua.pcap"))
        var offset = 24
        for _ in 0..<40 {
            offset += 16 + (Int(data[offset + 8]) | Int(data[offset + 9]) << 8 | Int(data[offset + 10]) << 16)
        }
        data.replaceSubrange(offset + 8..<offset + 12, with: [0xFF, 0xFF, 0xFF, 0x7F])
        let damaged = Harness.temporaryFile("absurd.pcap")
        try data.write(to: damaged)
        let out = Harness.temporaryFile("absurd.h264")
        let result = try Harness.rtprecv(["--pcap", damaged.path, "--out", out.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("capture damaged at byte \(offset)"), result.stderr)
        let frames = try Harness.frameMD5(out)
        XCTAssertGreaterThan(frames.count, 5)
        XCTAssertEqual(frames, Array(try Harness.frameMD5(source("gst-stapa-fua.h264")).prefix(frames.count)))
    }

    func testMissingCaptureExitsOne() throws {
        let result = try Harness.rtprecv(["--pcap", "/nonexistent/x.pcap"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("/nonexistent/x.pcap"), result.stderr)
    }

    // MARK: Stream selection

    func testTwoStreamsAreSelectedBySSRCAndByPort() throws {
        struct Streams: Decodable {
            struct Stream: Decodable { var ssrc: UInt32; var port: Int; var source: String; var sdp: String? }
            var streams: [Stream]
        }
        let data = try Data(contentsOf: Harness.captures.appendingPathComponent("two-streams.expect.json"))
        let streams = try JSONDecoder().decode(Streams.self, from: data).streams
        for stream in streams {
            let sdp = stream.sdp.map { ["--sdp", source($0).path] } ?? []
            try assertIdentical("two-streams.pcap", to: stream.source, ["--ssrc", "\(stream.ssrc)"] + sdp, name: "ssrc\(stream.ssrc)")
            try assertIdentical("two-streams.pcap", to: stream.source, ["--port", "\(stream.port)"] + sdp, name: "port\(stream.port)")
        }
    }

    func testListShowsBothStreams() throws {
        let result = try Harness.rtprecv(["--pcap", source("two-streams.pcap").path, "--list"])
        XCTAssertEqual(result.status, 0)
        let text = String(decoding: result.stdout, as: UTF8.self)
        XCTAssertTrue(text.contains("127.0.0.1:5004"), text)
        XCTAssertTrue(text.contains("127.0.0.1:5008"), text)
        XCTAssertTrue(text.contains("320x240"), text)
    }

    /// A capture with RTCP sender reports among the RTP on its port (rtcp-mux): the same output, the
    /// reports counted and listed apart, never as streams.
    func testRTCPInTheCaptureIsCountedApart() throws {
        let senderReport: [UInt8] = [0x80, 200, 0x00, 0x06, 0x00, 0x00, 0x12, 0x34, 0xE9, 0x4B, 0x1C, 0x00, 0x80, 0x00,
                                     0x00, 0x00, 0x00, 0x01, 0x5F, 0x90, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x10, 0x00]
        var records: [(nanoseconds: UInt64, frame: [UInt8])] = []
        for (index, record) in try TestPcap.records(of: source("gst-stapa-fua.pcap")).enumerated() {
            if index % 100 == 50 { records.append((record.microseconds * 1000, TestPcap.udpFrame(senderReport, ethernet: true))) }
            records.append((record.microseconds * 1000, record.frame))
        }
        let reports = records.count - (try TestPcap.records(of: source("gst-stapa-fua.pcap")).count)
        XCTAssertGreaterThan(reports, 1)
        let mixed = Harness.temporaryFile("rtcp-mixed.pcap")
        try TestPcap.data(linkType: 1, records: records).write(to: mixed)

        let (plainOut, _) = try replay("gst-stapa-fua.pcap", name: "rtcp-plain")
        let stats = Harness.temporaryFile("rtcp-mixed.json"), out = Harness.temporaryFile("rtcp-mixed.h264")
        let result = try Harness.rtprecv(["--pcap", mixed.path, "--out", out.path, "--stats-json", stats.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Data(contentsOf: out), try Data(contentsOf: plainOut))
        XCTAssertFalse(result.stderr.contains("other streams"), result.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        XCTAssertEqual(json["rtcp"] as? Int, reports)

        let list = String(decoding: try Harness.rtprecv(["--pcap", mixed.path, "--list"]).stdout, as: UTF8.self)
        XCTAssertEqual(list.split(separator: "\n").count, 3, list)  // heading, the stream, the RTCP count
        XCTAssertTrue(list.hasSuffix("and \(reports) RTCP packets\n"), list)
    }

    // MARK: Statistics

    func testStatisticsJSONAccountsForEveryPacket() throws {
        let json = Harness.temporaryFile("stats.json")
        _ = try replay("gst-duplicates.pcap", ["--stats-json", json.path, "-q"])
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as! [String: Any]
        let stream = (stats["streams"] as! [[String: Any]])[0]
        let records = stats["records"] as! Int
        let clean = try Harness.run("tcpdump", ["-r", source("gst-stapa-fua.pcap").path, "-qn"])
        let cleanCount = String(decoding: clean.stdout, as: UTF8.self).split(separator: "\n").count
        XCTAssertEqual(stream["packets"] as? Int, records)
        XCTAssertEqual(stream["duplicates"] as? Int, records - cleanCount)
        XCTAssertEqual(stream["lost"] as? Int, 0)
        XCTAssertEqual(stream["frames_written"] as? Int, 150)
        XCTAssertEqual(stream["width"] as? Int, 320)
    }
}
