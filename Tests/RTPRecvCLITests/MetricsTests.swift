import Foundation
import XCTest

/// `--metrics`: the Prometheus endpoint of a live run, as Prometheus's own promtool reads it, with
/// values that agree with the run's statistics, /healthz that follows the stream, and a responder
/// that turns away what is not a GET of its two pages.
final class MetricsTests: XCTestCase {
    private let metricsPort = UInt16(41000 + Int(getpid() % 1000) * 2)

    private func get(_ path: String, method: String = "GET") throws -> (status: Int, body: String) {
        let r = try Harness.run("curl", ["-s", "-X", method, "-o", "-", "-w", "\n%{http_code}", "http://127.0.0.1:\(metricsPort)\(path)"])
        var lines = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.removeLast()) ?? 0
        return (status, lines.joined(separator: "\n"))
    }

    private func value(_ exposition: String, _ name: String) -> Int? {
        exposition.split(separator: "\n").first { $0.hasPrefix(name + "{") && $0.contains("media=\"video\"") }
            .flatMap { $0.split(separator: " ").last }.flatMap { Int($0) }
    }

    func testMetricsPassPromtoolAndAgreeWithTheSummary() throws {
        let stats = Harness.temporaryFile("metrics.json")
        let mp4 = Harness.temporaryFile("metrics.mp4")
        let listener = try LiveTests.Listener(["--port", "0", "--metrics", "\(metricsPort)", "--timeout", "1", "--stats-json", stats.path,
                                               "--mp4", mp4.path], name: "metrics")
        XCTAssertEqual(try get("/healthz").status, 503, "nothing received yet")
        let sender = try Harness.run("gst-launch-1.0", ["-q", "videotestsrc", "is-live=true", "num-buffers=45", "!",
                                                        "video/x-raw,width=320,height=240,framerate=30/1", "!", "x264enc", "tune=zerolatency",
                                                        "key-int-max=15", "!", "rtph264pay", "pt=96", "config-interval=-1", "!",
                                                        "udpsink", "host=127.0.0.1", "port=\(listener.port)"])
        XCTAssertEqual(sender.status, 0, sender.stderr)
        let (status, exposition) = try get("/metrics")
        XCTAssertEqual(status, 200)
        let file = Harness.temporaryFile("metrics.txt")
        try exposition.write(to: file, atomically: true, encoding: .utf8)
        let check = try Harness.run("/bin/sh", ["-c", "promtool check metrics < \(file.path)"])
        XCTAssertEqual(check.status, 0, "promtool: \(check.stderr)\(String(decoding: check.stdout, as: UTF8.self))")
        XCTAssertEqual(try get("/healthz").status, 200, "receiving")
        usleep(1_500_000)
        let silent = try get("/healthz")
        XCTAssertEqual(silent.status, 503)
        XCTAssertTrue(silent.body.contains("silent: "), silent.body)
        XCTAssertEqual(try get("/metrics", method: "POST").status, 405)
        XCTAssertEqual(try get("/nothing").status, 404)
        // A request that never ends its header is answered 431, not kept.
        let long = try Harness.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "X-Pad: " + String(repeating: "a", count: 9000),
                                            "http://127.0.0.1:\(metricsPort)/metrics"])
        XCTAssertEqual(String(decoding: long.stdout, as: UTF8.self), "431")
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        // The same counts as the summary's: the stream was idle between the scrape and the end.
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        let stream = try XCTUnwrap((json["streams"] as? [[String: Any]])?.first)
        for name in ["packets", "payload_bytes", "frames_written", "keyframes_written", "lost"] {
            XCTAssertEqual(value(exposition, "rtprecv_\(name)_total"), stream[name] as? Int, name)
        }
        XCTAssertGreaterThan(stream["frames_written"] as? Int ?? 0, 40)
        XCTAssertEqual(value(exposition, "rtprecv_stream_bytes_written_total"), json["bytes_written"] as? Int)
        // The recording's counts, as ffprobe finds the file.
        let recorded = try Harness.run("ffprobe", ["-v", "error", "-count_packets", "-select_streams", "v", "-show_entries",
                                                   "stream=nb_read_packets", "-of", "csv=p=0", mp4.path])
        let packets = Int(String(decoding: recorded.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertTrue(exposition.contains("\nrtprecv_mp4_frames_written_total \(packets ?? -1)\n"), exposition)
        XCTAssertEqual((json["mp4"] as? [String: Any])?["frames_written"] as? Int, packets)
        // The receiver reports sent back: some by the scrape, the rest (and the BYE) by the end.
        let reports = exposition.split(separator: "\n").first { $0.hasPrefix("rtprecv_rtcp_receiver_reports_total ") }
            .flatMap { Int($0.split(separator: " ")[1]) }
        let sent = (json["rtcp_sent"] as? [String: Any])?["receiver_reports"] as? Int
        XCTAssertGreaterThan(reports ?? 0, 0, exposition)
        XCTAssertLessThanOrEqual(reports ?? .max, sent ?? 0)
        XCTAssertTrue(exposition.contains("# TYPE rtprecv_rtcp_rtt_seconds gauge\nrtprecv_rtcp_rtt_seconds "), exposition)
        XCTAssertTrue(exposition.contains("port=\"\(listener.port)\""), exposition)
    }

    /// `listener`'s /metrics once the Python `script` sent its datagrams (`s.sendto(…, to)`), the
    /// run then stopped.
    private func metrics(of listener: LiveTests.Listener, after script: String) throws -> String {
        let prelude = "import socket, struct\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\nto = ('127.0.0.1', \(listener.port))\n"
        let sender = try Harness.run("python3", ["-c", prelude + script])
        XCTAssertEqual(sender.status, 0, sender.stderr)
        usleep(300_000)
        let (status, exposition) = try get("/metrics")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        return exposition
    }

    /// The session's counts (datagrams, invalid RTP by why, RTCP by kind, other SSRCs, ...) are in
    /// /metrics as in the statistics: what a broken or hostile sender does shows while it happens.
    func testTheSessionCountsAreInTheMetrics() throws {
        let stats = Harness.temporaryFile("metrics-session.json")
        let listener = try LiveTests.Listener(["--port", "0", "--metrics", "\(metricsPort)", "--stats-json", stats.path],
                                              name: "metrics-session")
        let exposition = try metrics(of: listener, after: """
        for _ in range(3): s.sendto(b"xx", to)
        for _ in range(2): s.sendto(b"\\x40" + bytes(11), to)
        s.sendto(struct.pack(">BBHI", 0x80, 201, 1, 7), to)
        for n in range(4): s.sendto(struct.pack(">BBHII", 0x80, 96, n, n * 3000, 5) + bytes(20), to)
        """)
        let file = Harness.temporaryFile("metrics-session.txt")
        try exposition.write(to: file, atomically: true, encoding: .utf8)
        let check = try Harness.run("/bin/sh", ["-c", "promtool check metrics < \(file.path)"])
        XCTAssertEqual(check.status, 0, "promtool: \(check.stderr)\(String(decoding: check.stdout, as: UTF8.self))")
        let lines = Set(exposition.split(separator: "\n").map(String.init))
        for expected in ["rtprecv_session_datagrams_total 10",
                         "rtprecv_session_invalid_rtp_total{kind=\"shorter than the RTP header\"} 3",
                         "rtprecv_session_invalid_rtp_total{kind=\"version is not 2\"} 2",
                         "rtprecv_session_rtcp_total 1",
                         "rtprecv_session_rtcp_packets_total{kind=\"receiver reports\"} 1"] {
            XCTAssertTrue(lines.contains(expected), "\(expected) in:\n\(exposition)")
        }
        // Every other session count, as the statistics have it.
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        for name in ["other_port", "streams_over_limit", "ssrc_changes", "audio_ssrc_changes", "other_ssrc",
                     "other_payload_type", "retransmissions", "retransmissions_unmatched"] {
            let value = try XCTUnwrap(json[name] as? Int, name)
            XCTAssertTrue(lines.contains("rtprecv_session_\(name)_total \(value)"), "\(name) \(value) in:\n\(exposition)")
        }
    }

    /// SRTP's counts by SSRC: packets that do not authenticate (a wrong key, or an attacker's) show
    /// in /metrics while they come.
    func testSRTPCountsAreInTheMetricsBySSRC() throws {
        let stats = Harness.temporaryFile("metrics-srtp.json")
        let key = Data((0..<30).map { UInt8($0) }).base64EncodedString()
        let listener = try LiveTests.Listener(["--port", "0", "--metrics", "\(metricsPort)", "--stats-json", stats.path,
                                               "--srtp-key", "AES_CM_128_HMAC_SHA1_80:\(key)"], name: "metrics-srtp")
        let exposition = try metrics(of: listener, after: """
        for n in range(5): s.sendto(struct.pack(">BBHII", 0x80, 96, n, n * 3000, 0x99) + bytes(40), to)
        """)
        XCTAssertTrue(exposition.contains("\nrtprecv_srtp_auth_total{ssrc=\"0x00000099\"} 5\n"), exposition)
        XCTAssertTrue(exposition.contains("\nrtprecv_srtp_decrypted_total{ssrc=\"0x00000099\"} 0\n"), exposition)
        XCTAssertFalse(exposition.contains(key), "the key shows in the metrics")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        let ssrcs = (json["srtp"] as? [String: Any])?["ssrcs"] as? [[String: Any]]
        XCTAssertEqual(ssrcs?.first?["auth"] as? Int, 5)
    }

    /// Every output's counts (FLV, the decoder, the audio file, the WAV) are in /metrics under the
    /// names the statistics give them, no higher than the run's last counts, and those that grew
    /// with the stream not zero.
    func testEveryOutputsCountsAreInTheMetrics() throws {
        let stats = Harness.temporaryFile("metrics-outputs.json")
        let listener = try LiveTests.Listener(["--port", "0", "--metrics", "\(metricsPort)", "--stats-json", stats.path,
                                               "--flv", Harness.temporaryFile("metrics.flv").path, "--decode",
                                               "--frame-md5", Harness.temporaryFile("metrics.md5").path,
                                               "--audio", Harness.temporaryFile("metrics-audio.wav").path,
                                               "--wav", Harness.temporaryFile("metrics.wav").path], name: "metrics-outputs")
        let to = ["udpsink", "host=127.0.0.1", "port=\(listener.port)"]
        let sender = try Harness.run("gst-launch-1.0", ["-q", "videotestsrc", "is-live=true", "num-buffers=45", "!",
                                                        "video/x-raw,width=320,height=240,framerate=30/1", "!", "x264enc", "tune=zerolatency",
                                                        "key-int-max=15", "!", "rtph264pay", "pt=96", "config-interval=-1", "!"] + to
                                                 + ["audiotestsrc", "is-live=true", "num-buffers=75", "samplesperbuffer=160", "!",
                                                    "audio/x-raw,rate=8000,channels=1", "!", "mulawenc", "!", "rtppcmupay", "!"] + to)
        XCTAssertEqual(sender.status, 0, sender.stderr)
        usleep(300_000)
        let (status, exposition) = try get("/metrics")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        let file = Harness.temporaryFile("metrics-outputs.txt")
        try exposition.write(to: file, atomically: true, encoding: .utf8)
        let check = try Harness.run("/bin/sh", ["-c", "promtool check metrics < \(file.path)"])
        XCTAssertEqual(check.status, 0, "promtool: \(check.stderr)\(String(decoding: check.stdout, as: UTF8.self))")
        var scraped: [String: Double] = [:]
        for line in exposition.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { scraped[String(parts[0])] = value }
        }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any]
        let grew = ["flv": "frames_written", "decode": "frames_decoded", "audio_file": "frames_written", "wav": "samples"]
        for (table, growing) in grew {
            let counts = try XCTUnwrap(json[table] as? [String: Any], table)
            for (name, value) in counts {
                guard let value = value as? Int else { continue }
                let seconds = name.hasSuffix("_ms")
                let metric = "rtprecv_\(table)_" + (seconds ? name.dropLast(3) + "_seconds" : name) + "_total"
                let got = try XCTUnwrap(scraped[metric], "\(metric) in:\n\(exposition)")
                XCTAssertLessThanOrEqual(got, Double(value) / (seconds ? 1000 : 1) + 1e-9, metric)
                if name == growing { XCTAssertGreaterThan(got, 0, metric) }
            }
        }
        // The audio stream's own counts and every stream's retransmissions, by the stream's labels.
        let audio = try XCTUnwrap((json["audio_streams"] as? [[String: Any]])?.first)
        let audioLabels = "{ssrc=\"" + String(format: "0x%08x", audio["ssrc"] as? Int ?? 0) + "\",pt=\"0\",media=\"audio\",port=\"\(listener.port)\"}"
        for name in ["gaps", "timestamp_jumps", "comfort_noise_spans"] {
            XCTAssertEqual(scraped["rtprecv_audio_\(name)_total" + audioLabels], Double(audio[name] as? Int ?? -1), "\(name) in:\n\(exposition)")
        }
        XCTAssertNotNil(scraped["rtprecv_retransmissions_requested_total" + audioLabels], exposition)
    }

    /// Many streams, one process: a label set a stream (its port among them), which promtool takes
    /// as distinct series, scraped while they come.
    func testEveryStreamOfAPortRangeHasItsLabelSet() throws {
        let base = UInt16(47000 + Int(getpid() % 300) * 4)
        let dir = try Harness.emptyDirectory("metrics-range")
        let listener = try LiveTests.Listener(["--port", "\(base)-\(base + 2)", "--bind", "127.0.0.1", "--metrics", "\(metricsPort)",
                                               "--out", dir.path + "/{port}.h264"], name: "metrics-range")
        let sender = try CaptureSender.start(base: base, count: 3, capture: "ffmpeg-inband.pcap")
        usleep(2_300_000)
        let (status, exposition) = try get("/metrics")
        sender.waitUntilExit()
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        XCTAssertEqual(status, 200)
        let file = Harness.temporaryFile("metrics-range.txt")
        try exposition.write(to: file, atomically: true, encoding: .utf8)
        let check = try Harness.run("/bin/sh", ["-c", "promtool check metrics < \(file.path)"])
        XCTAssertEqual(check.status, 0, "promtool: \(check.stderr)\(String(decoding: check.stdout, as: UTF8.self))")
        let packets = exposition.split(separator: "\n").filter { $0.hasPrefix("rtprecv_packets_total{") }
        XCTAssertEqual(packets.count, 3, exposition)
        for port in base..<(base + 3) {
            XCTAssertEqual(packets.filter { $0.contains("port=\"\(port)\"") }.count, 1, "port \(port): \(packets)")
        }
    }

    /// A real Prometheus scrapes the endpoint every second while two streams come: what it stores
    /// is each stream's frames, as the files hold them.
    func testPrometheusScrapesEveryStream() throws {
        let base = UInt16(46000 + Int(getpid() % 300) * 3)
        let dir = try Harness.emptyDirectory("prometheus")
        let listener = try LiveTests.Listener(["--port", "\(base)-\(base + 1)", "--bind", "127.0.0.1", "--metrics", "\(metricsPort)",
                                               "--out", dir.path + "/{port}.h264"], name: "prometheus")
        let config = dir.appendingPathComponent("prometheus.yml")
        try """
        global:
          scrape_interval: 1s
        scrape_configs:
          - job_name: rtprecv
            static_configs:
              - targets: ["127.0.0.1:\(metricsPort)"]
        """.write(to: config, atomically: true, encoding: .utf8)
        let prometheus = Process()
        prometheus.executableURL = URL(fileURLWithPath: "/usr/bin/prometheus")
        prometheus.arguments = ["--config.file=\(config.path)", "--storage.tsdb.path=\(dir.appendingPathComponent("tsdb").path)",
                                "--web.listen-address=127.0.0.1:\(metricsPort + 1)"]
        prometheus.standardOutput = FileHandle.nullDevice
        prometheus.standardError = FileHandle.nullDevice
        try prometheus.run()
        defer { prometheus.terminate(); prometheus.waitUntilExit() }
        let sender = try CaptureSender.start(base: base, count: 2, capture: "ffmpeg-inband.pcap")
        sender.waitUntilExit()
        // What Prometheus holds: each stream's last count, once a scrape after the end is in.
        var frames: [String: String] = [:]
        for _ in 0..<40 where frames.count < 2 || frames.values.contains(where: { $0 != "90" }) {
            usleep(250_000)
            let query = "http://127.0.0.1:\(metricsPort + 1)/api/v1/query?query=rtprecv_frames_written_total"
            guard let reply = try? Harness.run("curl", ["-s", query]),
                  let json = try? JSONSerialization.jsonObject(with: reply.stdout) as? [String: Any],
                  let result = (json["data"] as? [String: Any])?["result"] as? [[String: Any]] else { continue }
            frames = [:]
            for series in result {
                guard let labels = series["metric"] as? [String: String], labels["media"] == "video", let port = labels["port"],
                      let value = (series["value"] as? [Any])?.last as? String else { continue }
                frames[port] = value
            }
        }
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        XCTAssertEqual(frames, ["\(base)": "90", "\(base + 1)": "90"], "what Prometheus scraped")
        for port in base...(base + 1) {
            XCTAssertEqual(try Harness.frameMD5(dir.appendingPathComponent("\(port).h264")).count, 90)
        }
    }

    /// The live page of three streams at once, in headless Chromium: each stream with its picture,
    /// which is decoded only once asked for, and is a keyframe of the source (by PSNR, decoded by
    /// ffmpeg). The page and its screenshot stay in .build/artefacts.
    func testTheLivePageShowsEveryStreamWithItsLastKeyframe() throws {
        let base = UInt16(48000 + Int(getpid() % 300) * 4)
        let artefacts = Harness.packageRoot.appendingPathComponent(".build/artefacts")
        try FileManager.default.createDirectory(at: artefacts, withIntermediateDirectories: true)
        let dir = try Harness.emptyDirectory("live-page")
        let listener = try LiveTests.Listener(["--port", "\(base)-\(base + 2)", "--bind", "127.0.0.1", "--metrics", "\(metricsPort)",
                                               "--out", dir.path + "/{port}.h264"], name: "live-page")
        defer { _ = listener.stop() }
        let sender = try CaptureSender.start(base: base, count: 3, capture: "ffmpeg-inband.pcap")
        usleep(1_500_000)
        let decoded = { () throws -> Int? in
            try self.get("/metrics").body.split(separator: "\n").first { $0.hasPrefix("rtprecv_snapshots_decoded_total ") }
                .flatMap { Int($0.split(separator: " ")[1]) }
        }
        XCTAssertEqual(try decoded(), 0, "no picture decoded before one is asked for")
        let (status, page) = try get("/")
        XCTAssertEqual(status, 200)
        let sources = page.components(separatedBy: "src=\"/snapshot/").dropFirst().map { "/snapshot/" + $0.prefix { $0 != "\"" } }
        XCTAssertEqual(sources.count, 3, page)
        XCTAssertEqual(page.components(separatedBy: "class=\"stream live\"").count - 1, 3, page)

        // Every keyframe of the source, to compare the pictures with.
        let keyframes = try Harness.emptyDirectory("live-page-keyframes")
        let extract = try Harness.run("ffmpeg", ["-v", "error", "-skip_frame", "nokey", "-i", Harness.captures.appendingPathComponent("ffmpeg-inband.h264").path,
                                                 "-vsync", "0", keyframes.appendingPathComponent("%d.png").path])
        XCTAssertEqual(extract.status, 0, extract.stderr)
        let sourceKeyframes = try FileManager.default.contentsOfDirectory(at: keyframes, includingPropertiesForKeys: nil)
        XCTAssertEqual(sourceKeyframes.count, 3)
        for (i, source) in sources.enumerated() {
            let jpeg = artefacts.appendingPathComponent("live-page-\(i).jpg")
            let r = try Harness.run("curl", ["-s", "-o", jpeg.path, "-w", "%{http_code} %{content_type}", "http://127.0.0.1:\(metricsPort)\(source)"])
            XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "200 image/jpeg", source)
            XCTAssertEqual(try Harness.probe(jpeg, "stream=codec_name,width,height"), "codec_name=mjpeg\nwidth=320\nheight=240\n")
            let best = try sourceKeyframes.map { try Harness.psnr(jpeg, $0) }.max() ?? 0
            XCTAssertGreaterThan(best, 30, "\(source) against the source's keyframes")
        }
        XCTAssertEqual(try decoded(), 3, "one picture a stream, decoded when asked for")
        sender.waitUntilExit()

        let url = URL(string: "http://127.0.0.1:\(metricsPort)/")!
        let chromium = try Harness.run("chromium", ["--headless=new", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
                                                    "--virtual-time-budget=2000", "--dump-dom", url.absoluteString], timeout: 90)
        let dom = String(decoding: chromium.stdout, as: UTF8.self)
        XCTAssertEqual(dom.components(separatedBy: "<img class=\"snapshot\"").count - 1, 3, dom)
        XCTAssertFalse(chromium.stderr.contains(":CONSOLE"), chromium.stderr)
        let shot = artefacts.appendingPathComponent("live-page.png")
        try Harness.screenshot(url, width: 1100, height: 1400, to: shot, virtualMilliseconds: 2000)
        XCTAssertTrue(FileManager.default.fileExists(atPath: shot.path))
    }

    func testMetricsFlagsAreChecked() throws {
        for arguments in [["--pcap", "x.pcap", "--metrics", "9464"], ["--port", "5004", "--metrics", "nowhere"]] {
            let r = try Harness.rtprecv(arguments)
            XCTAssertEqual(r.status, 64, "\(arguments): \(r.stderr)")
        }
        // A taken port is one clear line.
        let listener = try LiveTests.Listener(["--port", "0", "--metrics", "\(metricsPort)"], name: "metrics-taken")
        defer { _ = listener.stop() }
        let second = try Harness.rtprecv(["--port", "0", "--metrics", "\(metricsPort)", "--duration", "1"])
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(second.stderr.contains("--metrics 127.0.0.1:\(metricsPort)"), second.stderr)
    }

    /// `python3 -c hostileClients PORT SECONDS`: 100 connections that send a request's header a byte
    /// every 0.3 s and reconnect when dropped (slowloris), one that sends 1 MB of header, and ten
    /// that ask for /metrics and never read the answer, for SECONDS.
    private static let hostileClients = """
    import socket, sys, threading, time
    port, seconds = int(sys.argv[1]), float(sys.argv[2])
    end = time.time() + seconds
    def slow():
        while time.time() < end:
            try:
                s = socket.create_connection(("127.0.0.1", port))
                for c in b"GET /metrics HTTP/1.1\\r\\nX-Slow: " + b"a" * 1000:
                    if time.time() >= end: break
                    s.send(bytes([c])); time.sleep(0.3)
            except OSError:
                time.sleep(0.05)
    def huge():
        try:
            s = socket.create_connection(("127.0.0.1", port)); s.sendall(b"GET /metrics HTTP/1.1\\r\\nX: " + b"a" * (1 << 20))
        except OSError:
            pass
    def deaf():
        try:
            s = socket.create_connection(("127.0.0.1", port)); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            s.sendall(b"GET /metrics HTTP/1.1\\r\\n\\r\\n"); time.sleep(seconds)
        except OSError:
            pass
    threads = [threading.Thread(target=slow) for _ in range(100)] + [threading.Thread(target=huge)] + [threading.Thread(target=deaf) for _ in range(10)]
    for t in threads: t.daemon = True; t.start()
    time.sleep(seconds)
    """

    /// Slowloris (100 connections), a 1 MB header and clients that never read their answer, against
    /// a live run: every scrape is answered within 1 s, every frame of the real stream is written,
    /// and memory stays flat.
    func testHostileClientsNeverKeepAScrapeOutNorStallTheStream() throws {
        let source = Harness.temporaryFile("hostile-http-source.h264")
        let listener = try LiveTests.Listener(["--port", "0", "--metrics", "\(metricsPort)"], name: "hostile-http")
        let attack = Process()
        attack.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        attack.arguments = ["python3", "-c", Self.hostileClients, "\(metricsPort)", "12"]
        try attack.run()
        defer { attack.terminate() }
        Thread.sleep(forTimeInterval: 1)
        let sending = Process()
        sending.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sending.arguments = ["gst-launch-1.0", "-q", "videotestsrc", "is-live=true", "num-buffers=240", "!",
                             "video/x-raw,width=320,height=240,framerate=30/1", "!", "x264enc", "tune=zerolatency", "key-int-max=30", "!",
                             "h264parse", "!", "video/x-h264,stream-format=byte-stream,alignment=au", "!", "tee", "name=t",
                             "t.", "!", "queue", "!", "filesink", "location=\(source.path)", "t.", "!", "queue", "!",
                             "rtph264pay", "pt=96", "config-interval=-1", "!", "udpsink", "host=127.0.0.1", "port=\(listener.port)"]
        try sending.run()
        var memory: [Int] = []
        for _ in 0..<8 {
            let started = Date()
            let scrape = try Harness.run("curl", ["-s", "--max-time", "1", "-o", "/dev/null", "-w", "%{http_code}",
                                                  "http://127.0.0.1:\(metricsPort)/metrics"])
            XCTAssertEqual(String(decoding: scrape.stdout, as: UTF8.self), "200", "a scrape among hostile clients")
            XCTAssertLessThan(Date().timeIntervalSince(started), 1.0)
            let status = (try? String(contentsOfFile: "/proc/\(listener.process.processIdentifier)/status", encoding: .utf8)) ?? ""
            memory.append(status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") }
                .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0)
            Thread.sleep(forTimeInterval: 0.5)
        }
        sending.waitUntilExit()
        usleep(300_000)
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        XCTAssertEqual(try Harness.frameMD5(listener.out), try Harness.frameMD5(source), "every frame of the real stream")
        XCTAssertLessThan(memory.max()! - memory[1], 2048, "RssAnon in kB over the run: \(memory)")
    }
}
