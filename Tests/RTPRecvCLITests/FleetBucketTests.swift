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
}
