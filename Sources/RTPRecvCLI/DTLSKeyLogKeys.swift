import PcapInput
import RTPCore
import SystemIO

/// `--tls-keylog FILE`, or a pcapng capture's own key log (its decryption secrets blocks, as
/// `editcap --inject-secrets tls,FILE` embeds it): the SRTP keys of the capture's DTLS-SRTP
/// handshakes, from the master secrets the log holds for their client randoms. A first walk of the
/// capture finds the handshakes (their hellos are in the clear); each one the log names gives both
/// directions' keys, which the run then tries as it tries every key given.
enum DTLSKeyLogKeys {
    /// `embedded`: the key log of the capture the run opened, if it has one. Only with a key log is
    /// the capture opened again, for the walk.
    static func keys(_ options: Options, embedded: String?) throws -> [SRTPMasterKey] {
        guard options.tlsKeyLog != nil || embedded != nil else { return [] }
        guard let pcap = options.pcap, canReadTwice(pcap) else {
            guard let path = options.tlsKeyLog else { return [] }
            throw RunError(description: "--tls-keylog \(path): \(options.pcap ?? "-") is a pipe, which cannot be walked first "
                           + "for its DTLS handshakes: save the capture to a file")
        }
        var texts: [String] = [], origins: [String] = []
        if let path = options.tlsKeyLog {
            do {
                texts.append(try Terminal.readFile(path))
            } catch {
                throw RunError(description: "--tls-keylog \(path): \(error)")
            }
            origins.append(path)
        }
        if let embedded {
            texts.append(embedded)
            origins.append("the capture's secrets block")
        }
        let log = TLSKeyLog(text: texts.joined(separator: "\n"))
        let origin = origins.joined(separator: " and ")
        let handshakes = try self.handshakes(in: try openCapture(pcap), options: options)
        var keys: [SRTPMasterKey] = []
        var suites: [String] = []
        for handshake in handshakes {
            guard let secret = log.masterSecrets[handshake.clientRandom] else { continue }
            do {
                let material = try handshake.keyingMaterial(masterSecret: secret, origin: "the TLS key log of \(origin)")
                keys += [material.client, material.server]
                suites.append(material.client.suite.rawValue)
            } catch {
                if !options.quiet { Terminal.printError("warning: \(error)\n") }
            }
        }
        if !options.quiet { say(handshakes: handshakes.count, keyed: suites, log: log, origin: origin) }
        return keys
    }

    /// Every DTLS-SRTP handshake of the capture, in the order of their server hellos.
    private static func handshakes(in capture: CaptureFile, options: Options) throws -> [DTLSSRTPHandshake] {
        var collector = DTLSHandshakeCollector()
        var tcp = InterleavedCapture(framing: options.tcpFraming)
        var skipped: [FrameSkip: Int] = [:]
        _ = try capture.forEachDatagram(skipped: &skipped, tcp: &tcp) { p in
            if p.channel == nil { collector.datagram(p.bytes, from: p.source, to: p.destination) }
            return true
        }
        return collector.handshakes
    }

    private static func say(handshakes: Int, keyed suites: [String], log: TLSKeyLog, origin: String) {
        var line = "tls keylog: \(handshakes) DTLS-SRTP handshake\(handshakes == 1 ? "" : "s") in the capture, "
            + "\(suites.count) with \(suites.count == 1 ? "its" : "their") master secret in \(origin)"
            + (suites.isEmpty ? "" : " (" + Set(suites).sorted().joined(separator: ", ") + ", both directions)")
        if suites.isEmpty && log.tls13Lines > 0 { line += "; its TLS 1.3 lines are not read (DTLS 1.3 is not derived)" }
        if !log.unreadLines.isEmpty { line += "; lines not read: " + log.unreadLines.map(String.init).joined(separator: ", ") }
        Terminal.printError((suites.isEmpty ? "warning: " : "") + line + "\n")
    }
}
