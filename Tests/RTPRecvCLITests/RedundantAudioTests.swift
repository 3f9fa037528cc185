import Foundation
import XCTest

/// RED (RFC 2198) as WebRTC sends Opus in it: GStreamer's rtpredenc after rtpopuspay, each packet
/// carrying the one before as a redundant block, captured on loopback.
final class RedundantAudioTests: XCTestCase {
    private let port = UInt16(44000 + Int(getpid() % 1000) * 2)

    /// Four seconds of Opus in RED (PT 63, the primary PT 111), and the SDP that names both.
    private func send() throws -> (capture: URL, sdp: URL) {
        let source = Harness.captures.appendingPathComponent("sync-source-mulaw.wav")
        let capture = try Harness.record("red", port: port, bindingIt: true) {
            try Harness.runSender(["-q", "filesrc", "location=\(source.path)", "!", "wavparse", "!", "mulawdec", "!", "audioconvert",
                                   "!", "audioresample", "!", "opusenc", "!", "rtpopuspay", "pt=111", "!", "rtpredenc", "pt=63",
                                   "distance=1", "allow-no-red-blocks=true", "!", "udpsink", "host=127.0.0.1", "port=\(port)"],
                                  seconds: 5)
        }
        let sdp = Harness.temporaryFile("red.sdp")
        try ("v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio \(port) RTP/AVP 63 111\r\n"
             + "a=rtpmap:63 red/48000/2\r\na=fmtp:63 111/111\r\na=rtpmap:111 OPUS/48000/2\r\n").write(to: sdp, atomically: true, encoding: .utf8)
        return (capture, sdp)
    }

    private func run(_ capture: URL, sdp: URL, tag: String) throws -> (opus: URL, stats: [String: Any]) {
        let opus = Harness.temporaryFile(tag + ".opus"), stats = Harness.temporaryFile(tag + ".json")
        let result = try Harness.rtprecv(["--pcap", capture.path, "--sdp", sdp.path, "--audio", opus.path, "--stats-json", stats.path, "-q"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return (opus, try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as! [String: Any])
    }

    /// Every packet's primary is the audio, and a lost packet comes back whole from the next one's
    /// redundant block: the Ogg file of a capture with every tenth packet taken out holds the
    /// same Opus packets as the whole capture's.
    func testLostOpusPacketsComeBackFromTheNextPacketsRedundantBlock() throws {
        let (capture, sdp) = try send()
        let (whole, wholeStats) = try run(capture, sdp: sdp, tag: "red-whole")
        let packets = try XCTUnwrap(wholeStats["red_packets"] as? Int)
        XCTAssertGreaterThan(packets, 150, "20 ms packets for 4 s")
        XCTAssertEqual(wholeStats["red_blocks_taken"] as? Int, 0)
        let stream = try XCTUnwrap((wholeStats["audio_streams"] as? [[String: Any]])?.first)
        XCTAssertEqual(stream["codec"] as? String, "Opus")
        XCTAssertEqual(stream["frames_written"] as? Int, packets)
        let sent = try Harness.packetMD5(whole)
        XCTAssertEqual(sent.count, packets)

        // Every tenth packet lost, never two in a row: each is the next one's redundant block.
        let records = try TestPcap.records(of: capture)
        let kept = records.enumerated().filter { $0.offset % 10 != 5 }.map { ($0.element.microseconds * 1000, $0.element.frame) }
        let lossy = Harness.temporaryFile("red-lossy.pcap")
        try TestPcap.data(linkType: 1, records: kept).write(to: lossy)
        let (repaired, lossyStats) = try run(lossy, sdp: sdp, tag: "red-lossy")
        let dropped = records.count - kept.count
        XCTAssertEqual(lossyStats["red_blocks_taken"] as? Int, dropped)
        let lossyStream = try XCTUnwrap((lossyStats["audio_streams"] as? [[String: Any]])?.first)
        XCTAssertEqual(lossyStream["gaps"] as? Int, 0, "nothing is missing once the blocks stood in")
        XCTAssertEqual(try Harness.packetMD5(repaired), sent)
    }
}
