import Fleet
import XCTest

/// The fleet's decision alone: where free sources go, with no NATS.
final class FleetPlanTests: XCTestCase {
    private let members = ["a", "b", "c"]
    private let sources = (0..<12).map { "cam\($0)" }

    /// Every member, seeing the same claims, places each source with the same member, and no
    /// member past its share, however unevenly the hash alone would spread them.
    func testEveryMemberClaimsItsPlaceAndTogetherTheyTakeEverySourceAtOnce() {
        let claimed = members.map { me in
            FleetPlan.claims(me: me, members: members, sources: sources.count, holding: [:], free: sources.map { ($0, false) })
        }
        XCTAssertEqual(claimed.map(\.count), [4, 4, 4], "each its share")
        XCTAssertEqual(Set(claimed.joined()), Set(sources), "every source placed, none twice")
        // The hash alone is uneven here: some member is the highest hash of more than its share.
        let homes = Dictionary(grouping: sources) { FleetPlan.home(of: $0, among: members)! }.mapValues(\.count)
        XCTAssertNotEqual(homes.values.sorted(), [4, 4, 4], "the case this test is for: \(homes)")
    }

    /// Two members, two sources, both with the same highest hash: the second goes to the other
    /// member at once, not after the grace.
    func testASourceWhoseHomeIsFullGoesToTheNextMemberAtOnce() {
        let pair = ["r0", "r1"]
        let both = (0..<40).map { "s\($0)" }.first { s in
            let other = "t" + s
            return FleetPlan.home(of: s, among: pair) == FleetPlan.home(of: other, among: pair)
        }!
        let free = [both, "t" + both].map { ($0, false) }
        let home = FleetPlan.home(of: both, among: pair)!
        let other = pair.first { $0 != home }!
        let byHome = FleetPlan.claims(me: home, members: pair, sources: 2, holding: [:], free: free)
        let byOther = FleetPlan.claims(me: other, members: pair, sources: 2, holding: [:], free: free)
        XCTAssertEqual(byHome.count, 1)
        XCTAssertEqual(Set(byHome + byOther), Set(free.map(\.0)), "one each")
    }

    /// What members hold counts: a member at its share claims nothing, even its home's sources,
    /// and those go where there is room; one left free past the grace is taken by anyone with room.
    func testHoldingsCountAndOverdueSourcesAreTakenByAnyoneWithRoom() {
        let full = ["a": 4, "b": 4, "c": 3]
        let last = "cam11"
        XCTAssertEqual(FleetPlan.claims(me: "a", members: members, sources: 12, holding: full, free: [(last, false)]), [])
        XCTAssertEqual(FleetPlan.claims(me: "c", members: members, sources: 12, holding: full, free: [(last, false)]), [last])
        XCTAssertEqual(FleetPlan.placement(of: [last], among: members, sources: 12, holding: ["a": 4, "b": 4, "c": 4]), [:])
        let notMine = sources.first { FleetPlan.home(of: $0, among: ["a", "b"]) == "b" }!
        XCTAssertEqual(FleetPlan.claims(me: "a", members: ["a", "b"], sources: 2, holding: ["b": 0], free: [(notMine, false)]), [])
        XCTAssertEqual(FleetPlan.claims(me: "a", members: ["a", "b"], sources: 2, holding: ["b": 0], free: [(notMine, true)]), [notMine])
    }
}

extension FleetPlanTests {
    /// A member above its share lets one go even when it is the home of all it holds.
    func testAMemberAboveItsShareLetsGoEvenOfItsOwnHomes() {
        let pair = ["a", "b"]
        let homes = (0..<40).map { "cam\($0)" }.filter { FleetPlan.home(of: $0, among: pair) == "a" }.prefix(3)
        XCTAssertEqual(homes.count, 3)
        XCTAssertEqual(FleetPlan.release(me: "a", members: pair, sources: 4, held: Array(homes)), [homes.sorted().last!],
                       "3 held, a share of 2")
        XCTAssertEqual(FleetPlan.release(me: "a", members: pair, sources: 4, held: Array(homes.prefix(2))), [])
    }

    /// A member back in a fleet of 300 sources: each of the others lets go of as many as it is
    /// asked, never below its share, those whose home is elsewhere first.
    func testAReleaseLetsGoOfUpToItsCountAndNoMore() {
        let all = (0..<300).map { "cam\($0)" }, trio = ["a", "b", "c"]
        let held = Array(all.prefix(150))
        let elsewhere = held.filter { FleetPlan.home(of: $0, among: trio) != "a" }
        XCTAssertGreaterThan(elsewhere.count, 50)
        XCTAssertEqual(FleetPlan.release(me: "a", members: trio, sources: 300, held: held, count: 32), Array(elsewhere.sorted().prefix(32)))
        let all50 = FleetPlan.release(me: "a", members: trio, sources: 300, held: held, count: 1000)
        XCTAssertEqual(all50.count, 50, "150 held, a share of 100")
        XCTAssertEqual(Set(all50).count, 50)
        XCTAssertEqual(FleetPlan.release(me: "a", members: trio, sources: 300, held: held, count: 0).count, 1)
    }

    /// Homes spread about evenly over members whose names differ in one character, as a fleet's do.
    func testHomesSpreadEvenlyOverLikeNamedMembers() {
        for members in [["m0", "m1", "m2"], ["rec-a", "rec-b", "rec-c"], ["a", "b", "c"]] {
            let homes = Dictionary(grouping: (0..<900).map { "cam\($0)" }) { FleetPlan.home(of: $0, among: members)! }.mapValues(\.count)
            XCTAssertEqual(homes.count, 3, "\(members): \(homes)")
            for (member, count) in homes { XCTAssertTrue((240...360).contains(count), "\(member): \(count) of 900") }
        }
    }
}
