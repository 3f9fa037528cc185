import RTMPOutput
import RTPCore
import SRTP
import SystemIO

/// The statistics printed at exit, as text for people and as JSON for programs.
struct Report {
    /// What the input says about itself: a summary line or two, a warning, and JSON fields.
    struct Input {
        var summary: String
        var warning: String?
        var json: [(String, JSON)]
    }

    let input: Input
    let receiver: Receiver
    let outputs: Outputs
    let security: SRTPDecryptor?
    let feedback: RTCPFeedback?

    /// SSRCs no packet of which was decrypted, and why: said once each, as warnings.
    var securityWarnings: [String] {
        guard let security else { return [] }
        return security.counters.sorted { $0.key < $1.key }.compactMap { ssrc, c in
            guard c.decrypted + c.decryptedControl == 0 else { return nil }
            if security.keys.isEmpty {
                return "\(hex(ssrc)): encrypted (SRTP?): the SDP says SAVP and no key was given (--srtp-key, or a=crypto in the SDP); "
                    + "\(c.failed) packets not parsed"
            }
            guard let auth = c.failures[.authentication], auth > 0 else { return nil }
            return "\(hex(ssrc)): every packet failed SRTP authentication: wrong key or suite? (\(auth) packets, "
                + "\(security.keys.count) \(security.keys.count == 1 ? "key" : "keys") tried)"
        }
    }

    var streams: [StreamStatistics] {
        receiver.previousStreams + (receiver.selected.map { [$0.statistics] } ?? [])
    }

    var audioStreams: [StreamStatistics] {
        receiver.previousAudioStreams + (receiver.audio.map { [$0.statistics] } ?? [])
    }


    /// When the session clock took a stream's times from its sender reports, and how far that moved it.
    func synchronization(_ s: StreamStatistics) -> (after: Double, correction: Int64)? {
        guard let stream = receiver.clock.streams[s.ssrc], let at = stream.synchronizedAt else { return nil }
        return (Double(max(0, at - s.firstArrival)) / 1e9, stream.correction / 1_000_000)
    }

    /// The frame counts, in the ledger's terms: what was written, what was dropped and why.
    static func frames(_ t: FrameTally) -> String {
        var written: [String] = ["\(t.keyframesWritten) keyframes"]
        if t.repaired > 0 { written.append("\(t.repaired) repaired from cached parameter sets") }
        if t.writtenWithDamagedReferences > 0 { written.append("\(t.writtenWithDamagedReferences) after a lost reference") }
        var line = "\(t.written) written (" + written.joined(separator: ", ") + "), \(t.droppedTotal) dropped"
        let reasons = FrameRecord.Reason.allCases.filter { t.dropped($0) > 0 }
        if !reasons.isEmpty { line += ": " + reasons.map { "\(t.dropped($0)) \($0.description)" }.joined(separator: ", ") }
        if t.beforeFirstKeyframe > 0 { line += "; \(t.beforeFirstKeyframe) before the first keyframe" }
        return line
    }

    /// Audio frames: written, and dropped by reason (no keyframes, no repair).
    static func audioFrames(_ t: FrameTally) -> String {
        var line = "\(t.written) written, \(t.droppedTotal) dropped"
        let reasons = FrameRecord.Reason.allCases.filter { t.dropped($0) > 0 }
        if !reasons.isEmpty { line += ": " + reasons.map { "\(t.dropped($0)) \($0.description)" }.joined(separator: ", ") }
        return line
    }

    /// Named counts as the text shows them, "3 pli sent, 1 bye sent", leaving out the zeros but
    /// those `keeping` names.
    static func counts(_ fields: [(name: String, value: Int)], keeping: Set<String> = []) -> [String] {
        fields.filter { $0.value > 0 || keeping.contains($0.name) }.map { field in
            var words = field.name.split(separator: "_")
            // A duration reads as "rtt 250 µs", a count as "3 nack sent".
            if let unit = words.last, let symbol = ["ms": "ms", "us": "µs"][String(unit)] {
                words.removeLast()
                return "\(words.joined(separator: " ")) \(field.value) \(symbol)"
            }
            return "\(field.value) \(words.joined(separator: " "))"
        }
    }

    /// A table's counts as the text shows them, those counted by kind with their kinds:
    /// "12 rtcp, 14 rtcp packets (10 sender reports, 4 receiver reports)"; zeros left out.
    static func counts(_ table: [Count]) -> [String] {
        table.filter { $0.value > 0 }.map { count in
            let text = counts([(count.name, count.value)])[0]
            guard let kinds = count.kinds?.filter({ $0.value > 0 }), !kinds.isEmpty else { return text }
            return text + " (" + kinds.map { "\($0.value) \($0.kind)" }.joined(separator: ", ") + ")"
        }
    }

    /// `--all-streams`' statistics in one file: the input's fields, then each stream's report
    /// (JSON objects already) under `all_streams`.
    /// A fan-out's statistics: the input's, `extra` counts, and each run's report (JSON) in `field`.
    static func fanOutJSON(_ input: Input, extra: [(String, Int)], field: String, runs: [String]) -> String {
        let root = input.json + json(extra.map { (name: $0.0, value: $0.1) })
        return String(JSON.object(root).serialized.dropLast()) + ",\"\(field)\":[" + runs.joined(separator: ",") + "]}\n"
    }

    /// Named counts as JSON fields.
    static func json(_ fields: [(name: String, value: Int)]) -> [(String, JSON)] {
        fields.map { ($0.name, .int($0.value)) }
    }

    /// "telephone-event: digits 1 2 3", in the order they came.
    static func telephoneEvents(_ audio: AudioStreamStatistics) -> String {
        let more = audio.telephoneEventCount > audio.telephoneEvents.count ? " … (\(audio.telephoneEventCount) in all)" : ""
        return "telephone-event: digits " + audio.telephoneEvents.map(\.name).joined(separator: " ") + more
    }

    static func describe(_ pairs: [(String, Int)]) -> String {
        // The most first; equal counts by name, so that the text is the same from run to run.
        pairs.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.map { "\($0.1) \($0.0)" }.joined(separator: ", ")
    }

    /// Counts by reason, the most first.
    static func describe<Reason: RawRepresentable<String>>(_ counts: [Reason: Int]) -> String {
        describe(counts.map { ($0.key.rawValue, $0.value) })
    }

    /// Counts by reason as a JSON object, its keys in order (a dictionary has none of its own).
    static func json<Reason: RawRepresentable<String>>(counts: [Reason: Int]) -> JSON {
        .object(counts.map { ($0.key.rawValue, .int($0.value)) }.sorted { $0.0 < $1.0 })
    }

    func format(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// Just enough JSON to write the statistics with keys in a stable order.
indirect enum JSON {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case array([JSON])
    case object([(String, JSON)])

    var serialized: String {
        switch self {
        case .string(let s): return JSON.quote(s)
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? String(d) : "null"
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array(let items): return "[" + items.map(\.serialized).joined(separator: ",") + "]"
        case .object(let fields):
            return "{" + fields.map { JSON.quote($0.0) + ":" + $0.1.serialized }.joined(separator: ",") + "}"
        }
    }

    /// `s` as a JSON string, masked as every message is (`Terminal.masked`).
    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in Terminal.masked(s).unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    let h = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

