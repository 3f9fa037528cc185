import Foundation
import XCTest

/// Real `nats-server`s with JetStream on loopback for the fleet's tests: one, or a cluster of three
/// routed to each other. Each keeps its store in a directory of its own, emptied at the start.
/// Its ports are ones the kernel gives as free (not fixed ones, which fall in the range it hands to
/// outgoing connections), and one more for the test's cameras (`sparePort`).
final class NATSCluster {
    private(set) var servers: [Process?]
    let clientPorts: [UInt16]
    /// A free port beside the servers', for the test's own server.
    let sparePort: UInt16
    /// Each node's monitoring port (/jsz).
    let monitorPorts: [UInt16]
    private let arguments: [[String]]
    /// The nodes' config files, holding the clients' user and password, when they are set so
    /// (`rotatePassword` changes them while the servers run).
    private let configFiles: [URL]
    /// The reloadable node's settings, beside its credentials.
    private let configuration: [String]

    /// The servers' client URLs, as a config lists them.
    var urls: [String] { clientPorts.map { "nats://127.0.0.1:\($0)" } }

    /// `user` and `password`: what clients must give (routes between the nodes need none).
    /// `advertises`: false keeps the nodes from telling clients of each other, so that a client knows
    /// only the servers it was given (a partition can cut it off).
    /// `reloadable`: the credentials are in a config file that `rotatePassword` rewrites.
    init(nodes: Int, name: String, user: String? = nil, password: String? = nil, advertises: Bool = true,
         reloadable: Bool = false) throws {
        let ports = try Harness.freeTCPPorts(3 * nodes + 1)
        clientPorts = Array(ports[0..<nodes])
        let routePorts = Array(ports[nodes..<2 * nodes])
        monitorPorts = Array(ports[2 * nodes..<3 * nodes])
        sparePort = ports[3 * nodes]
        let routes = routePorts.map { "nats://127.0.0.1:\($0)" }.joined(separator: ",")
        let stores = try (0..<nodes).map { try Harness.emptyDirectory("\(name)-nats-\($0)") }
        precondition(!reloadable || nodes == 1, "a reloadable cluster is one node")
        // A reload reads the file alone: what flags said would be changes it refuses or makes.
        configFiles = reloadable ? [Harness.temporaryFile("\(name)-nats.conf")] : []
        configuration = !reloadable ? [] : ["listen: 127.0.0.1:\(clientPorts[0])", "http: 127.0.0.1:\(monitorPorts[0])",
                                            "server_name: n0", "jetstream { store_dir: \"\(stores[0].path)\" }"]
        if reloadable { try Self.writeConfig(configFiles[0], configuration, user ?? "", password ?? "") }
        arguments = (0..<nodes).map { [clientPorts, monitorPorts, configFiles] i in
            let store = stores[i]
            if !configFiles.isEmpty { return ["-c", configFiles[i].path] }
            var a = ["-a", "127.0.0.1", "-p", "\(clientPorts[i])", "-m", "\(monitorPorts[i])", "-js", "-sd", store.path, "-n", "n\(i)"]
            if let user, let password { a += ["--user", user, "--pass", password] }
            if nodes > 1 {
                a += ["--cluster_name", "rtprecv-test", "--cluster", "nats://127.0.0.1:\(routePorts[i])", "--routes", routes]
                if !advertises { a += ["--no_advertise=true"] }
            }
            return a
        }
        servers = Array(repeating: nil, count: nodes)
        do {
            for i in 0..<nodes { try start(i) }
            try awaitMetaLeader()
        } catch {
            stop()
            throw error
        }
    }

    /// Until the nodes agree on JetStream's metadata leader: before that, no bucket can be made.
    func awaitMetaLeader() throws {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            let up = servers.indices.filter { servers[$0] != nil }
            let leaders = up.compactMap { i -> String? in
                guard let r = try? Harness.run("curl", ["-s", "--max-time", "1", "http://127.0.0.1:\(monitorPorts[i])/jsz"]),
                      let json = try? JSONSerialization.jsonObject(with: r.stdout) as? [String: Any] else { return nil }
                // A single node has no meta cluster: its JetStream is ready once it answers.
                guard let meta = json["meta_cluster"] as? [String: Any] else { return up.count == 1 ? "self" : nil }
                return meta["leader"] as? String
            }
            if leaders.count == up.count, Set(leaders).count == 1, leaders.first?.isEmpty == false { return }
            usleep(100_000)
        }
        throw NSError(domain: "nats-server: no JetStream metadata leader within 15 s", code: 1)
    }

    /// Node `i` (again), once its client port answers.
    func start(_ i: Int) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/nats-server")
        p.arguments = arguments[i]
        p.standardOutput = FileHandle.nullDevice
        let log = Harness.temporaryFile("nats-\(i).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        p.standardError = try FileHandle(forWritingTo: log)
        try p.run()
        servers[i] = p
        let deadline = Date().addingTimeInterval(10)
        while !Harness.tcpPortAnswers(clientPorts[i]) {
            guard Date() < deadline else {
                let said = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").suffix(3).joined(separator: "; ") ?? ""
                throw NSError(domain: "nats-server \(i) did not start: \(said)", code: 1)
            }
            usleep(50_000)
        }
    }

    private static func writeConfig(_ file: URL, _ lines: [String], _ user: String, _ password: String) throws {
        try (lines + ["authorization { user: \"\(user)\", password: \"\(password)\" }", ""]).joined(separator: "\n")
            .write(to: file, atomically: true, encoding: .utf8)
    }

    /// The clients' password changed and every node told to reload its config (SIGHUP): clients
    /// still on the old one are disconnected, and cannot connect again with it.
    func rotatePassword(user: String, to password: String) throws {
        guard !configFiles.isEmpty else { throw NSError(domain: "NATSCluster: made without reloadable: true", code: 1) }
        try Self.writeConfig(configFiles[0], configuration, user, password)
        for case let p? in servers { Foundation.kill(p.processIdentifier, SIGHUP) }
    }

    func kill(_ i: Int) {
        guard let p = servers[i] else { return }
        Foundation.kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        servers[i] = nil
    }

    /// Node `i` paused (SIGSTOP) or resumed: a partition its clients cannot tell from a lost network.
    func pause(_ i: Int, _ paused: Bool) {
        if let p = servers[i] { Foundation.kill(p.processIdentifier, paused ? SIGSTOP : SIGCONT) }
    }

    func stop() {
        for i in servers.indices { pause(i, false) }
        for i in servers.indices { kill(i) }
    }
}
