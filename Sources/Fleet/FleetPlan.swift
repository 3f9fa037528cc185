/// Which sources a member claims: the decision alone, with no NATS in it, so that it can be tested
/// and read on its own.
///
/// Each source has a home among the live members, by rendezvous hashing (the member whose hash
/// with the source is highest): members that see the same members agree on it without talking,
/// and a member's death moves only its own sources. A member claims the free sources whose home it
/// is, and any source left free for a grace period (its home may be slow or partitioned), never
/// more than its share, the sources divided by the members rounded up, so that however they race
/// every source has a place. A member above its share (others joined since it claimed) lets go,
/// one at a time, of sources whose home is another member.
public enum FleetPlan {
    /// FNV-1a over "member/source": stable across processes and machines (Swift's hash is not).
    static func weight(_ member: String, _ source: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (member + "/" + source).utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// The live member a source belongs to.
    public static func home(of source: String, among members: [String]) -> String? {
        members.max { (weight($0, source), $0) < (weight($1, source), $1) }
    }

    /// The most sources one member records while `members` are alive.
    public static func share(sources: Int, members: Int) -> Int {
        members <= 0 ? sources : (sources + members - 1) / members
    }

    /// The free sources `me` claims now, in the order to try them: its own first, then those free
    /// for longer than the grace, up to its share less what it holds.
    public static func claims(me: String, members: [String], sources: Int, holding: Int,
                              free: [(source: String, overdue: Bool)]) -> [String] {
        let room = share(sources: sources, members: max(1, members.count)) - holding
        guard room > 0 else { return [] }
        let alive = members.contains(me) ? members : members + [me]
        let own = free.filter { home(of: $0.source, among: alive) == me }.map(\.source)
        let overdue = free.filter { $0.overdue && home(of: $0.source, among: alive) != me }.map(\.source)
        return Array((own + overdue).prefix(room))
    }

    /// A source `me` lets go of now, to its home: one while it holds more than its share.
    public static func release(me: String, members: [String], sources: Int, held: [String]) -> String? {
        let alive = members.contains(me) ? members : members + [me]
        guard alive.count > 1, held.count > share(sources: sources, members: alive.count) else { return nil }
        return held.sorted().first { home(of: $0, among: alive) != me }
    }
}
