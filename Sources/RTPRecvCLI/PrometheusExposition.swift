import RTPCore
import SRTP

/// The Prometheus text exposition format (version 0.0.4): each metric family once, with HELP and
/// TYPE, then a sample per label set. The counts come from the tables the statistics JSON reads
/// too: `StreamStatistics.counters`, and the `counts` of the session, SRTP, every output, RTCP and RTMP.
struct PrometheusExposition {
    /// Families in the order first seen, each with its samples, which must stand together.
    private var families: [(name: String, type: String, help: String, samples: [String])] = []
    private var index: [String: Int] = [:]
    /// Labels every sample carries first (`source="door"` in a config's process).
    var labels = ""

    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// `other`'s samples beside these, each in its family.
    mutating func add(_ other: PrometheusExposition) {
        for f in other.families {
            family(f.name, type: f.type, help: f.help)
            families[index[f.name]!].samples += f.samples
        }
    }

    private mutating func family(_ name: String, type: String, help: String) {
        guard index[name] == nil else { return }
        families.append((name, type, help, []))
        index[name] = families.count - 1
    }

    var text: String {
        families.map { f in "# HELP \(f.name) \(f.help)\n# TYPE \(f.name) \(f.type)\n" + f.samples.joined() }.joined()
    }

    /// One stream's counts, labelled by SSRC, payload type, media and the port it came to (one SSRC
    /// on two ports is two streams).
    mutating func stream(_ followed: FollowedStream, lastPacketAge: Double?) {
        let s = followed.statistics
        let labels = "ssrc=\"\(hex(s.ssrc))\",pt=\"\(s.payloadType)\",media=\"\(followed.media)\""
            + (s.destination.map { ",port=\"\($0.port)\"" } ?? "")
        sum("rtprecv_", [s.counters], labels: labels)
        sum("rtprecv_retransmissions_", [s.retransmissions.counts], labels: labels)
        if let audio = s.audio { sum("rtprecv_audio_", [audio.counts], labels: labels) }
        for reason in FrameRecord.Reason.allCases {
            sample("rtprecv_frames_dropped_total", type: "counter", help: "frames dropped, by reason",
                   labels: labels + ",reason=\"\(reason.code)\"", value: Double(s.frames.dropped(reason)))
        }
        sample("rtprecv_jitter_seconds", type: "gauge", help: "interarrival jitter (RFC 3550 A.8)", labels: labels,
               value: s.jitterMilliseconds / 1000)
        if let written = followed.written {
            sample("rtprecv_stream_bytes_written_total", type: "counter", help: "Annex-B bytes written of the stream",
                   labels: labels, value: Double(written.bytes))
            sample("rtprecv_segments_total", type: "counter", help: "files begun (--segment-seconds; 0 without)",
                   labels: labels, value: Double(written.segments))
            sample("rtprecv_recordings_deleted_total", type: "counter", help: "recording segments deleted (--retain-hours, --retain-size)",
                   labels: labels, value: Double(written.deleted))
        }
        if let lastPacketAge {
            sample("rtprecv_last_packet_age_seconds", type: "gauge", help: "time since the stream's last packet", labels: labels,
                   value: lastPacketAge)
        }
    }

    /// The counts of runs (one, or a fan-out's) summed over them: their sessions'
    /// (`rtprecv_session_*`), SRTP's by SSRC (`rtprecv_srtp_*`), each container's (`rtprecv_mp4_*`),
    /// FLV's, the decoder's, the audio files' (`rtprecv_flv_*`, `rtprecv_decode_*`, `rtprecv_audio_file_*`,
    /// `rtprecv_wav_*`), the RTCP sent (`rtprecv_rtcp_*`) and RTMP's (`rtprecv_rtmp_*`).
    mutating func counts(of runs: [Run]) {
        sum("rtprecv_session_", runs.map { $0.receiver.counters.counts })
        // The runs of one session share its decryptor: each counted once.
        var decryptors: [ObjectIdentifier: SRTPDecryptor] = [:]
        for run in runs { if let s = run.security { decryptors[ObjectIdentifier(s)] = s } }
        var srtp: [UInt32: [[Count]]] = [:]
        for (ssrc, counters) in decryptors.values.flatMap(\.counters) { srtp[ssrc, default: []].append(counters.counts) }
        for (ssrc, tables) in srtp.sorted(by: { $0.key < $1.key }) {
            sum("rtprecv_srtp_", tables, labels: "ssrc=\"\(hex(ssrc))\"")
        }
        for container in Container.allCases {
            let recordings = runs.flatMap { $0.sink.containers.filter { $0.container == container } }
            sum("rtprecv_\(container.rawValue)_", recordings.map(\.statistics.counts))
        }
        sum("rtprecv_flv_", runs.compactMap { $0.sink.flv?.muxer.statistics.counts })
        sum("rtprecv_decode_", runs.compactMap { $0.sink.decoding?.counts })
        sum("rtprecv_audio_file_", runs.compactMap { $0.sink.audio?.counts })
        sum("rtprecv_wav_", runs.compactMap { $0.sink.wav?.counts })
        sum("rtprecv_rtcp_", runs.compactMap { $0.feedback?.reporter.statistics.counts })
        sum("rtprecv_rtmp_", runs.compactMap { $0.sink.rtmp?.statistics.counts })
    }

    /// `tables` (each the same counts) summed: `<prefix><name>_total`, labelled by kind where
    /// counted by kind; a gauge is `<prefix><name>`, the highest of the tables'.
    private mutating func sum(_ prefix: String, _ tables: [[Count]], labels: String = "") {
        var totals: [String: Int] = [:], byKind: [String: [String: Int]] = [:]
        for count in tables.joined() {
            totals[count.name] = count.isGauge ? max(totals[count.name] ?? 0, count.value) : (totals[count.name] ?? 0) + count.value
            for k in count.kinds ?? [] { byKind[count.name, default: [:]][k.kind, default: 0] += k.value }
        }
        for count in tables.first ?? [] {
            let (base, scale) = Self.baseUnit(count.name)
            let total = Double(totals[count.name] ?? 0) * scale
            if count.isGauge {
                sample(prefix + base, type: "gauge", help: count.help, labels: labels, value: total)
                continue
            }
            let name = prefix + base + "_total"
            guard count.kinds != nil else {
                sample(name, type: "counter", help: count.help, labels: labels, value: total)
                continue
            }
            for (kind, value) in (byKind[count.name] ?? [:]).sorted(by: { $0.key < $1.key }) {
                sample(name, type: "counter", help: count.help, labels: (labels.isEmpty ? "" : labels + ",") + "kind=\"\(kind)\"",
                       value: Double(value))
            }
        }
    }

    /// The name in Prometheus's base unit, and the factor to it: seconds for a count the JSON keeps
    /// in ms or µs (`rtt_us`).
    private static func baseUnit(_ name: String) -> (name: String, scale: Double) {
        for (suffix, scale) in [("_ms", 1e-3), ("_us", 1e-6)] where name.hasSuffix(suffix) {
            return (String(name.dropLast(suffix.count)) + "_seconds", scale)
        }
        return (name, 1)
    }

    /// A sample without labels beyond `labels` (empty for the process's own counts).
    mutating func sample(_ name: String, type: String, help: String, labels: String = "", value: Double) {
        family(name, type: type, help: help)
        let rendered = value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        let all = self.labels.isEmpty ? labels : labels.isEmpty ? self.labels : self.labels + "," + labels
        families[index[name]!].samples.append(name + (all.isEmpty ? "" : "{\(all)}") + " \(rendered)\n")
    }
}
