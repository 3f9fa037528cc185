import Foundation
import XCTest

/// Calls captured from real senders on loopback, for the tests of more than one output.
extension Harness {
    /// Four seconds of a call from GStreamer in Opus with DTX (opusenc and rtpopuspay, dtx=true),
    /// captured on loopback, with its SDP and the port it went to.
    static func opusDTXCall() throws -> (capture: URL, sdp: URL, port: UInt16) {
        let port = UInt16(45000 + Int(getpid() % 1000) * 2)
        let source = captures.appendingPathComponent("sync-source-mulaw.wav")
        let recorded = try record("opus-dtx", port: port, bindingIt: true) {
            try runSender(["-q", "filesrc", "location=\(source.path)", "!", "wavparse", "!", "mulawdec",
                           "!", "audioconvert", "!", "audioresample", "!", "opusenc", "dtx=true", "audio-type=voice",
                           "bitrate=16000", "!", "rtpopuspay", "dtx=true", "pt=111", "!", "udpsink", "host=127.0.0.1",
                           "port=\(port)"], seconds: 5)
        }
        let sdp = temporaryFile("opus-dtx.sdp")
        try "v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio \(port) RTP/AVP 111\r\na=rtpmap:111 OPUS/48000/2\r\n"
            .write(to: sdp, atomically: true, encoding: .utf8)
        return (recorded, sdp, port)
    }

    /// 16-bit mono samples at 8 kHz, as ffmpeg decodes `url`.
    static func pcm(_ url: URL, rate: Int = 8000) throws -> [Int16] {
        let result = try run("ffmpeg", ["-v", "error", "-i", url.path, "-ac", "1", "-ar", "\(rate)", "-f", "s16le", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// Where the beeps of the sync sources start, in seconds from the first sample of `samples` at 8 kHz.
    static func beepOnsets(_ samples: [Int16]) -> [Double] {
        var onsets: [Double] = [], quiet = 0
        for (i, s) in samples.enumerated() {
            if abs(Int(s)) > 3000 {
                if quiet > 2000 { onsets.append(Double(i) / 8000) }
                quiet = 0
            } else {
                quiet += 1
            }
        }
        return onsets
    }

    /// Two seconds of a 440 Hz tone FFmpeg encoded to G.722, and a capture of it sent as PT 9
    /// (160 bytes, 20 ms a packet) without the packets whose indexes are in `losing`.
    static func g722Tone(losing: Set<Int>, name: String) throws -> (g722: URL, capture: URL) {
        let raw = temporaryFile(name + ".g722"), capture = temporaryFile(name + ".pcap")
        let encoded = try run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=16000:duration=2",
                                         "-c:a", "g722", "-f", "g722", raw.path])
        XCTAssertEqual(encoded.status, 0, encoded.stderr)
        let bytes = [UInt8](try Data(contentsOf: raw))
        XCTAssertEqual(bytes.count, 16000)
        let records = stride(from: 0, to: bytes.count, by: 160).enumerated().filter { !losing.contains($0.offset) }.map { i, at in
            let rtp = TestPcap.rtp(Array(bytes[at..<min(at + 160, bytes.count)]), payloadType: 9, marker: i == 0, sequence: UInt16(i),
                                   timestamp: UInt32(i * 160), ssrc: 0x0722_0722)
            return (UInt64(i) * 20_000_000, TestPcap.udpFrame(rtp, ethernet: true))
        }
        try TestPcap.data(linkType: 1, records: records).write(to: capture)
        return (raw, capture)
    }
}
