import PcapInput
import RTPCore
import SystemIO

/// `--tls-keylog FILE`: the SRTP keys of a capture's DTLS-SRTP handshakes, from the master secrets a
/// TLS key log holds for their client randoms. A first walk of the capture finds the handshakes
/// (their hellos are in the clear); each one the log names gives both directions' keys, which the
/// run then tries as it tries every key given.
enum DTLSKeyLogKeys {
    static func keys(_ options: Options) throws -> [SRTPMasterKey] {
        guard let path = options.tlsKeyLog else { return [] }
        let log: TLSKeyLog
        do {
            log = TLSKeyLog(text: try Terminal.readFile(path))
        } catch {
            throw RunError(description: "--tls-keylog \(path): \(error)")
        }
        let handshakes = try self.handshakes(in: options)
        var keys: [SRTPMasterKey] = []
        var suites: [String] = []
        for handshake in handshakes {
            guard let secret = log.masterSecrets[handshake.clientRandom] else { continue }
            do {
                let material = try handshake.keyingMaterial(masterSecret: secret, origin: "--tls-keylog \(path)")
                keys += [material.client, material.server]
                suites.append(material.client.suite.rawValue)
            } catch {
                if !options.quiet { Terminal.printError("warning: \(error)\n") }
            }
        }
        if !options.quiet { say(handshakes: handshakes.count, keyed: suites, log: log, path: path) }
        return keys
    }

    /// Every DTLS-SRTP handshake of the capture, in the order of their server hellos.
    private static func handshakes(in options: Options) throws -> [DTLSSRTPHandshake] {
        let capture = try openCapture(options.pcap!)
        var collector = DTLSHandshakeCollector()
        var tcp = InterleavedCapture(framing: options.tcpFraming)
        var skipped: [FrameSkip: Int] = [:]
        _ = try capture.forEachDatagram(skipped: &skipped, tcp: &tcp) { p in
            if p.channel == nil { collector.datagram(p.bytes, from: p.source, to: p.destination) }
            return true
        }
        return collector.handshakes
    }

    private static func say(handshakes: Int, keyed suites: [String], log: TLSKeyLog, path: String) {
        var line = "tls keylog: \(handshakes) DTLS-SRTP handshake\(handshakes == 1 ? "" : "s") in the capture, "
            + "\(suites.count) with \(suites.count == 1 ? "its" : "their") master secret in \(path)"
            + (suites.isEmpty ? "" : " (" + Set(suites).sorted().joined(separator: ", ") + ", both directions)")
        if suites.isEmpty && log.tls13Lines > 0 { line += "; its TLS 1.3 lines are not read (DTLS 1.3 is not derived)" }
        if !log.unreadLines.isEmpty { line += "; lines not read: " + log.unreadLines.map(String.init).joined(separator: ", ") }
        Terminal.printError((suites.isEmpty ? "warning: " : "") + line + "\n")
    }
}
