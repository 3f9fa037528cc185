import RTPCore
import SystemIO

/// What a replay or a live run drives: the one run that follows the stream rtprecv selects, or,
/// with `--all-streams`, one run per stream.
protocol Recording: AnyObject {
    /// `rtcpOnly`: it came where only RTCP goes (an interleaved RTCP channel).
    func receive(datagram: UnsafeRawBufferPointer, source: Endpoint?, destination: Endpoint?, arrival: Int64, rtcpOnly: Bool) throws
    /// Whether output in progress refers to bytes in `memory` (a capture's buffers).
    func refers(to memory: UnsafeRawBufferPointer) -> Bool
    func stopReferring(to memory: UnsafeRawBufferPointer)
    /// `memory` stays as it is until the run finishes (a capture mapped whole): writes of its bytes
    /// may wait and go out together.
    func gatherWrites(within memory: UnsafeRawBufferPointer)
    /// False once the outputs take no more (`--frames`, `endBeforeNextKeyframe`) or one failed
    /// (an RTMP server went away).
    var takesMore: Bool { get }
    /// Takes no more from the next keyframe on (of each stream, with `--all-streams`).
    func endBeforeNextKeyframe()
    var framesWritten: Int { get }
    func writing(_ body: () throws -> Void) throws
    func finish() throws
    func report(_ input: Report.Input) throws
    var failure: String? { get }
    /// Live: time passes with no packet; RTCP that is due goes out.
    func tick(now: Int64) throws
    /// Live: how long the loop may wait for input before time alone has work for `tick` (ms).
    func waitMilliseconds(now: Int64) -> Int
    /// Live: the RTCP BYE, as the run ends (or its RTSP session is set up again).
    func endFeedback(now: Int64)
    /// SIGHUP: the outputs reopen at their paths.
    func reopen() throws
    /// Datagrams taken in, those of them that were RTP, and Annex-B bytes written.
    var datagrams: Int { get }
    var rtpPackets: Int { get }
    var bytesWritten: Int { get }
    /// Every stream followed: for the metrics.
    func forEachStream(_ body: (FollowedStream) -> Void)
    /// Every run (one, or one a stream or session of a fan-out): for the metrics.
    func forEachRun(_ body: (Run) -> Void)
}

extension Recording {
    /// The exit status of a run that ended as asked: 0, or `Command.noRTPExitStatus` when none of
    /// its datagrams was RTP (said once, `where` naming the input).
    func exitStatus(where input: String, quiet: Bool) -> Int32 {
        guard rtpPackets == 0 else { return 0 }
        if !quiet { Terminal.printError("warning: no RTP packet \(input)\n") }
        return Command.noRTPExitStatus
    }
}

/// How long a live loop waits for input (ms): `busy` while a stream waits on time (a gap in its
/// packets to fill or give up on, a NACK to repeat), so that it is seen to within 20 ms; else until
/// RTCP is due and up to `late` after, so that a report goes out in the turn of a packet that comes
/// meanwhile (a camera at 30 frames a second sends one every 33 ms) rather than with a wake-up of
/// its own; at most `idle`, so that a silent source wakes ten times a second. In steps of `step`,
/// so that a socket's timeout is set again only when the wait changes by one.
enum TurnWait {
    static let busy = 20, idle = 100, late = 20, step = 10

    /// The wait when RTCP is due at `due` (monotonic ns; nil: nothing due).
    static func before(_ due: Int64?, now: Int64) -> Int {
        guard let due else { return idle }
        let left = due.subtractingSaturated(now) / 1_000_000 + Int64(late)
        guard left < Int64(idle) else { return idle }
        let steps = max(1, (left + Int64(step) - 1) / Int64(step))
        return Int(steps) * step  // bounded: under idle, over 0
    }
}

/// A stream as the metrics see it.
struct FollowedStream {
    var statistics: StreamStatistics
    /// "video" or "audio".
    var media: String
    var lastArrival: Int64
    /// The video stream's Annex-B bytes written, segments begun, and recordings deleted by
    /// retention; nil for audio.
    var written: (bytes: Int, segments: Int, deleted: Int)?
    /// Live with --metrics, video: its last keyframe, for the live page.
    var snapshot: KeyframeSnapshot?
}

extension Recording {
    func receive(datagram: UnsafeRawBufferPointer, source: Endpoint?, destination: Endpoint?, arrival: Int64) throws {
        try receive(datagram: datagram, source: source, destination: destination, arrival: arrival, rtcpOnly: false)
    }
}

extension Recording {
    /// Every stream followed now.
    var followedStreams: [FollowedStream] {
        var streams: [FollowedStream] = []
        forEachStream { streams.append($0) }
        return streams
    }
}
