/// Which sources a member claims: the decision alone, with no NATS in it, so that it can be tested
/// and read on its own.
///
/// Each source has a home among the live members, by rendezvous hashing (the member whose hash
/// with the source is highest): members that see the same members agree on it without talking,
/// and a member's death moves only its own sources. No member records more than its share, the
/// sources divided by the members rounded up, so a free source goes to the member of highest hash
/// that has room (`placement`): the members agree on that too, from the same claims. A member
/// claims the free sources placed with it, and any source left free for a grace period (the member
/// it was placed with may be slow or partitioned), never past its share, so that however they race
/// every source has a place. A member above its share (others joined since it claimed) lets go of
/// sources whose home is another member, one at first, then twice as many each time.
public enum FleetPlan {
    /// FNV-1a over "member/source", then MurmurHash3's 64-bit finaliser: stable across processes
    /// and machines (Swift's hash is not). FNV alone ranks names that differ in one character
    /// alike for most sources ("m0", "m1": 10 of 12 cameras had one home); the finaliser spreads
    /// every input bit over the whole word.
    static func weight(_ member: String, _ source: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (member + "/" + source).utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        hash = (hash ^ (hash >> 33)) &* 0xff51_afd7_ed55_8ccd
        hash = (hash ^ (hash >> 33)) &* 0xc4ce_b9fe_1a85_ec53
        return hash ^ (hash >> 33)
    }

    /// The live member a source belongs to.
    public static func home(of source: String, among members: [String]) -> String? {
        members.max { (weight($0, source), $0) < (weight($1, source), $1) }
    }

    /// The most sources one member records while `members` are alive.
    public static func share(sources: Int, members: Int) -> Int {
        members <= 0 ? sources : (sources + members - 1) / members
    }

    /// The member each free source goes to: in the sources' name order, the member of highest
    /// hash with the source among those below their share, counting what each holds (`holding`)
    /// and what was placed before it.
    public static func placement(of free: [String], among members: [String], sources: Int, holding: [String: Int]) -> [String: String] {
        let limit = share(sources: sources, members: members.count)
        var counts = holding
        var placed: [String: String] = [:]
        for source in free.sorted() {
            let ranked = members.sorted { (weight($0, source), $0) > (weight($1, source), $1) }
            guard let member = ranked.first(where: { counts[$0, default: 0] < limit }) else { continue }
            placed[source] = member
            counts[member, default: 0] += 1
        }
        return placed
    }

    /// The free sources `me` claims now, in the order to try them: those placed with it first,
    /// then those free for longer than the grace, up to its share less what it holds.
    /// `holding`: how many sources each member holds, `me` included.
    public static func claims(me: String, members: [String], sources: Int, holding: [String: Int],
                              free: [(source: String, overdue: Bool)]) -> [String] {
        let alive = members.contains(me) ? members : members + [me]
        let room = share(sources: sources, members: alive.count) - holding[me, default: 0]
        guard room > 0 else { return [] }
        let placed = placement(of: free.map(\.source), among: alive, sources: sources, holding: holding)
        let own = free.filter { placed[$0.source] == me }.map(\.source)
        let overdue = free.filter { $0.overdue && placed[$0.source] != me }.map(\.source)
        return Array((own + overdue).prefix(room))
    }

    /// The sources `me` lets go of now, at most `count`, while it holds more than its share: those
    /// whose home is another member first, then any (it may be the home of more than its share).
    /// Let go, each is placed with a member that has room.
    public static func release(me: String, members: [String], sources: Int, held: [String], count: Int = 1) -> [String] {
        let alive = members.contains(me) ? members : members + [me]
        let excess = held.count - share(sources: sources, members: alive.count)
        guard alive.count > 1, excess > 0 else { return [] }
        let ordered = held.sorted()
        let elsewhere = ordered.filter { home(of: $0, among: alive) != me }
        let own = ordered.filter { home(of: $0, among: alive) == me }.reversed()
        return Array((elsewhere + own).prefix(min(max(count, 1), excess)))
    }
}
