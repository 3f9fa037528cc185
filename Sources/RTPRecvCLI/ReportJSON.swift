import RTPCore

/// The report as JSON, for programs (`--stats-json`): the session's counters, each output's, every
/// stream's.
extension Report {
    func json() -> String {
        var root = input.json
        root += receiver.counters.counts.map { count in
            (count.name, count.kinds.map { .object($0.map { ($0.kind, .int($0.value)) }) } ?? .int(count.value))
        }
        root += [
            ("bytes_written", .int(outputs.bytesWritten)),
            ("segments", .int(outputs.segmentCount)),
            ("reopens", .int(outputs.reopens)),
        ]
        root += [latencyJSON(), flvJSON(), rtcpJSON(), rtmpJSON(), decodeJSON()].compactMap { $0 }
        root += outputs.containers.map { ($0.container.rawValue, .object(Report.json($0.statistics.counts.fields))) }
        if let r = outputs.retention {
            root.append(("retention", .object([("files_deleted", .int(r.filesDeleted)), ("bytes_deleted", .int(Int(r.bytesDeleted)))])))
        }
        root.append(("streams", .array(streams.map(streamJSON))))
        root.append(("audio_streams", .array(audioStreams.map(streamJSON))))
        root += [wavJSON(), audioFileJSON(), srtpJSON()].compactMap { $0 }
        root.append(("other_streams", .array(receiver.otherStreams.values.sorted { $0.ssrc < $1.ssrc }.map {
            .object([("ssrc", .int(Int($0.ssrc))), ("payload_type", .int(Int($0.payloadType))), ("packets", .int($0.packets))])
        })))
        return JSON.object(root).serialized + "\n"
    }

    /// A latency's percentiles and maximum, in µs, and how many frames it counts.
    private static func json(latency l: LatencyHistogram) -> JSON {
        .object([("p50", .int(l.percentile(0.5))), ("p99", .int(l.percentile(0.99))), ("max", .int(l.maxMicroseconds)),
                 ("frames", .int(l.count))])
    }

    /// Live: from the last packet of a frame to its write.
    private func latencyJSON() -> (String, JSON)? {
        let l = outputs.latency
        guard l.count > 0 else { return nil }
        return ("write_latency_us", Self.json(latency: l))
    }

    /// `--flv`.
    private func flvJSON() -> (String, JSON)? {
        guard let f = outputs.flv?.muxer.statistics else { return nil }
        return ("flv", .object(Report.json(f.counts.fields)))
    }

    /// RTCP sent back to the senders.
    private func rtcpJSON() -> (String, JSON)? {
        guard let feedback else { return nil }
        return ("rtcp_sent", .object(Report.json(feedback.reporter.statistics.counts.fields)
                                            + [("send_failures", .int(feedback.sendFailures)),
                                               ("destination", feedback.lastDestination.map { .string($0.description) } ?? .null)]))
    }

    /// `--rtmp`.
    private func rtmpJSON() -> (String, JSON)? {
        guard let rtmp = outputs.rtmp else { return nil }
        let r = rtmp.statistics
        var fields: [(String, JSON)] = [("url", .string(rtmp.displayURL))] + Report.json(r.counts.fields)
        if r.latency.count > 0 {
            fields.append(("latency_us", Self.json(latency: r.latency)))
        }
        return ("rtmp", .object(fields))
    }

    /// `--decode` and what it feeds.
    private func decodeJSON() -> (String, JSON)? {
        guard let d = outputs.decoding else { return nil }
        return ("decode", .object(Report.json(d.counts.fields) + [
            ("pixel_format", d.nativeFormat.map { .string($0.description) } ?? .null),
            ("sizes", .array(d.sizes.map { .object([("width", .int($0.width)), ("height", .int($0.height)),
                                                    ("first_frame", .int($0.firstFrame))]) })),
        ]))
    }

    /// `--wav`.
    private func wavJSON() -> (String, JSON)? {
        outputs.wav.map { ("wav", .object(Report.json($0.counts.fields))) }
    }

    /// `--audio`.
    private func audioFileJSON() -> (String, JSON)? {
        outputs.audio.map { ("audio_file", .object(Report.json($0.counts.fields))) }
    }

    /// SRTP: the keys, and each SSRC's counts.
    private func srtpJSON() -> (String, JSON)? {
        guard let security else { return nil }
        return ("srtp", .object([
            ("keys", .int(security.keys.count)),
            ("ssrcs", .array(security.counters.sorted { $0.key < $1.key }.map { ssrc, c in
                .object([("ssrc", .int(Int(ssrc))), ("key", security.key(of: ssrc).map { .string($0.description) } ?? .null)]
                        + Report.json(c.counts.fields))
            })),
        ]))
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
            ("retransmissions", .object(Report.json(s.retransmissions.counts.fields))),
            ("cname", s.cname.map(JSON.string) ?? .null),
            ("bye", .bool(s.goodbye)),
            ("sr_synchronized_after_s", synchronization(s).map { .double($0.after) } ?? .null),
            ("sr_correction_ms", synchronization(s).map { .int(Int($0.correction)) } ?? .null),
            ("sr_rejected", .int(receiver.clock.streams[s.ssrc]?.rejectedReports ?? 0)),
            ("sr_clock_steps", .int(receiver.clock.streams[s.ssrc]?.clockSteps ?? 0)),
        ] + Report.json(s.counters.fields)
        if let audio = s.audio {
            fields.append(("codec", .string(audio.track.codec.name)))
            fields.append(("sample_rate", .int(audio.track.sampleRate)))
            fields.append(("channels", .int(audio.track.channels)))
            fields += Report.json(audio.counts.fields)
            fields.append(("telephone_events", .array(audio.telephoneEvents.map { .string($0.name) })))
            fields.append(("invalid_audio", Report.json(counts: audio.invalid)))
        }
        if let video = s.video {
            fields.append(("codec", .string(video.codec.rawValue)))
            fields.append(("width", .int(video.width)))
            fields.append(("height", .int(video.height)))
            fields.append(("profile_idc", .int(video.profileIdc)))
            if let tier = video.tier { fields.append(("tier", .string(tier.lowercased()))) }
            if let level = video.levelIdc { fields.append(("level_idc", .int(level))) }
            fields.append(("bit_depth", .int(video.bitDepthLuma)))
            fields.append(("chroma_format_idc", .int(video.chromaFormatIdc)))
        }
        return .object(fields)
    }
}
