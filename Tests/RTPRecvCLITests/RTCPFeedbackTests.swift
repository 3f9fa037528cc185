import Foundation
import XCTest

/// Live RTCP back to a real AVPF sender: GStreamer's rtpsession, whose encoder keyframes only every
/// 1000 frames, answers a PLI with an IDR. A receiver joining mid-GOP gets its first frame at once;
/// without RTCP it gets none. What rtprecv sends is read back by tshark's RTCP dissector.
final class RTCPFeedbackTests: XCTestCase {
    /// Ports apart from other test processes': the sender's RTP to us at `base`, its RTCP in at `base + 10`.
    private let base = UInt16(34000 + Int(getpid() % 1000) * 2)

    /// gst-launch's arguments for the sender: `frames` at 30 frames/s, listening for RTCP on
    /// `base + 10`; with `lossy`, RTX from rtprtxsend (payload type 97, SSRC 0x2222 for 0x1111) and 3%
    /// of the packets dropped before the session.
    ///
    /// By default its RTP goes to `base` and its RTCP to `base + 1`; `to` sends its RTP there instead,
    /// from port `from`, listening for RTCP on `from + 1` and keeping its own to itself (a receiver
    /// then answers to the RTP source's port + 1).
    private func sender(frames: Int, lossy: Bool = false, ssrc: UInt32 = 0x1111, to: UInt16? = nil, from: UInt16? = nil) -> [String] {
        let retransmission = lossy ? ["!", "rtprtxsend", "payload-type-map=application/x-rtp-pt-map,96=(uint)97",
                                      "ssrc-map=application/x-rtp-ssrc-map,4369=(uint)8738", "max-size-packets=1000",
                                      "!", "identity", "drop-probability=0.03"] : []
        return ["-q", "rtpsession", "name=s", "rtp-profile=avpf",
                "videotestsrc", "is-live=true", "num-buffers=\(frames)", "!", "video/x-raw,width=320,height=240,framerate=30/1",
                "!", "x264enc", "key-int-max=1000", "tune=zerolatency", "speed-preset=ultrafast", "bframes=0",
                "!", "rtph264pay", "pt=96", "config-interval=-1", "ssrc=\(ssrc)"] + retransmission + ["!", "s.send_rtp_sink",
                "s.send_rtp_src", "!", "udpsink", "host=127.0.0.1", "port=\(to ?? base)"] + (from.map { ["bind-port=\($0)"] } ?? [])
            + ["s.send_rtcp_src", "!"] + (from == nil ? ["udpsink", "host=127.0.0.1", "port=\(base + 1)"] : ["fakesink"])
            + ["sync=false", "async=false", "udpsrc", "address=127.0.0.1", "port=\(from.map { $0 + 1 } ?? base + 10)", "!", "s.recv_rtcp_sink"]
    }

    /// The sender, running for `seconds`, in the background.
    private func startSender(seconds: Int) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["gst-launch-1.0"] + sender(frames: seconds * 30)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// The session as an AVPF SDP offering NACK, PLI and FIR; with `retransmission`, RTX on 97.
    private func sdp(retransmission: Bool = false, port: UInt16? = nil) throws -> URL {
        let url = Harness.temporaryFile((retransmission ? "rtx" : "avpf") + (port.map { "-\($0)" } ?? "") + ".sdp")
        let rtx = retransmission ? "a=rtpmap:97 rtx/90000\na=fmtp:97 apt=96\n" : ""
        try """
        v=0
        o=- 1 1 IN IP4 127.0.0.1
        s=AVPF
        c=IN IP4 127.0.0.1
        t=0 0
        m=video \(port ?? base) RTP/AVPF 96\(retransmission ? " 97" : "")
        a=rtpmap:96 H264/90000
        \(rtx)a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtcp-fb:96 ccm fir

        """.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// rtprecv joining 1.5 s into the sender's first GOP, for `seconds`.
    private func join(_ extra: [String], seconds: String, name: String) throws -> (Harness.Result, [String: Any]) {
        let sender = try startSender(seconds: 4)
        defer { sender.terminate(); sender.waitUntilExit() }
        usleep(1_500_000)
        let stats = Harness.temporaryFile(name + ".json")
        let to = extra.contains("--no-rtcp") ? [] : ["--rtcp-to", "127.0.0.1:\(base + 10)"]
        let r = try Harness.rtprecv(["--sdp", try sdp().path, "--bind", "127.0.0.1", "--duration", seconds, "--out", "/dev/null",
                                     "--stats-json", stats.path] + to + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        return (r, try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any])
    }

    private func framesWritten(_ stats: [String: Any]) -> Int {
        ((stats["streams"] as? [[String: Any]])?.first?["frames_written"] as? Int) ?? 0
    }

    func testJoiningMidGOPAsksForAKeyframeAndGetsOneAtOnce() throws {
        let (r, stats) = try join([], seconds: "0.5", name: "pli")
        XCTAssertGreaterThan(framesWritten(stats), 0, "a keyframe within 0.5 s: \(r.stderr)")
        let rtcp = try XCTUnwrap(stats["rtcp_sent"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(rtcp["pli_sent"] as? Int ?? 0, 1)
        XCTAssertEqual(rtcp["keyframe_requests_answered"] as? Int, 1)
        XCTAssertLessThan(rtcp["last_keyframe_answer_ms"] as? Int ?? .max, 500)
        XCTAssertEqual(rtcp["bye_sent"] as? Int, 1)
    }

    /// 3% of the sender's packets dropped before its session: NACKs bring them back in RTX
    /// (RFC 4588), unwrapped into the stream; without RTCP, --wait-keyframe loses the rest of the GOP.
    func testLossIsRepairedByNACKAndRetransmission() throws {
        func run(_ extra: [String], name: String) throws -> (frames: Int, stats: [String: Any]) {
            let stats = Harness.temporaryFile(name + ".json")
            let sdp = try self.sdp(retransmission: true)
            let listener = try LiveTests.Listener(["--sdp", sdp.path, "--bind", "127.0.0.1", "--wait-keyframe", "--latency-ms", "150",
                                                   "--stats-json", stats.path] + extra, name: name)
            try Harness.runSender(self.sender(frames: 150, lossy: true), seconds: 5)
            usleep(300_000)
            XCTAssertEqual(listener.stop(), 0, listener.stderr)
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
            return (framesWritten(json), json)
        }
        var repairedRun: (frames: Int, stats: [String: Any])?
        let ledger = Harness.temporaryFile("nack-ledger.jsonl")
        // What came on the RTP port, for the RTX packets' original sequence numbers.
        let capture = try Harness.record("nack", port: base) {
            repairedRun = try run(["--rtcp-to", "127.0.0.1:\(base + 10)", "--frames-json", ledger.path], name: "nack")
        }
        let repaired = try XCTUnwrap(repairedRun)
        let stream = try XCTUnwrap((repaired.stats["streams"] as? [[String: Any]])?.first)
        let rtx = try XCTUnwrap(stream["retransmissions"] as? [String: Any])
        XCTAssertGreaterThan(rtx["recovered"] as? Int ?? 0, 0, "\(rtx)")
        XCTAssertGreaterThan((repaired.stats["rtcp_sent"] as? [String: Any])?["nack_sent"] as? Int ?? 0, 0)
        XCTAssertGreaterThanOrEqual(repaired.frames, 147, "nearly every frame kept (99.5% on a quiet machine; a loaded one may lose a few more): \(stream)")
        // The ledger says which frames RTX repaired, and only those an RTX packet's OSN falls in.
        let originals: [UInt16] = try TestPcap.records(of: capture).compactMap { record in
            let rtp = record.frame.dropFirst(14 + 20 + 8)
            guard rtp.count > 14, rtp[rtp.startIndex + 1] & 0x7F == 97 else { return nil }
            return UInt16(rtp[rtp.startIndex + 12]) << 8 | UInt16(rtp[rtp.startIndex + 13])
        }
        XCTAssertFalse(originals.isEmpty, "RTX on the wire")
        let lines = try String(contentsOf: ledger, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        let marked = lines.filter { ($0["retransmitted_packets"] as? Int ?? 0) > 0 }
        XCTAssertFalse(marked.isEmpty)
        XCTAssertEqual(marked.count, rtx["frames_repaired"] as? Int)
        for line in marked {
            let first = UInt16(line["seq_first"] as! Int), last = UInt16(line["seq_last"] as! Int)
            let inside = originals.filter { $0 &- first <= last &- first }.count
            XCTAssertGreaterThanOrEqual(inside, line["retransmitted_packets"] as! Int, "\(line)")
        }
        let unrepaired = try run(["--no-rtcp"], name: "no-nack")
        XCTAssertLessThan(unrepaired.frames, 120, "without RTCP the GOP is lost from the first loss on")
    }

    /// Two senders on two ports, joined mid-GOP: each stream of a port range (--request-keyframe),
    /// and each session of two AVPF SDPs (their rtcp-fb), asks its own sender for a keyframe, from
    /// its RTCP port, to its sender's RTP port + 1, and gets one at once; without RTCP none gets a
    /// frame.
    func testEveryStreamAndSessionAsksItsOwnSenderForAKeyframe() throws {
        let low = base + 20, senderPorts: [UInt16] = [base + 30, base + 32]
        /// rtprecv's run, `input` its arguments; each run's statistics.
        func join(_ input: [String], name: String, field: String = "all_streams") throws -> [[String: Any]] {
            let senders = try zip([UInt32(0x1111), 0x3333], [low, low + 2]).enumerated().map { i, stream in
                let p = Process()
                p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                p.arguments = ["gst-launch-1.0"] + sender(frames: 120, ssrc: stream.0, to: stream.1, from: senderPorts[i])
                p.standardOutput = FileHandle.nullDevice
                p.standardError = FileHandle.nullDevice
                try p.run()
                return p
            }
            defer { for p in senders { p.terminate(); p.waitUntilExit() } }
            usleep(1_500_000)
            let stats = Harness.temporaryFile(name + ".json")
            let r = try Harness.rtprecv(input + ["--bind", "127.0.0.1", "--duration", "1", "--stats-json", stats.path])
            XCTAssertEqual(r.status, 0, r.stderr)
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
            let runs = try XCTUnwrap(json[field] as? [[String: Any]])
            XCTAssertEqual(runs.count, 2, r.stderr)
            return runs
        }
        func checkAsked(_ runs: [[String: Any]]) throws {
            for run in runs {
                let destination = try XCTUnwrap((run["streams"] as? [[String: Any]])?.first?["destination"] as? String, "\(run)")
                let port = Int(destination.split(separator: ":").last ?? "") ?? 0
                XCTAssertGreaterThan(framesWritten(run), 0, "a keyframe within 1 s on port \(port)")
                let rtcp = try XCTUnwrap(run["rtcp_sent"] as? [String: Any])
                XCTAssertGreaterThanOrEqual(rtcp["pli_sent"] as? Int ?? 0, 1)
                XCTAssertEqual(rtcp["keyframe_requests_answered"] as? Int, 1)
                XCTAssertEqual(rtcp["bye_sent"] as? Int, 1)
                XCTAssertEqual(rtcp["destination"] as? String, "127.0.0.1:\(Int(senderPorts[port == Int(low) ? 0 : 1]) + 1)")
            }
        }
        let range = ["--port", "\(low)-\(low + 3)", "--out", Harness.temporaryFile("range-{port}.h264").path]
        try checkAsked(try join(range + ["--request-keyframe"], name: "range-pli"))
        let sdps: [String] = try [low, low + 2].flatMap { ["--sdp", try sdp(port: $0).path] }
        try checkAsked(try join(sdps + ["--out", Harness.temporaryFile("session-{sdp}.h264").path], name: "sessions-pli",
                                field: "sessions"))
        for run in try join(range + ["--no-rtcp"], name: "range-no-rtcp") {
            XCTAssertEqual(framesWritten(run), 0)
            XCTAssertNil(run["rtcp_sent"])
        }
    }

    func testWithoutRTCPAMidGOPJoinWaitsForTheNextKeyframe() throws {
        let (r, stats) = try join(["--no-rtcp"], seconds: "1", name: "no-rtcp")
        XCTAssertEqual(framesWritten(stats), 0, r.stderr)
        XCTAssertNil(stats["rtcp_sent"])
    }

    /// Every packet rtprecv sends, as tshark's RTCP dissector reads it: valid, with the report block
    /// naming the sender's SSRC and the highest sequence number rtprecv saw.
    func testWhatIsSentIsValidRTCPToTshark() throws {
        var joined: (Harness.Result, [String: Any])?
        let capture = try Harness.record("rtcp-sent", port: base + 10) { joined = try join([], seconds: "2", name: "tshark") }
        let (r, stats) = try XCTUnwrap(joined)
        let rtcp = try XCTUnwrap(stats["rtcp_sent"] as? [String: Any])
        let sent = try Harness.run("tshark", ["-r", capture.path, "-d", "udp.port==\(base + 10),rtcp", "-V"])
        XCTAssertEqual(sent.status, 0, sent.stderr)
        let text = String(decoding: sent.stdout, as: UTF8.self)
        XCTAssertFalse(text.contains("Malformed") || text.contains("[Expert Info (Error") || text.contains("Warning/Malformed"), text)
        let fields = try Harness.run("tshark", ["-r", capture.path, "-d", "udp.port==\(base + 10),rtcp", "-T", "fields",
                                                "-e", "rtcp.pt", "-e", "rtcp.ssrc.identifier", "-e", "rtcp.ssrc.high_seq",
                                                "-e", "rtcp.sdes.text", "-e", "rtcp.psfb.fmt"])
        let lines = String(decoding: fields.stdout, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, (rtcp["receiver_reports"] as? Int ?? 0) + (rtcp["bye_sent"] as? Int ?? 0),
                       "one datagram per compound: \(lines)")
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("201,202") }, "every compound starts RR, SDES: \(lines)")
        XCTAssertTrue(lines.contains { $0.contains("206") }, "a PLI: \(lines)")
        XCTAssertTrue(lines.last?.contains("203") ?? false, "BYE last: \(lines)")
        let stream = try XCTUnwrap((stats["streams"] as? [[String: Any]])?.first)
        let ssrc = String(format: "0x%08x", stream["ssrc"] as? Int ?? 0)
        XCTAssertTrue(lines.last?.contains(ssrc) ?? false, "the report block names the sender \(ssrc): \(lines.last ?? "")")
        XCTAssertFalse(r.stderr.contains("could not be sent"), r.stderr)
    }

    /// The round trip from RFC 3611 XR: a responder of the test's own answers each reference time
    /// rtprecv sends with a DLRR that claims 15 ms of holding, after holding it 40 ms (as it measures):
    /// the RTT must be the hold it measured less the 15 ms it claimed.
    func testRoundTripFromTheEchoOfTheReferenceTime() throws {
        let port = base + 12
        let holds = Harness.temporaryFile("dlrr-holds")
        let responder = Process()
        responder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        responder.arguments = ["python3", "-c", """
        import socket, struct, sys, time
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", \(port)))
        s.settimeout(8)
        # The kernel's time of arrival, not this script's waking up to read it (late on a loaded
        # machine), which rtprecv's round trip includes: it stamps its own arrivals so.
        s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_TIMESTAMPNS", 35), 1)
        out = open(sys.argv[1], "w")
        try:
            while True:
                data, ancillary, _, peer = s.recvmsg(2048, socket.CMSG_SPACE(16))
                stamps = [struct.unpack("qq", v[:16]) for level, kind, v in ancillary if level == socket.SOL_SOCKET]
                got = stamps[0][0] + stamps[0][1] / 1e9 if stamps else time.time()
                i = 0
                while i + 4 <= len(data):
                    pt, words = data[i + 1], struct.unpack("!H", data[i + 2:i + 4])[0]
                    if pt == 207 and data[i + 8] == 4:
                        ssrc = struct.unpack("!I", data[i + 4:i + 8])[0]
                        msw, lsw = struct.unpack("!II", data[i + 12:i + 20])
                        lrr = ((msw & 0xFFFF) << 16) | (lsw >> 16)
                        time.sleep(0.040)
                        xr = struct.pack("!BBHIBBHIII", 0x80, 207, 5, 0x1111, 5, 0, 3, ssrc, lrr, 983)
                        held = time.time() - got
                        s.sendto(xr, peer)
                        out.write("%f\\n" % held); out.flush()
                    i += 4 * (words + 1)
        except socket.timeout:
            pass
        """, holds.path]
        try responder.run()
        defer { responder.terminate(); responder.waitUntilExit() }
        usleep(300_000)
        let sender = try startSender(seconds: 7)
        defer { sender.terminate(); sender.waitUntilExit() }
        let stats = Harness.temporaryFile("rtt.json")
        // The first regular report may wait up to 3 s: at the first packet no bandwidth is known.
        let r = try Harness.rtprecv(["--sdp", try sdp().path, "--bind", "127.0.0.1", "--duration", "5", "--out", "/dev/null",
                                     "--stats-json", stats.path, "--rtcp-to", "127.0.0.1:\(port)"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        let rtcp = try XCTUnwrap(json["rtcp_sent"] as? [String: Any])
        let measured = try String(contentsOf: holds, encoding: .utf8).split(separator: "\n").compactMap { Double($0) }
        XCTAssertGreaterThanOrEqual(rtcp["rtt_samples"] as? Int ?? 0, 2, "\(rtcp)")
        // The last sample answers one of the holds the responder measured.
        let rtt = Double(rtcp["rtt_us"] as? Int ?? 0)
        let nearest = measured.map { abs(rtt - ($0 - 983.0 / 65536) * 1e6) }.min() ?? .infinity
        XCTAssertLessThan(nearest, 2000, "\(rtcp), holds \(measured)")
        XCTAssertTrue(r.stderr.contains("rtt \(Int(rtt)) µs"), r.stderr)
    }

    /// RFC 3550 by hand from a capture of the session: the jitter (A.8) of the RTP as tcpdump saw it
    /// arrive beside the jitter rtprecv reported, and the spacing of its receiver reports beside A.7's
    /// interval for the bandwidth the capture shows.
    func testReportIntervalAndJitterAgreeWithAHandComputationFromTheCapture() throws {
        var joined: (Harness.Result, [String: Any])?
        let capture = try Harness.record("rr-by-hand", port: base, alsoPort: base + 10) {
            joined = try join([], seconds: "6", name: "rr-by-hand")
        }
        _ = try XCTUnwrap(joined)
        struct Report { var time: Double; var jitter: UInt32; var highest: UInt16; var lost: UInt32; var feedback: Bool }
        struct Arrival { var time: Double; var sequenceNumber: UInt16; var payloadBytes: Int; var jitter: Double }
        var reports: [Report] = [], arrivals: [Arrival] = []
        var handJitter = 0.0, previous: (arrival: Double, timestamp: UInt32)?
        for record in try TestPcap.records(of: capture) {
            let time = Double(record.microseconds) / 1e6
            let udp = Array(record.frame.dropFirst(14 + 20))
            let port = UInt16(udp[2]) << 8 | UInt16(udp[3])
            let body = Array(udp.dropFirst(8))
            func u32(_ at: Int) -> UInt32 { body[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
            if port == base {
                guard body.count > 12, body[1] & 0x7F == 96 else { continue }
                // A.8: D = (Rj - Ri) - (Sj - Si) on the 90 kHz clock; J += (|D| - J) / 16.
                let arrival = time * 90000
                if let p = previous {
                    let d = (arrival - p.arrival) - Double(Int32(bitPattern: u32(4) &- p.timestamp))
                    handJitter += (abs(d) - handJitter) / 16
                }
                previous = (arrival, u32(4))
                arrivals.append(Arrival(time: time, sequenceNumber: UInt16(body[2]) << 8 | UInt16(body[3]),
                                        payloadBytes: body.count - 12, jitter: handJitter))
            } else if body.count >= 32, body[1] == 201, body[0] & 0x1F >= 1 {
                var types: [UInt8] = [], i = 0
                while i + 4 <= body.count { types.append(body[i + 1]); i += 4 * (Int(body[i + 2]) << 8 + Int(body[i + 3]) + 1) }
                guard !types.contains(203) else { continue }
                reports.append(Report(time: time, jitter: u32(20), highest: UInt16(truncatingIfNeeded: u32(16)),
                                      lost: u32(12) & 0xFF_FFFF, feedback: types.contains(205) || types.contains(206)))
            }
        }
        XCTAssertGreaterThanOrEqual(reports.count, 6, "\(reports.count) reports")
        // rtprecv's first packet came just before its first report, which goes out at once.
        let start = try XCTUnwrap(reports.first).time
        for report in reports.dropFirst(2) {
            let before = arrivals.filter { $0.time < report.time }
            XCTAssertEqual(report.lost, 0)
            // What it had read by then: at least what came 20 ms before, at most what came before.
            let recent = arrivals.filter { $0.time < report.time - 0.02 }.last?.sequenceNumber ?? 0
            XCTAssertLessThanOrEqual(Int16(bitPattern: recent &- report.highest), 0, "extended highest sequence number")
            XCTAssertLessThanOrEqual(Int16(bitPattern: report.highest &- (before.last?.sequenceNumber ?? 0)), 0)
            let hand = before.last?.jitter ?? 0
            XCTAssertEqual(Double(report.jitter), hand, accuracy: max(45, hand * 0.25), "jitter in RTP units")
        }
        // A.7 for one receiver: 360 s over the session's kbit/s, received since the start (the
        // reduced minimum, above what 5% of the bandwidth allows), randomized by [0.5, 1.5] and
        // divided by e - 1.5. The bandwidth is the one when the interval was drawn: the report before.
        func deterministic(at time: Double) -> Double {
            let bytes = arrivals.filter { $0.time >= start && $0.time < time }.reduce(0) { $0 + $1.payloadBytes }
            return min(5, 360 / (Double(bytes) * 8 / (time - start) / 1000))
        }
        var intervals: [(seconds: Double, deterministic: Double)] = []
        for (n, report) in reports.enumerated().dropFirst(2) where !report.feedback && !reports[n - 1].feedback {
            intervals.append((report.time - reports[n - 1].time, deterministic(at: reports[n - 1].time)))
        }
        XCTAssertGreaterThanOrEqual(intervals.count, 4)
        for interval in intervals {
            // Allowing for the bandwidth being sampled every 250 ms and the 10 ms the sending is looked at.
            XCTAssertGreaterThanOrEqual(interval.seconds, interval.deterministic * 0.5 / 1.21828 * 0.85, "\(intervals)")
            XCTAssertLessThanOrEqual(interval.seconds, interval.deterministic * 1.5 / 1.21828 * 1.15 + 0.01, "\(intervals)")
        }
        // Randomized in [0.5, 1.5]: the mean ratio to the deterministic interval is 1 / 1.21828.
        let ratio = intervals.reduce(0) { $0 + $1.seconds / $1.deterministic } / Double(intervals.count)
        XCTAssertEqual(ratio, 1 / 1.21828, accuracy: 0.3, "\(intervals)")
    }
}
