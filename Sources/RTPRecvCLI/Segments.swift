import RTPCore
import SystemIO

/// `--segment-seconds N`: when a segment ends. On the stream's own clock, at the first keyframe N
/// seconds or more after the segment began; with `--segment-wallclock`, at the first keyframe past
/// the next multiple of N seconds of UTC (…:00, …:10), so that the files of many streams, and of
/// many instances, line up.
struct Segments {
    let nanoseconds: Int64
    let wallclock: Bool
    /// Live, UTC is the time now; in a capture, when the packet was captured.
    let live: Bool

    init(seconds: Int, wallclock: Bool, live: Bool) {
        nanoseconds = Int64(seconds) * 1_000_000_000
        self.wallclock = wallclock
        self.live = live
    }

    /// The time a segment is measured on, at `accessUnit`.
    func time(of accessUnit: AccessUnit) -> Int64 {
        guard wallclock else { return accessUnit.time ?? accessUnit.arrival }
        return live ? Terminal.wallclockNanoseconds() : accessUnit.arrival
    }

    /// Senders' timestamps round: FFmpeg's keyframe a second after another is 89,999 ticks of
    /// 90 kHz after it. A keyframe this close to the segment's end ends it.
    static let tolerance: Int64 = 10_000_000

    /// Whether a segment begun at `start` is over by `time`.
    func ends(startedAt start: Int64, by time: Int64) -> Bool {
        guard wallclock else { return time + Self.tolerance - start >= nanoseconds }
        return slot(time + Self.tolerance) > slot(start)
    }

    private func slot(_ time: Int64) -> Int64 { time >= 0 ? time / nanoseconds : (time + 1) / nanoseconds - 1 }
}
