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

    func json() -> String {
        let c = receiver.counters
        var root = input.json
        root += [
            ("datagrams", .int(c.datagrams)),
            ("invalid_rtp", Report.json(counts: c.invalidRTP)),
            ("other_port", .int(c.otherPort)),
            ("rtcp", .int(c.rtcp)),
            ("rtcp_packets", .object(RTCPPacket.Kind.allCases.map { ($0.rawValue, .int(c.rtcpPackets[$0] ?? 0)) })),
            ("streams_over_limit", .int(c.streamsOverLimit)),
            ("ssrc_changes", .int(c.ssrcChanges)),
            ("audio_ssrc_changes", .int(c.audioSSRCChanges)),
            ("other_ssrc", .int(c.otherSSRC)),
            ("other_payload_type", .int(c.otherPayloadType)),
            ("retransmissions", .int(c.retransmissions)),
            ("retransmissions_unmatched", .int(c.retransmissionsUnmatched)),
            ("bytes_written", .int(outputs.bytesWritten)),
            ("segments", .int(outputs.segmentCount)),
            ("reopens", .int(outputs.reopens)),
        ]
        let l = outputs.latency
        if l.count > 0 {
            root.append(("write_latency_us", .object([("p50", .int(l.percentile(0.5))), ("p99", .int(l.percentile(0.99))),
                                                      ("max", .int(l.maxMicroseconds)), ("frames", .int(l.count))])))
        }
        if let f = outputs.flv?.muxer.statistics {
            root.append(("flv", .object([
                ("frames_written", .int(f.framesWritten)), ("keyframes_written", .int(f.keyframesWritten)),
                ("sequence_headers", .int(f.sequenceHeaders)), ("dropped_after_loss", .int(f.droppedAfterLoss)),
                ("dropped_before_keyframe", .int(f.droppedBeforeKeyframe)), ("dropped_too_large", .int(f.droppedTooLarge)),
                ("dropped_other_codec", .int(f.droppedOtherCodec)),
                ("timestamp_jumps", .int(f.timestampJumps)), ("bytes", .int(f.bytesWritten)),
                ("audio_frames_written", .int(f.audioFramesWritten)), ("audio_frames_not_carried", .int(f.audioFramesNotCarried)),
                ("audio_sequence_headers", .int(f.audioSequenceHeaders)), ("tags_retimed", .int(f.tagsRetimed)),
                ("frames_made_later", .int(f.framesMadeLater)),
                ("duration_ms", .int(Int(f.durationMilliseconds))),
            ])))
        }
        if let feedback {
            root.append(("rtcp_sent", .object(Report.json(feedback.reporter.statistics.fields)
                                                + [("send_failures", .int(feedback.sendFailures)),
                                                   ("destination", feedback.lastDestination.map { .string($0.description) } ?? .null)])))
        }
        if let rtmp = outputs.rtmp {
            let r = rtmp.statistics
            var fields: [(String, JSON)] = [("url", .string(rtmp.displayURL))] + Report.json(r.fields)
            if r.latency.count > 0 {
                fields.append(("latency_us", .object([("p50", .int(r.latency.percentile(0.5))), ("p99", .int(r.latency.percentile(0.99))),
                                                      ("max", .int(r.latency.maxMicroseconds)), ("frames", .int(r.latency.count))])))
            }
            root.append(("rtmp", .object(fields)))
        }
        if let d = outputs.decoding {
            root.append(("decode", .object([
                ("frames_decoded", .int(d.framesDecoded)),
                ("frames_written", .int(d.framesWritten)),
                ("decode_errors", .int(d.decodeErrors)),
                ("damaged_frames_written", .int(d.corruptFramesWritten)),
                ("damaged_frames_skipped", .int(d.corruptFramesSkipped)),
                ("pixel_format", d.nativeFormat.map { .string($0.description) } ?? .null),
                ("sizes", .array(d.sizes.map { .object([("width", .int($0.width)), ("height", .int($0.height)),
                                                        ("first_frame", .int($0.firstFrame))]) })),
            ])))
        }
        root.append(("streams", .array(streams.map(streamJSON))))
        root.append(("audio_streams", .array(audioStreams.map(streamJSON))))
        if let w = outputs.wav {
            root.append(("wav", .object([("frames_decoded", .int(w.framesDecoded)), ("samples", .int(w.samplesWritten)),
                                         ("decode_errors", .int(w.decodeErrors)), ("gaps_filled_with_silence", .int(w.gapsFilled)),
                                         ("silence_ms", .int(Int(w.silenceMilliseconds))), ("gaps_left", .int(w.gapsLeft)),
                                         ("comfort_noise_filled", .int(w.comfortNoiseFilled)),
                                         ("comfort_noise_ms", .int(Int(w.comfortNoiseMilliseconds))),
                                         ("frames_skipped", .int(w.framesSkipped))])))
        }
        if let a = outputs.audio {
            root.append(("audio_file", .object([("frames_written", .int(a.framesWritten)), ("bytes", .int(a.bytesWritten)),
                                                 ("frames_skipped", .int(a.framesSkipped)),
                                                 ("silences_kept", .int(a.silencesKept))])))
        }
        if let security {
            root.append(("srtp", .object([
                ("keys", .int(security.keys.count)),
                ("ssrcs", .array(security.counters.sorted { $0.key < $1.key }.map { ssrc, c in
                    .object([("ssrc", .int(Int(ssrc))), ("key", security.key(of: ssrc).map { .string($0.description) } ?? .null)]
                            + Report.json(c.fields))
                })),
            ])))
        }
        root.append(("other_streams", .array(receiver.otherStreams.values.sorted { $0.ssrc < $1.ssrc }.map {
            .object([("ssrc", .int(Int($0.ssrc))), ("payload_type", .int(Int($0.payloadType))), ("packets", .int($0.packets))])
        })))
        return JSON.object(root).serialized + "\n"
    }

    private func streamJSON(_ s: StreamStatistics) -> JSON {
        var fields: [(String, JSON)] = [
            ("ssrc", .int(Int(s.ssrc))),
            ("payload_type", .int(Int(s.payloadType))),
            ("source", s.source.map { .string($0.description) } ?? .null),
            ("destination", s.destination.map { .string($0.description) } ?? .null),
            ("jitter_ms", .double(s.jitterMilliseconds)),
            ("invalid", Report.json(counts: s.invalidPayload)),
            ("frames_dropped", .object(FrameRecord.Reason.allCases.map { ($0.code, .int(s.frames.dropped($0))) })),
            ("interleaved", .bool(s.interleaved)),
            ("interleaving_depth", s.interleavingDepth.map { .object([("declared", .int($0.declared)), ("needed", .int($0.needed))]) } ?? .null),
            ("notices", .array(s.notices.map { .string($0.description) })),
            ("dropped_rtp_timestamps", .array(s.droppedTimestamps.map { .int(Int($0)) })),
            ("retransmissions", .object(Report.json(s.retransmissions.fields))),
            ("cname", s.cname.map(JSON.string) ?? .null),
            ("bye", .bool(s.goodbye)),
            ("sr_synchronized_after_s", synchronization(s).map { .double($0.after) } ?? .null),
            ("sr_correction_ms", synchronization(s).map { .int(Int($0.correction)) } ?? .null),
            ("sr_rejected", .int(receiver.clock.streams[s.ssrc]?.rejectedReports ?? 0)),
            ("sr_clock_steps", .int(receiver.clock.streams[s.ssrc]?.clockSteps ?? 0)),
        ] + s.counters.map { ($0.name, .int($0.value)) }
        if let audio = s.audio {
            fields.append(("codec", .string(audio.track.codec.name)))
            fields.append(("sample_rate", .int(audio.track.sampleRate)))
            fields.append(("channels", .int(audio.track.channels)))
            fields.append(("gaps", .int(audio.gaps)))
            fields.append(("gap_ms", .int(Int(audio.gapMilliseconds))))
            fields.append(("timestamp_jumps", .int(audio.timestampJumps)))
            fields.append(("comfort_noise_spans", .int(audio.comfortNoiseSpans)))
            fields.append(("comfort_noise_ms", .int(Int(audio.comfortNoiseMilliseconds))))
            fields.append(("telephone_events", .array(audio.telephoneEvents.map { .string($0.name) })))
            fields.append(("invalid_audio", Report.json(counts: audio.invalid)))
        }
        if let video = s.video {
            fields.append(("codec", .string(video.codec.rawValue)))
            fields.append(("width", .int(video.width)))
            fields.append(("height", .int(video.height)))
            fields.append(("profile_idc", .int(video.profileIdc)))
            if let tier = video.tier { fields.append(("tier", .string(tier.lowercased()))) }
            fields.append(("level_idc", .int(video.levelIdc)))
            fields.append(("bit_depth", .int(video.bitDepthLuma)))
            fields.append(("chroma_format_idc", .int(video.chromaFormatIdc)))
        }
        return .object(fields)
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

