import Foundation

/// Live senders made from captures of real senders, for tests of many streams at once.
enum CaptureSender {
    /// The script sending `capture` (a name in captures/) to `count` ports from `base`, started.
    static func start(base: UInt16, count: Int, capture: String, flood: Bool = false) throws -> Process {
        let sender = Process()
        sender.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sender.arguments = ["python3", "-c", script, "\(base)", "\(count)", Harness.captures.appendingPathComponent(capture).path]
            + (flood ? ["flood"] : [])
        try sender.run()
        return sender
    }

    /// The same, to its end: its exit status.
    static func send(base: UInt16, count: Int, capture: String, flood: Bool = false) throws -> Int32 {
        let sender = try start(base: base, count: count, capture: capture, flood: flood)
        sender.waitUntilExit()
        return sender.terminationStatus
    }

    /// `python3 -c script BASE COUNT CAPTURE [flood]`: sends the capture's RTP at its own pace to
    /// ports BASE … BASE+COUNT-1, an SSRC each; with "flood", a forked process floods BASE+COUNT with
    /// one FU-A unit that never ends, as fast as it can.
    private static let script = """
    import os, socket, struct, sys, time
    base, count, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    flooding = sys.argv[4:] == ["flood"]
    data = open(path, "rb").read()
    link = struct.unpack("<I", data[20:24])[0]
    skip = {1: 14, 113: 16, 101: 0}[link]
    records, offset = [], 24
    while offset + 16 <= len(data):
        sec, usec, caplen, _ = struct.unpack("<IIII", data[offset:offset + 16])
        frame = data[offset + 16:offset + 16 + caplen]
        offset += 16 + caplen
        ip = frame[skip:]
        if len(ip) >= 28 and ip[0] >> 4 == 4 and ip[9] == 17:
            records.append((sec + usec / 1e6, ip[(ip[0] & 15) * 4 + 8:]))
    flooder = os.fork() if flooding else -1
    if flooder == 0:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        start = bytes([0x7C, 0x85]) + bytes(1200)   # FU-A, start bit, an IDR slice
        middle = bytes([0x7C, 0x05]) + bytes(1200)  # and its middles, never its end
        seq = 0
        while True:
            header = struct.pack(">BBHII", 0x80, 96, seq & 0xFFFF, 0, 0xBAD0BAD)
            try:
                s.sendto(header + (start if seq == 0 else middle), ("127.0.0.1", base + count))
            except OSError:
                pass
            seq += 1
    time.sleep(0.3)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    t0, began = records[0][0], time.monotonic()
    for when, payload in records:
        delay = began + (when - t0) - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        ssrc = struct.unpack(">I", payload[8:12])[0]
        for k in range(count):
            s.sendto(payload[:8] + struct.pack(">I", (ssrc + k) & 0xFFFFFFFF) + payload[12:], ("127.0.0.1", base + k))
    time.sleep(0.3)
    if flooder > 0:
        os.kill(flooder, 9)
        os.waitpid(flooder, 0)
    """
}
