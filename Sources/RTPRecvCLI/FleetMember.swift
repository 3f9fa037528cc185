import Fleet
import SystemIO

/// This process as one member of a fleet (`nats:` in the config), on a thread of its own so that
/// NATS being slow or gone never stalls the sources or the metrics endpoint.
///
/// Every round (an eighth of the TTL) it writes its heartbeat, renews each claim it holds that was
/// last written a third of the TTL ago or more (about 3 writes a claim a TTL rather than 8: each is
/// replicated by JetStream, and it is the bucket's load that grows with the sources; a claim is
/// never older than half the TTL when written again), and
/// claims free sources as `FleetPlan` says, from the bucket as a watch has seen it (no request a
/// source); a dead member's claims and heartbeat expire after the TTL, by the stream leader's
/// clock, and its sources are free then. Without NATS it keeps what
/// it holds and claims nothing; a claim another member took meanwhile (after the TTL) is given up
/// at the next round. A source handed to another member is let go once its run here has stopped,
/// so that two never write it at once. The supervisor runs what `held` names. Events wait in a
/// bounded queue and are published in order.
final class FleetMember {
    let settings: FleetSettings
    private let lock = ConditionLock()
    // Shared with the supervisor, under the lock.
    private var sources: [String]
    private var claimed: Set<String> = []
    /// Sources whose run ended here on its own: released, and not claimed again until a reload.
    private var endedHere: Set<String> = []
    private var released: [String] = []
    /// Handed to another member: still claimed (and renewed) until the supervisor says its run stopped.
    private var handingOver: Set<String> = []
    /// Taken by another member while this one was cut off from NATS: by whom, until the run here stopped.
    private var lostTo: [String: String] = [:]
    /// Claimed after another member's claim expired (it died, or is cut off): that member, until the run here starts.
    private var expiredFrom: [String: String] = [:]
    /// Events waiting for NATS, each with its ID for the stream's de-duplication: this process's
    /// member name and start, and the event's number.
    private var queue: [(source: String, json: String, id: String)] = []
    private var eventsPosted = 0
    private let processStart = Terminal.wallclockNanoseconds()
    private var eventsDropped = 0
    private var stopping = false
    /// Why this process may not be the member it is named (another live process is): it ends.
    private var refusal: String?
    /// An event came since the thread last looked: it is published at once, not at the next round.
    private var posted = false
    /// How to reach NATS, changed by a reload (servers, credentials): taken at the next round.
    private var newClient: NATSClient.Settings?
    private var thread: WorkerThread?

    // The fleet thread's own.
    private var clientSettings: NATSClient.Settings
    private var client: NATSClient?
    /// Joined before: a new connection keeps the claims, with no wait to take the member's name.
    private var joined = false
    private var bucket: ClaimBucket?
    private var stream: EventStream?
    /// Each claim's revision, and when this member wrote it.
    private var revisions: [String: (revision: UInt64, at: Int64)] = [:]
    private var freeSince: [String: Int64] = [:]
    /// The bucket's keys as they are written, made at the first survey.
    private var watch: BucketWatch?
    private var rounds = 0
    /// The round of the last claim or release: the next release waits two more, for the fleet to settle.
    private var lastChange = 0
    /// The most sources the next hand-over lets go of: one, then twice as many after each while the
    /// members stay the same, so that a member back in a large fleet has its share within a few
    /// hand-overs, and one that comes and goes (a crash loop) is never handed more than it stayed for.
    private var handOverBatch = (size: 1, members: Set<String>())
    /// Why NATS failed, since when no round succeeded, and whether the member had joined by then.
    private var outage: (error: String, joined: Bool)?

    static let queueBound = 10_000
    /// Rounds connected before the first claim: long enough to see the members started beside it.
    static let settleRounds = 2

    init(_ settings: FleetSettings, sources: [String]) {
        self.settings = settings
        self.sources = sources
        clientSettings = settings.client
    }

    /// A round every eighth of the TTL: a dead member's sources are seen free within that of expiring.
    var interval: Int64 { max(250, settings.ttlMilliseconds / 8) * 1_000_000 }

    func start() -> Bool {
        thread = WorkerThread { [self] in
            Terminal.prefixMessages("rtprecv: fleet: ")
            var due = Terminal.monotonicNanoseconds()
            while !lock.locked({ stopping || refusal != nil }) {
                let now = Terminal.monotonicNanoseconds()
                if now >= due {
                    round(now: now)
                    due = now + interval
                } else if client?.isConnected == true {
                    try? letGo()
                    try? publish()
                }
                lock.locked {
                    if !stopping && !posted { lock.wait(nanoseconds: max(0, due - Terminal.monotonicNanoseconds())) }
                    posted = false
                }
            }
            leave()
        }
        return thread != nil
    }

    /// The sources this member records now.
    var held: Set<String> { lock.locked { claimed } }

    /// Who records `source` now, when this member lost it after a partition.
    func owner(afterLosing source: String) -> String? { lock.locked { lostTo[source] } }

    /// The member whose claim of `source` expired before this one took it, once: the run starting
    /// here lists the segments it left open.
    func takeOver(of source: String) -> String? { lock.locked { expiredFrom.removeValue(forKey: source) } }

    /// Why the process must end: another live process is this member.
    var refused: String? { lock.locked { refusal } }

    /// The config reloaded: its sources now, and those that ended here may be claimed again.
    func update(sources: [String]) {
        lock.locked {
            self.sources = sources
            endedHere = []
            for gone in claimed.subtracting(sources) {
                claimed.remove(gone)
                released.append(gone)
            }
        }
    }

    /// The config reloaded with other servers or credentials: the member connects again with them
    /// at its next round, holding its claims (renewed as soon as it is back).
    func reconnect(with client: NATSClient.Settings) {
        lock.locked {
            newClient = client
            lock.broadcast()
        }
    }

    /// A source's run ended on its own (its camera gone for good, say): its claim is let go.
    func ended(_ source: String) {
        lock.locked {
            endedHere.insert(source)
            if claimed.remove(source) != nil { released.append(source) }
        }
    }

    /// A run stopped because this member no longer holds its source: one being handed over is let go now.
    func stopped(_ source: String) {
        lock.locked {
            lostTo[source] = nil
            if handingOver.remove(source) != nil { released.append(source) }
            posted = true
            lock.broadcast()
        }
    }

    /// An event of `source` (`kind`: started, stopped, segment, claimed, lost …) with `fields`.
    func post(_ source: String, _ kind: String, _ fields: [(String, JSON)] = []) {
        let json = JSON.object([("event", .string(kind)), ("source", .string(source)), ("member", .string(settings.member)),
                                ("utc", .string(OutputTemplate.basicUTC(Terminal.wallclockNanoseconds())))] + fields).serialized
        let firstDropped = lock.locked {
            eventsPosted += 1
            if queue.count < Self.queueBound {
                queue.append((source, json, "\(settings.member)-\(processStart)-\(eventsPosted)"))
            } else {
                eventsDropped += 1
            }
            posted = true
            lock.broadcast()
            return eventsDropped == 1 && queue.count == Self.queueBound
        }
        if firstDropped { Terminal.printError("rtprecv: fleet: \(Self.queueBound) events wait for NATS: later ones are dropped until it is back\n") }
    }

    /// Stops the thread, once its claims are let go and its events published.
    func finish() {
        lock.locked {
            stopping = true
            lock.broadcast()
        }
        thread?.join()
    }

    // MARK: The fleet thread

    private func round(now: Int64) {
        if let next = lock.locked({ newClient.take() }) {
            (watch, stream, bucket, client) = (nil, nil, nil, nil)
            clientSettings = next
        }
        do {
            guard try connect() else { return }
            try bucket!.put("member.\(settings.member)", heartbeat())
            try letGo()
            try renew(now: now)
            if rounds >= Self.settleRounds { try balance(now: now) }
            rounds += 1
            try publish()
            if let was = outage {
                outage = nil
                if was.joined { Terminal.printError("NATS is back (\(was.error)); claims renewed\n") }
            }
        } catch {
            // Before the first join (a cluster still starting, its bucket not ready) nothing is held yet.
            if outage == nil {
                Terminal.printError(joined ? "NATS: \(error); recording what this member holds, claiming nothing\n"
                                    : "cannot join the fleet yet (\(error)); trying again each round\n")
            }
            outage = outage ?? ("\(error)", joined)
        }
    }

    /// The connection, the bucket and the stream, made once; false while NATS cannot be reached.
    private func connect() throws -> Bool {
        if let client { return client.isConnected }
        let c = try NATSClient(clientSettings)
        bucket = try ClaimBucket(c, name: settings.bucket, ttlMilliseconds: settings.ttlMilliseconds, replicas: settings.replicas)
        stream = try EventStream(c, name: settings.events, replicas: settings.replicas)
        let servers = clientSettings.servers.joined(separator: ", ")
        if joined {
            client = c
            Terminal.printError("connected again, through \(servers), as the config now says\n")
            return true
        }
        guard let restarted = try takeName() else { return false }
        client = c
        joined = true
        Terminal.printError("member '\(settings.member)' joined, through \(servers)\n")
        if restarted { try adopt() }
        return true
    }

    /// Whether an earlier process of this member left its heartbeat (it was restarted within the
    /// TTL); nil, and the process refused, when another live process writes it: the two would take
    /// each other's claims. A heartbeat not written again within three of its rounds is a dead
    /// process's.
    private func takeName() throws -> Bool? {
        let key = "member.\(settings.member)"
        guard case .taken = try bucket!.create(key, heartbeat()), let first = try bucket!.get(key) else { return false }
        let deadline = Terminal.monotonicNanoseconds() + 3 * interval
        lock.locked {
            while !stopping && Terminal.monotonicNanoseconds() < deadline {
                lock.wait(nanoseconds: max(0, deadline - Terminal.monotonicNanoseconds()))
            }
        }
        guard let again = try bucket!.get(key), again.revision != first.revision else { return true }
        let host = Self.field("host", in: again.value) ?? "another host"
        lock.locked { refusal = "member '\(settings.member)' is already running (on \(host)): give each member its own name" }
        return nil
    }

    /// Claims an earlier process of this member left (it was killed and restarted within the
    /// TTL), taken back by compare-and-set at once rather than left to expire.
    private func adopt() throws {
        for source in lock.locked({ sources }) {
            let key = "source.\(source)"
            guard let claim = try bucket!.get(key), claim.value == settings.member,
                  case .written(let revision) = try bucket!.update(key, settings.member, revision: claim.revision) else { continue }
            revisions[source] = (revision, Terminal.monotonicNanoseconds())
            lock.locked { _ = claimed.insert(source) }
            Terminal.printError("'\(source)' taken back: an earlier process of this member held it\n")
            post(source, "claimed", [("adopted", .bool(true))])
        }
    }

    /// A string field of a heartbeat's JSON, which is flat and written by this code.
    private static func field(_ name: String, in json: String) -> String? {
        guard let start = json.firstRange(of: "\"\(name)\":\"") else { return nil }
        return String(json[start.upperBound...].prefix { $0 != "\"" })
    }

    private func heartbeat() -> String {
        JSON.object([("member", .string(settings.member)), ("host", .string(Terminal.hostName)),
                     ("sources", .array(held.sorted().map { .string($0) }))]).serialized
    }

    /// Claims of runs that ended here, deleted so that another member may try.
    private func letGo() throws {
        for source in lock.locked({ released }) {
            try bucket!.delete("source.\(source)")
            revisions[source] = nil
            lock.locked { released.removeAll { $0 == source } }
        }
    }

    /// Each claim due written again; one another member holds now is given up.
    private func renew(now: Int64) throws {
        let due = now - settings.ttlMilliseconds * 1_000_000 / 3
        for source in lock.locked({ claimed.union(handingOver) }) where revisions[source].map({ $0.at <= due }) ?? true {
            let key = "source.\(source)"
            if let last = revisions[source], case .written(let next) = try bucket!.update(key, settings.member, revision: last.revision) {
                revisions[source] = (next, now)
                continue
            }
            // Expired while NATS was away: ours again if nobody took it.
            let current = try bucket!.get(key)
            if current == nil, case .written(let next) = try bucket!.create(key, settings.member) {
                revisions[source] = (next, now)
                continue
            }
            // Another holds it (read again only if it took it that very moment).
            let owner = try (current ?? bucket!.get(key))?.value ?? "nobody"
            lock.locked {
                claimed.remove(source)
                handingOver.remove(source)
                lostTo[source] = owner
            }
            revisions[source] = nil
            Terminal.printError("'\(source)' is recorded by member '\(owner)' now (NATS was out of reach past the TTL); it stops here at its next keyframe\n")
            post(source, "lost", [("to", .string(owner))])
        }
    }

    /// Free sources claimed, or sources handed over when this member holds more than its share.
    private func balance(now: Int64) throws {
        let (all, mine, ended, leaving) = lock.locked { (sources, claimed, endedHere, handingOver) }
        let (members, holders) = try survey(all, except: mine.union(leaving), now: now)
        if handOverBatch.members != Set(members) { handOverBatch = (1, Set(members)) }
        let excess = rounds - lastChange >= 2 && leaving.isEmpty
            ? FleetPlan.release(me: settings.member, members: members, sources: all.count, held: Array(mine), count: handOverBatch.size) : []
        if !excess.isEmpty {
            lock.locked {
                claimed.subtract(excess)
                handingOver.formUnion(excess)
            }
            lastChange = rounds
            handOverBatch.size = min(handOverBatch.size * 2, 1 << 10)
            let share = FleetPlan.share(sources: all.count, members: members.count)
            for source in excess {
                Terminal.printError("'\(source)' handed over: \(members.count) members share \(all.count) sources, \(share) at most each\n")
                post(source, "released", [("share", .int(share))])
            }
            return
        }
        let free = all.filter { holders[$0] == nil && !mine.contains($0) && !ended.contains($0) && !leaving.contains($0) }
        freeSince = free.reduce(into: [:]) { $0[$1] = freeSince[$1] ?? now }
        var counts = Dictionary(holders.values.map { ($0, 1) }, uniquingKeysWith: +)
        counts[settings.member] = mine.count + leaving.count
        let plan = FleetPlan.claims(me: settings.member, members: members, sources: all.count, holding: counts,
                                    free: free.map { ($0, now - freeSince[$0]! >= settings.ttlMilliseconds * 1_000_000) })
        for source in plan {
            guard case .written(let revision) = try bucket!.create("source.\(source)", settings.member) else { continue }
            revisions[source] = (revision, now)
            // A claim deleted (a member leaving, a hand-over) is not seen; one that expired is.
            let before = watch?.lastValue("source.\(source)").flatMap { $0 == settings.member ? nil : $0 }
            lock.locked {
                claimed.insert(source)
                expiredFrom[source] = before
            }
            lastChange = rounds
            post(source, "claimed")
        }
    }

    /// The members alive and who holds each source claimed, as the bucket's watch has seen them:
    /// heartbeats and claims written within the TTL. This member's own heartbeat, written every
    /// round, must come back through it: a watch that has not delivered it for half a TTL fell
    /// behind (its consumer lost) and is made again.
    private func survey(_ sources: [String], except mine: Set<String>, now: Int64) throws -> (members: [String], holders: [String: String]) {
        let ttl = settings.ttlMilliseconds * 1_000_000
        if let seen = watch?.lastSeen("member.\(settings.member)"), now - seen > ttl / 2 {
            Terminal.printError("the watch of the bucket \(settings.bucket) fell behind; watching it again\n")
            watch = nil
        }
        if watch == nil {
            watch = try BucketWatch(bucket!, now: now, timeoutMilliseconds: settings.client.timeoutMilliseconds)
        }
        let live = try watch!.live(now: now, ttl: ttl)
        var members = Set(live.keys.compactMap { $0.hasPrefix("member.") ? String($0.dropFirst(7)) : nil }), holders: [String: String] = [:]
        for source in sources where !mine.contains(source) {
            guard let owner = live["source.\(source)"] else { continue }
            holders[source] = owner
            members.insert(owner)
        }
        members.insert(settings.member)
        return (members.sorted(), holders)
    }

    private func publish() throws {
        while let event = lock.locked({ queue.first }) {
            // Sent again after a timeout until stored: the ID makes it stored once.
            try stream!.publish(source: event.source, event.json, id: event.id)
            lock.locked { _ = queue.removeFirst() }
        }
    }

    /// At the end: the last events out, every claim and the heartbeat deleted, so that the others
    /// take the sources at once rather than after the TTL.
    private func leave() {
        let dropped = lock.locked { eventsDropped }
        if dropped > 0 { Terminal.printError("\(dropped) events were dropped while NATS was out of reach\n") }
        guard let client, client.isConnected else { return }
        try? publish()
        for source in Set(revisions.keys).union(lock.locked { released }) { try? bucket!.delete("source.\(source)") }
        try? bucket!.delete("member.\(settings.member)")
    }
}
