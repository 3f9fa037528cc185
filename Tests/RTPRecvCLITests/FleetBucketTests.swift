import Fleet
import XCTest

/// The claims the fleet is built on, against a real nats-server: one writer wins a key, a stale
/// renewal loses it, and a key nobody renews expires after the bucket's TTL.
final class FleetBucketTests: XCTestCase {
    func testAClaimIsWonOnceRenewedByItsHolderAndExpiresUnrenewed() throws {
        let cluster = try NATSCluster(nodes: 1, name: "bucket")
        defer { cluster.stop() }
        let a = try NATSClient(.init(servers: cluster.urls, name: "a", timeoutMilliseconds: 2000))
        let b = try NATSClient(.init(servers: cluster.urls, name: "b", timeoutMilliseconds: 2000))
        let bucketA = try ClaimBucket(a, name: "claims", ttlMilliseconds: 2000, replicas: 1)
        let bucketB = try ClaimBucket(b, name: "claims", ttlMilliseconds: 2000, replicas: 1)
        guard case .written(let first) = try bucketA.create("source.door", "a") else { return XCTFail("a's claim") }
        XCTAssertEqual(try bucketB.create("source.door", "b"), .taken)
        XCTAssertEqual(try bucketB.get("source.door")?.value, "a")
        guard case .written(let second) = try bucketA.update("source.door", "a", revision: first) else { return XCTFail("a's renewal") }
        XCTAssertEqual(try bucketB.update("source.door", "b", revision: first), .taken, "a stale revision")
        XCTAssertEqual(try bucketB.keys(), ["source.door"])
        sleep(4)
        XCTAssertNil(try bucketB.get("source.door"), "expired")
        XCTAssertEqual(try bucketA.update("source.door", "a", revision: second), .taken, "an expired claim is not renewed")
        guard case .written = try bucketB.create("source.door", "b") else { return XCTFail("b takes it") }
        XCTAssertEqual(try bucketA.get("source.door")?.value, "b")
    }

    /// A watch sees what another client writes and deletes, and a key left unwritten for a TTL
    /// (the bucket's expiry sends no message) drops out of its view.
    func testAWatchSeesWritesDeletesAndSilence() throws {
        let cluster = try NATSCluster(nodes: 1, name: "watch")
        defer { cluster.stop() }
        let a = try NATSClient(.init(servers: cluster.urls, name: "a", timeoutMilliseconds: 2000))
        let b = try NATSClient(.init(servers: cluster.urls, name: "b", timeoutMilliseconds: 2000))
        let bucketA = try ClaimBucket(a, name: "claims", ttlMilliseconds: 1000, replicas: 1)
        let bucketB = try ClaimBucket(b, name: "claims", ttlMilliseconds: 1000, replicas: 1)
        try bucketA.put("member.before", "there before the watch")
        let watch = try BucketWatch(bucketB, now: 0, timeoutMilliseconds: 2000)
        XCTAssertEqual(try watch.live(now: 0, ttl: 1_000_000_000), ["member.before": "there before the watch"])
        try bucketA.put("source.door", "a")
        try bucketA.put("source.yard", "a")
        try bucketA.delete("member.before")
        usleep(200_000)
        XCTAssertEqual(try watch.live(now: 1, ttl: 1_000_000_000), ["source.door": "a", "source.yard": "a"])
        try bucketA.put("source.door", "a again")
        usleep(200_000)
        XCTAssertEqual(try watch.live(now: 1_500_000_000, ttl: 1_000_000_000), ["source.door": "a again"], "yard unwritten for the TTL")
        XCTAssertEqual(watch.lastSeen("source.door"), 1_500_000_000)
        XCTAssertEqual(watch.lastValue("source.yard"), "a", "who held an expired claim")
        XCTAssertNil(watch.lastValue("member.before"), "a deleted key has no holder")
        _ = try watch.live(now: 4_100_000_000, ttl: 1_000_000_000)
        XCTAssertNil(watch.lastValue("source.yard"), "forgotten after four TTLs")
        XCTAssertEqual(watch.lastValue("source.door"), "a again")
    }
}
