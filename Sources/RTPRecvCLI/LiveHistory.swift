/// The live page's last minute: each followed stream's payload bytes, packets and packets lost
/// per second, 60 seconds of them, sampled from the counts the metrics read.
final class LiveHistory {
    struct Second {
        var bytes = 0
        var packets = 0
        var lost = 0
    }

    static let seconds = 60
    private struct Stream {
        var last: Second
        var history: [Second] = []
    }

    private var streams: [String: Stream] = [:]
    private(set) var lastSample: Int64 = 0

    /// Whether a second has gone by since the last sample.
    func due(now: Int64) -> Bool { now - lastSample >= 1_000_000_000 }

    /// One second's sample of every stream followed now; streams gone are forgotten.
    func sample(_ followed: [FollowedStream], now: Int64) {
        lastSample = now
        var next: [String: Stream] = [:]
        for f in followed {
            let s = f.statistics
            let totals = Second(bytes: s.bytes, packets: s.packets, lost: s.lost)
            var stream = streams[Self.key(f)] ?? Stream(last: totals)
            stream.history.append(Second(bytes: max(0, totals.bytes - stream.last.bytes), packets: max(0, totals.packets - stream.last.packets),
                                         lost: max(0, totals.lost - stream.last.lost)))
            if stream.history.count > Self.seconds { stream.history.removeFirst(stream.history.count - Self.seconds) }
            stream.last = totals
            next[Self.key(f)] = stream
        }
        streams = next
    }

    /// The stream's seconds, oldest first (at most 60).
    func history(of followed: FollowedStream) -> [Second] { streams[Self.key(followed)]?.history ?? [] }

    private static func key(_ f: FollowedStream) -> String {
        "\(f.media) \(f.statistics.ssrc) \(f.statistics.destination?.description ?? "")"
    }
}
