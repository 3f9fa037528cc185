import Foundation
import XCTest

/// Runs the built `rtprecv` and the real clients (ffmpeg, ffprobe) the end-to-end tests check it with.
enum Harness {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let captures = packageRoot.appendingPathComponent("captures")
    static let realCaptures = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/captures-real")

    static var binary: URL {
        let beside = Bundle.main.bundleURL.appendingPathComponent("rtprecv")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return packageRoot.appendingPathComponent(".build/debug/rtprecv")
    }

    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String
        /// Stopped by the timeout.
        var timedOut = false
    }

    /// `timeout`: seconds until the child is terminated (a hung child must fail the test, not the CI run).
    static func run(_ executable: String, _ arguments: [String], timeout: Double = 120) throws -> Result {
        let process = Process()
        process.executableURL = executable.hasPrefix("/") ? URL(fileURLWithPath: executable)
            : URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
        // stderr goes to a file, stdout through a pipe read to its end: neither can fill up and stall.
        let errFile = temporaryFile("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errFile) }
        let out = Pipe()
        let err = try FileHandle(forWritingTo: errFile)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let timedOut = Flag()
        let watchdog = DispatchWorkItem {
            if process.isRunning {
                timedOut.set()
                process.terminate()
            }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try err.close()
        return Result(status: process.terminationStatus, stdout: outData,
                      stderr: (try? String(contentsOf: errFile, encoding: .utf8)) ?? "", timedOut: timedOut.isSet)
    }

    /// A GStreamer sender with an RTCP branch (rtpsession, rtpbin) now and then never ends after its
    /// EOS: once its `seconds` of media are sent (and 10 s more), it is stopped, and that is no failure.
    /// What it sent, the receiving side's checks judge.
    static func runSender(_ arguments: [String], seconds: Double, file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try run("gst-launch-1.0", arguments, timeout: seconds + 10)
        XCTAssertTrue(result.status == 0 || result.timedOut, "gst-launch-1.0: \(result.stderr)", file: file, line: line)
    }

    /// `body` given 127.0.0.1:`port` as a socket address, for bind(2) or connect(2).
    static func withLoopback<T>(port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// What tcpdump on lo captures of UDP to `port` while `body` runs (root only; skips otherwise).
    /// `bindingIt`: bind a socket there meanwhile, for senders to a port nobody listens on, whose
    /// next sends the kernel's port-unreachable replies would fail.
    /// `alsoPort`: UDP to this port is recorded too.
    static func record(_ name: String, port: UInt16, alsoPort: UInt16? = nil, bindingIt: Bool = false,
                       _ body: () throws -> Void) throws -> URL {
        try XCTSkipUnless(getuid() == 0, "tcpdump on lo needs root")
        let sink = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(sink) }
        if bindingIt { XCTAssertEqual(withLoopback(port: port) { bind(sink, $0, $1) }, 0) }
        return try record(name, filter: "udp and (dst port \(port)" + (alsoPort.map { " or dst port \($0))" } ?? ")"), body)
    }

    /// What tcpdump on lo captures that matches `filter` (a pcap filter) while `body` runs.
    static func record(_ name: String, filter: String, _ body: () throws -> Void) throws -> URL {
        try XCTSkipUnless(getuid() == 0, "tcpdump on lo needs root")
        let file = temporaryFile(name + ".pcap"), errors = temporaryFile(name + ".tcpdump")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let tcpdump = Process()
        tcpdump.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tcpdump.arguments = ["tcpdump", "-i", "lo", "--immediate-mode", "-B", "16384", "-s", "0", "-w", file.path, filter]
        tcpdump.standardError = try FileHandle(forWritingTo: errors)
        try tcpdump.run()
        for _ in 0..<100 where !((try? String(contentsOf: errors, encoding: .utf8)) ?? "").contains("listening") { usleep(50_000) }
        usleep(300_000)  // "listening" comes a little before the capture does
        try body()
        usleep(1_000_000)
        tcpdump.interrupt()
        tcpdump.waitUntilExit()
        return file
    }

    /// Starts one of the test servers in scripts/ (rtsp-server, fake-camera), which print "ready"
    /// once they listen; `prefix` runs it elsewhere (`ip netns exec NS`).
    static func startServer(_ script: String, _ arguments: [String], prefix: [String] = []) throws -> Process {
        let path = packageRoot.appendingPathComponent("scripts/\(script)").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: prefix.isEmpty ? path : "/usr/bin/env")
        p.arguments = prefix.isEmpty ? arguments : prefix + [path] + arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        XCTAssertTrue(String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).contains("ready"), "\(script) did not start")
        return p
    }

    /// The Python of the virtual environment scripts/setup makes (pylibsrtp, for an independent SRTP decryption).
    static var venvPython: String { packageRoot.appendingPathComponent(".build/venv/bin/python").path }

    /// A live source for a test of a kill: `seconds` of FFmpeg's test pattern (320x240, 25 frames/s)
    /// encoded by x264 into Matroska with `extra` encoder options, and the SDP of its RTP.
    static func liveSource(_ name: String, seconds: Int, extra: [String]) throws -> (mkv: URL, sdp: URL) {
        let mkv = temporaryFile(name + "-source.mkv"), sdp = temporaryFile(name + ".sdp")
        var r = try run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "\(seconds)",
                                   "-c:v", "libx264", "-preset", "veryfast"] + extra + ["-flags", "+global_header", mkv.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        r = try run("ffmpeg", ["-v", "error", "-y", "-i", mkv.path, "-c", "copy", "-frames:v", "1", "-f", "rtp",
                               "-sdp_file", sdp.path, "rtp://127.0.0.1:9"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return (mkv, sdp)
    }

    /// `mkv` sent by FFmpeg's RTP muxer to `port` on loopback at its own pace (-re), started.
    static func sendRealtime(_ mkv: URL, to port: Int) throws -> Process {
        let sender = Process()
        sender.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sender.arguments = ["ffmpeg", "-v", "error", "-re", "-i", mkv.path, "-c", "copy", "-f", "rtp", "rtp://127.0.0.1:\(port)"]
        try sender.run()
        return sender
    }

    /// `count` loopback TCP ports free now, as the kernel picks them (held together, so all differ).
    static func freeTCPPorts(_ count: Int) throws -> [UInt16] {
        let sockets = (0..<count).map { _ in socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) }
        defer { sockets.forEach { close($0) } }
        return try sockets.map { fd in
            guard fd >= 0, withLoopback(port: 0, { bind(fd, $0, $1) }) == 0 else { throw NSError(domain: "no free port", code: 1) }
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            return UInt16(bigEndian: address.sin_port)
        }
    }

    /// Whether something accepts TCP connections on the loopback `port` now.
    static func tcpPortAnswers(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return withLoopback(port: port) { connect(fd, $0, $1) } == 0
    }

    static func rtprecv(_ arguments: [String]) throws -> Result {
        try run(binary.path, arguments)
    }

    static func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("rtprecv-test-\(getpid())-\(name)")
    }

    /// A directory of `temporaryFile`'s name, emptied of what an earlier run left in it.
    static func emptyDirectory(_ name: String) throws -> URL {
        let dir = temporaryFile(name)
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The MD5 of every decoded frame, in output order, as ffmpeg's framemd5 muxer computes it.
    static func frameMD5(_ path: URL, pixelFormat: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let format = pixelFormat.map { ["-pix_fmt", $0] } ?? []
        let result = try run("ffmpeg", ["-v", "error", "-i", path.path] + format + ["-f", "framemd5", "-"])
        XCTAssertEqual(result.status, 0, "ffmpeg failed on \(path.lastPathComponent): \(result.stderr)", file: file, line: line)
        return String(decoding: result.stdout, as: UTF8.self).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) }
    }

    /// ffmpeg's decode errors for a stream ("" when it decodes cleanly).
    /// The MD5 of each audio packet's data as ffmpeg demuxes it (AAC through aac_adtstoasc: no ADTS header).
    static func packetMD5(_ url: URL, adts: Bool = false) throws -> [String] {
        let result = try run("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a", "-c", "copy"]
                             + (adts ? ["-bsf:a", "aac_adtstoasc"] : []) + ["-f", "framemd5", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return hashes(result.stdout)
    }

    /// The MD5 of each RTP payload of `payloadType` to UDP `port` in `pcap`, in order, as tshark reads them.
    /// `opusAsInMPEGTS`: an Opus TOC byte alone as MPEG-TS takes it, behind a frame count (code 3).
    static func rtpPayloadMD5(_ pcap: URL, port: UInt16, payloadType: Int, opusAsInMPEGTS: Bool = false) throws -> [String] {
        let read = try run("tshark", ["-r", pcap.path, "-d", "udp.port==\(port),rtp", "-Y", "rtp.p_type == \(payloadType)",
                                      "-T", "fields", "-e", "rtp.payload"])
        XCTAssertEqual(read.status, 0, read.stderr)
        let hex = temporaryFile("rtp-payloads-\(port)-\(payloadType).hex")
        try read.stdout.write(to: hex)
        let md5 = try run("/usr/bin/python3", ["-c", "import sys, hashlib\nfor line in open(sys.argv[1]):\n"
                                               + "    b = bytes.fromhex(line.strip())\n"
                                               + "    if sys.argv[2] == '1' and len(b) == 1: b = bytes([b[0] | 3, 1 if b[0] & 3 == 0 else 2])\n"
                                               + "    print(hashlib.md5(b).hexdigest())", hex.path, opusAsInMPEGTS ? "1" : "0"])
        return String(decoding: md5.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The hash column of framemd5 lines (side data, such as new extradata, may follow it).
    static func hashes(_ framemd5: Data) -> [String] {
        String(decoding: framemd5, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            let fields = $0.split(separator: ",")
            return fields.count > 5 ? fields[5].trimmingCharacters(in: .whitespaces) : nil
        }
    }

    /// The MD5 of each decoded picture of the first video stream.
    static func videoMD5(_ url: URL) throws -> [String] {
        let result = try run("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v:0", "-f", "framemd5", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return hashes(result.stdout)
    }

    static func decodeErrors(_ path: URL) throws -> String {
        // In the input's time base: the null muxer's default, 1/frame rate, rounds FLV's milliseconds into
        // repeated times when a gap puts the frames half-way between its ticks.
        try run("ffmpeg", ["-v", "error", "-i", path.path, "-enc_time_base", "-1", "-f", "null", "-"]).stderr
    }

    static func probe(_ path: URL, _ entries: String) throws -> String {
        let result = try run("ffprobe", ["-v", "error", "-count_frames", "-count_packets", "-show_entries", entries,
                                         "-of", "default=noprint_wrappers=1", path.path])
        return String(decoding: result.stdout, as: UTF8.self)
    }

    struct Expectation: Decodable {
        var source: String
        var au_timestamps: [UInt32]
        var keyframe: [Bool]
        var damaged: [Bool]
        var truncated_at: Int?
        var restart_au: Int?
        /// The reference receiver's output (scripts/damage-captures), as places among the source's
        /// decoded frames, and its ledger, without and with --wait-keyframe.
        var frames: [Int]?
        var frames_wait: [Int]?
        var ledger: [LedgerRecord]?
        var ledger_wait: [LedgerRecord]?
        var sdp: String?
    }

    /// The fields of a `--frames-json` line that the reference receiver predicts.
    struct LedgerRecord: Codable, Equatable, CustomStringConvertible {
        var ts: UInt32
        var seq_first: Int
        var seq_last: Int
        var packets: Int
        var keyframe: Bool
        var status: String
        var reason: String?
        var refs_intact: Bool
        var pts_ms: Int
        var description: String {
            "ts \(ts) seq \(seq_first)-\(seq_last) (\(packets)) key \(keyframe) \(status) \(reason ?? "-") refs \(refs_intact) \(pts_ms) ms"
        }
    }

    /// Headless Chromium's screenshot of `page` at `width`×`height` into `shot`. A cold browser
    /// under load now and then captures the page before it painted anything (one colour, a PNG of
    /// a few hundred bytes): such a shot is taken again, at most three times.
    static func screenshot(_ page: URL, width: Int, height: Int, to shot: URL, virtualMilliseconds: Int = 5000) throws {
        for _ in 0..<4 {
            try? FileManager.default.removeItem(at: shot)
            _ = try run("chromium", ["--headless=new", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
                                     "--virtual-time-budget=\(virtualMilliseconds)", "--window-size=\(width),\(height)",
                                     "--screenshot=\(shot.path)", page.absoluteString], timeout: 90)
            let size = (try? FileManager.default.attributesOfItem(atPath: shot.path)[.size] as? Int) ?? 0
            if size > 1024 { return }
        }
    }

    /// PSNR in dB between `image` and frame `n` of `source`, both decoded by ffmpeg (the frame
    /// kept in `scratch`).
    static func psnr(_ image: URL, source: URL, frame n: Int, scratch: URL) throws -> Double {
        let expected = scratch.appendingPathComponent("source-\(source.deletingPathExtension().lastPathComponent)-\(n).png")
        let r = try run("ffmpeg", ["-v", "error", "-y", "-i", source.path, "-vf", "select=eq(n\\,\(n))", "-frames:v", "1", expected.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try psnr(image, expected)
    }

    /// PSNR in dB between two pictures of one size, as ffmpeg's psnr filter measures it.
    static func psnr(_ a: URL, _ b: URL) throws -> Double {
        let r = try run("ffmpeg", ["-i", a.path, "-i", b.path, "-lavfi", "[0:v]format=rgb24[a];[1:v]format=rgb24[b];[a][b]psnr",
                                   "-f", "null", "-"])
        let average = try XCTUnwrap(r.stderr.range(of: "average:"), r.stderr)
        let value = r.stderr[average.upperBound...].prefix { !$0.isWhitespace }
        return value == "inf" ? 100 : try XCTUnwrap(Double(value), r.stderr)
    }

    /// A `--frames-json` file, line by line.
    static func ledger(_ url: URL) throws -> [LedgerRecord] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
            try JSONDecoder().decode(LedgerRecord.self, from: Data($0.utf8))
        }
    }

    /// Fails at the first record that differs, naming it.
    static func assertLedger(_ actual: [LedgerRecord], _ expected: [LedgerRecord], _ what: String,
                             file: StaticString = #filePath, line: UInt = #line) {
        for (i, (a, e)) in zip(actual, expected).enumerated() where a != e {
            return XCTFail("\(what): record \(i) is \(a), expected \(e)", file: file, line: line)
        }
        XCTAssertEqual(actual.count, expected.count, "\(what): records", file: file, line: line)
    }

    /// An FLV's tag times, read by ffprobe, are `frames` times 33 or 34 ms apart (30 frames/s).
    static func assertTagTimesStepByAFrame(_ flv: URL, frames: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let times = String(decoding: try run("ffprobe", ["-v", "error", "-show_entries", "packet=dts", "-of", "csv=p=0",
                                                         flv.path]).stdout, as: UTF8.self)
            .split(separator: "\n").compactMap { Int($0) }
        XCTAssertEqual(times.count, frames, file: file, line: line)
        for (a, b) in zip(times, times.dropFirst()) {
            XCTAssertTrue(b - a == 33 || b - a == 34, "tag times \(a) then \(b)", file: file, line: line)
        }
    }

    /// The first line of a YUV4MPEG2 file.
    static func y4mHeader(_ url: URL) throws -> String {
        let start = try FileHandle(forReadingFrom: url).read(upToCount: 128) ?? Data()
        return String(decoding: start.prefix { $0 != 0x0A }, as: UTF8.self)
    }

    /// The source's decoded frames at `places` (frames of the reference's output).
    static func frames(_ places: [Int], of source: [String]) -> [String] { places.map { source[$0] } }

    static func expectation(_ name: String) throws -> Expectation {
        let data = try Data(contentsOf: captures.appendingPathComponent(name + ".expect.json"))
        return try JSONDecoder().decode(Expectation.self, from: data)
    }
}

/// Captures the tests write themselves.
enum TestPcap {
    /// The captures' records interleaved as if their senders had sent at once: each capture's times
    /// taken from its own start, then merged.
    static func merged(_ names: [String], name: String) throws -> URL {
        var all: [(nanoseconds: UInt64, frame: [UInt8])] = []
        for n in names {
            let own = try records(of: Harness.captures.appendingPathComponent(n))
            guard let first = own.first?.microseconds else { continue }
            all += own.map { ((1_700_000_000_000_000 + $0.microseconds - first) * 1000, $0.frame) }
        }
        all.sort { $0.nanoseconds < $1.nanoseconds }
        let url = Harness.temporaryFile(name + ".pcap")
        try data(linkType: 1, records: all).write(to: url)
        return url
    }

    /// The records of a little-endian microsecond pcap (as tcpdump writes), walked plainly.
    static func records(of url: URL) throws -> [(microseconds: UInt64, frame: [UInt8])] {
        let data = [UInt8](try Data(contentsOf: url))
        func u32(_ at: Int) -> UInt32 { UInt32(data[at]) | UInt32(data[at + 1]) << 8 | UInt32(data[at + 2]) << 16 | UInt32(data[at + 3]) << 24 }
        XCTAssertEqual(u32(0), 0xA1B2_C3D4, "a little-endian microsecond pcap")
        var records: [(microseconds: UInt64, frame: [UInt8])] = []
        var i = 24
        while i + 16 <= data.count {
            let length = Int(u32(i + 8))
            records.append((UInt64(u32(i)) * 1_000_000 + UInt64(u32(i + 4)), Array(data[i + 16..<i + 16 + length])))
            i += 16 + length
        }
        return records
    }

    /// An RTP packet (version 2, no CSRC or extension) around `payload`.
    static func rtp(_ payload: [UInt8], payloadType: UInt8 = 96, marker: Bool, sequence: UInt16, timestamp ts: UInt32,
                    ssrc: UInt32) -> [UInt8] {
        [0x80, payloadType | (marker ? 0x80 : 0), UInt8(sequence >> 8), UInt8(sequence & 0xFF),
         UInt8(ts >> 24), UInt8(ts >> 16 & 0xFF), UInt8(ts >> 8 & 0xFF), UInt8(ts & 0xFF),
         UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF)] + payload
    }

    /// A little-endian, nanosecond pcap of `records`.
    static func data(linkType: UInt32, records: [(nanoseconds: UInt64, frame: [UInt8])]) -> Data {
        var file = Data()
        func le32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { file.append(contentsOf: $0) } }
        le32(0xA1B2_3C4D); file.append(contentsOf: [2, 0, 4, 0]); le32(0); le32(0); le32(262_144); le32(linkType)
        for (time, frame) in records {
            le32(UInt32(time / 1_000_000_000)); le32(UInt32(time % 1_000_000_000))
            le32(UInt32(frame.count)); le32(UInt32(frame.count))
            file.append(contentsOf: frame)
        }
        return file
    }

    /// `payload` in a TCP segment with sequence number `sequence` from 10.0.0.1:40000 to
    /// 127.0.0.1:5004 over IPv4, behind an Ethernet header.
    static func tcpFrame(_ payload: [UInt8], sequence: UInt32) -> [UInt8] {
        let ip = 20 + 20 + payload.count
        var frame: [UInt8] = Array(repeating: 0, count: 12) + [0x08, 0x00]
        frame += [0x45, 0, UInt8(ip >> 8), UInt8(ip & 0xFF), 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 127, 0, 0, 1]
        frame += [0x9C, 0x40, 0x13, 0x8C] + withUnsafeBytes(of: sequence.bigEndian, Array.init) + [0, 0, 0, 0, 0x50, 0x18, 0xFF, 0xFF, 0, 0, 0, 0]
        return frame + payload
    }

    /// `payload` in UDP from 10.0.0.1:40000 to 127.0.0.1:5004 over IPv4, behind an Ethernet header
    /// (link type 1) or none (raw IP, link type 101).
    static func udpFrame(_ payload: [UInt8], ethernet: Bool) -> [UInt8] {
        let ip = 20 + 8 + payload.count
        var frame: [UInt8] = ethernet ? Array(repeating: 0, count: 12) + [0x08, 0x00] : []
        frame += [0x45, 0, UInt8(ip >> 8), UInt8(ip & 0xFF), 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 127, 0, 0, 1]
        frame += [0x9C, 0x40, 0x13, 0x8C, UInt8((ip - 20) >> 8), UInt8((ip - 20) & 0xFF), 0, 0]
        return frame + payload
    }
}

/// A flag set from another thread.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}
