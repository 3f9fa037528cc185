import CNATS

/// A bucket's keys as they are written, pushed by the server (a key-value watcher: an ordered
/// consumer), rather than read one request a key: a member's round costs the same for a thousand
/// sources as for one. The bucket's entries expire without a message (JetStream's max age), so a
/// key not seen written for a TTL counts as gone; a create, not this view, decides who holds it.
public final class BucketWatch {
    private let watcher: OpaquePointer
    private let bucket: ClaimBucket
    /// Each key's value and when it was last seen written (monotonic nanoseconds).
    private var entries: [String: (value: String, seen: Int64)] = [:]

    /// Watches `bucket`, once it has delivered every value it holds (within `timeoutMilliseconds`),
    /// so that the first view is whole.
    public init(_ bucket: ClaimBucket, now: Int64, timeoutMilliseconds: Int64) throws(NATSError) {
        var options = kvWatchOptions()
        _ = kvWatchOptions_Init(&options)
        var watcher: OpaquePointer?
        let status = kvStore_WatchAll(&watcher, bucket.store, &options)
        guard status == NATS_OK, let watcher else { throw NATSError("watching \(bucket.name)", status) }
        self.watcher = watcher
        self.bucket = bucket
        while true {
            switch try next(now: now, timeoutMilliseconds: timeoutMilliseconds) {
            case .caughtUp: return
            case .update: continue
            case .none: throw NATSError("watching \(bucket.name): its values did not all come within \(timeoutMilliseconds) ms")
            }
        }
    }

    private enum Step { case update, caughtUp, none }

    /// One update taken in, the end of the first values, or none within the timeout.
    private func next(now: Int64, timeoutMilliseconds: Int64) throws(NATSError) -> Step {
        var entry: OpaquePointer?
        let status = kvWatcher_Next(&entry, watcher, max(1, timeoutMilliseconds))
        if status == NATS_TIMEOUT { return .none }
        guard status == NATS_OK else { throw NATSError("watching \(bucket.name)", status) }
        guard let entry else { return .caughtUp }
        defer { kvEntry_Destroy(entry) }
        let key = kvEntry_Key(entry).map { String(cString: $0) } ?? ""
        entries[key] = kvEntry_Operation(entry) == kvOp_Put ? (ClaimBucket.value(of: entry), now) : nil
        return .update
    }

    /// Every update that has come (up to `maxUpdates`, so that a busy bucket cannot hold a round),
    /// taken in; the keys seen written within `ttl` nanoseconds of `now`, with their values. Keys
    /// not seen for four TTLs are forgotten: until then `lastValue` says who held an expired claim.
    public func live(now: Int64, ttl: Int64, maxUpdates: Int = 100_000) throws(NATSError) -> [String: String] {
        var taken = 0
        while taken < maxUpdates, try next(now: now, timeoutMilliseconds: 1) != .none { taken += 1 }
        entries = entries.filter { now - $0.value.seen <= 4 * ttl }
        return entries.compactMapValues { now - $0.seen <= ttl ? $0.value : nil }
    }

    /// `key`'s last value seen written, expired or not, until forgotten; nil once deleted.
    public func lastValue(_ key: String) -> String? { entries[key]?.value }

    /// When `key` was last seen written; nil when never, or since deleted.
    public func lastSeen(_ key: String) -> Int64? { entries[key]?.seen }

    deinit { kvWatcher_Destroy(watcher) }
}
