import Foundation
import XCTest

/// Real `nats-server`s with JetStream on loopback for the fleet's tests: one, or a cluster of three
/// routed to each other. Each keeps its store in a directory of its own, emptied at the start.
final class NATSCluster {
    private(set) var servers: [Process?]
    let clientPorts: [UInt16]
    private let arguments: [[String]]

    /// The servers' client URLs, as a config lists them.
    var urls: [String] { clientPorts.map { "nats://127.0.0.1:\($0)" } }

    init(nodes: Int, name: String) throws {
        let base = 42000 + Int(getpid() % 300) * 10
        clientPorts = (0..<nodes).map { UInt16(base + $0) }
        let routes = (0..<nodes).map { "nats://127.0.0.1:\(base + 5 + $0)" }.joined(separator: ",")
        arguments = try (0..<nodes).map { i in
            let store = try Harness.emptyDirectory("\(name)-nats-\(i)")
            var a = ["-a", "127.0.0.1", "-p", "\(base + i)", "-js", "-sd", store.path, "-n", "n\(i)"]
            if nodes > 1 {
                a += ["--cluster_name", "rtprecv-test", "--cluster", "nats://127.0.0.1:\(base + 5 + i)", "--routes", routes]
            }
            return a
        }
        servers = Array(repeating: nil, count: nodes)
        for i in 0..<nodes { try start(i) }
    }

    /// Node `i` (again), once its client port answers.
    func start(_ i: Int) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/nats-server")
        p.arguments = arguments[i]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        servers[i] = p
        let deadline = Date().addingTimeInterval(10)
        while !Harness.tcpPortAnswers(clientPorts[i]) {
            guard Date() < deadline else { throw NSError(domain: "nats-server \(i) did not start", code: 1) }
            usleep(50_000)
        }
    }

    func kill(_ i: Int) {
        guard let p = servers[i] else { return }
        Foundation.kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        servers[i] = nil
    }

    func stop() {
        for i in servers.indices { kill(i) }
    }
}
