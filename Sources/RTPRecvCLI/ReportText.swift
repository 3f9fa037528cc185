import RTPCore

/// The report as text, for people: a block per stream, then what else came, then each output's.
extension Report {
    func text(verbose: Bool) -> String {
        var lines: [String] = [input.summary]
        let c = receiver.counters
        let invalid = c.invalidRTP.values.reduce(0, +)
        if invalid > 0 {
            lines.append("  not RTP    \(invalid): " + Report.describe(c.invalidRTP))
        }
        if streams.isEmpty {
            lines.append("  no " + VideoCodec.listed() + " stream found")
        }
        for s in streams + audioStreams {
            lines += streamLines(s)
            if let audio = s.audio {
                lines += audioLines(s, audio)
            } else {
                lines += videoLines(s, verbose: verbose)
            }
        }
        lines += sessionLines(verbose: verbose)
        lines += outputLines()
        return lines.joined(separator: "\n") + "\n"
    }

    /// What every stream's block opens with: its packets, payloads, RTCP and timing.
    private func streamLines(_ s: StreamStatistics) -> [String] {
        var lines: [String] = []
        lines.append("stream \(hex(s.ssrc)) PT \(s.payloadType)" + (s.audio != nil ? " (audio)" : "")
                     + (s.source.map { ", \($0) -> \(s.destination?.description ?? "?")" } ?? ""))
        lines.append("  packets    \(s.packets) (\(s.bytes) payload bytes), \(s.lost) lost, \(s.duplicates) duplicate, "
                     + "\(s.reordered) reordered, \(s.late) late; jitter \(format(s.jitterMilliseconds)) ms")
        if s.paddingOnly > 0 { lines.append("  padding    \(s.paddingOnly) packets of padding only (bandwidth probes)") }
        if s.otherPayloadType > 0 {
            lines.append("  other PTs  \(s.otherPayloadType) packets of other payload types on its SSRC, counted in its sequence")
        }
        if s.invalidPackets > 0 {
            lines.append("  invalid    \(s.invalidPackets): " + Report.describe(s.invalidPayload))
            // Ciphertext sets the forbidden bit in half its packets; no sender sets it.
            if security == nil, s.packets >= VideoPayloadInvalid.minimumPacketsForCiphertext, VideoPayloadInvalid.looksEncrypted(s.invalidPayload, packets: s.packets) {
                lines.append("  encrypted (SRTP?): most payloads are no video at all; give the key with --srtp-key")
            }
        }
        if s.interleaved {
            let mode = s.codec?.decodingOrder ?? "decoding order"
            var line = "  \(mode): \(s.decodingOrderGaps) DON gaps, \(s.lateInterleavedUnits) units too late"
            if let depth = s.interleavingDepth, depth.needed > depth.declared {
                line += ", interleaving depth \(depth.needed) needed where the SDP said \(depth.declared)"
            }
            if s.notAllowedInInterleavedMode > 0 {
                line += ", \(s.notAllowedInInterleavedMode) packets of types mode 2 does not allow dropped"
            }
            lines.append(line)
        }
        if s.restarts > 0 { lines.append("  restarts   \(s.restarts) (sequence number jumps)") }
        let retransmissions = Report.counts(s.retransmissions.counts.fields)
        if !retransmissions.isEmpty { lines.append("  rtx        " + retransmissions.joined(separator: ", ")) }
        if s.senderReports > 0 || s.cname != nil || s.goodbye {
            var parts: [String] = []
            if s.senderReports > 0 { parts.append("\(s.senderReports) sender reports") }
            if let cname = s.cname { parts.append("CNAME \(cname)") }
            if s.goodbye { parts.append("BYE") }
            lines.append("  RTCP       " + parts.joined(separator: ", "))
        }
        if let sync = synchronization(s) {
            lines.append("  sync       by sender reports from \(format(sync.after)) s after its first packet; that moved it "
                         + "\(sync.correction) ms against the arrival of its packets")
        }
        if let clock = receiver.clock.streams[s.ssrc], clock.rejectedReports > 0 || clock.clockSteps > 0 {
            lines.append("  sync       \(clock.rejectedReports) sender reports not followed (implausible), "
                         + "\(clock.clockSteps) steps of the sender's clock followed")
        }
        return lines
    }

    private func audioLines(_ s: StreamStatistics, _ audio: AudioStreamStatistics) -> [String] {
        var lines: [String] = []
        lines.append("  frames     " + Report.audioFrames(s.frames))
        var line = "  audio      \(audio.track.description)"
        if audio.gaps > 0 { line += "; \(audio.gaps) gaps (\(audio.gapMilliseconds) ms in all) where frames were lost, left as gaps" }
        if audio.silences > 0 { line += "; \(audio.silences) silences the sender left (\(audio.silenceMilliseconds) ms in all)" }
        if audio.timestampJumps > 0 { line += "; \(audio.timestampJumps) timestamp jumps" }
        if audio.comfortNoiseSpans > 0 {
            line += "; \(audio.comfortNoiseSpans) silences sent as comfort noise (\(audio.comfortNoiseMilliseconds) ms in all)"
        }
        lines.append(line)
        if audio.telephoneEventCount > 0 { lines.append("  events     " + Report.telephoneEvents(audio)) }
        if !audio.invalid.isEmpty {
            lines.append("  invalid    \(audio.invalid.values.reduce(0, +)): "
                         + Report.describe(audio.invalid))
        }
        return lines
    }

    private func videoLines(_ s: StreamStatistics, verbose: Bool) -> [String] {
        var lines: [String] = []
        lines.append("  frames     " + Report.frames(s.frames))
        if s.fragmentedUnitsDropped + s.strayFragments > 0 {
            lines.append("  fragments  \(s.fragmentedUnitsDropped) fragmented NAL units dropped incomplete, "
                         + "\(s.strayFragments) fragments without their start")
        }
        if s.aggregationUnitsOverrun > 0 {
            lines.append("  aggregated \(s.aggregationUnitsOverrun) units ran past their packet (size field too large), lost; "
                         + "the units before them kept")
        }
        if s.mtapPacketsWithPrefixInSize > 0 {
            lines.append("  MTAP       \(s.mtapPacketsWithPrefixInSize) packets with unit sizes that count DOND and TS offset")
        }
        if s.retimedFrames > 0 {
            lines.append("  timing     \(s.retimedFrames) frames came with the RTP timestamp of the one before, and were timed anew")
        }
        if s.repeatedParameterSetsRemoved > 0 {
            lines.append("  SPS/PPS    \(s.repeatedParameterSetsRemoved) repeated between the slices of a picture, dropped")
        }
        if s.tooLarge > 0 { lines.append("  too large  \(s.tooLarge) packets over --max-packet-bytes") }
        if let video = s.video { lines.append("  video      \(video.description)") }
        if verbose && !s.droppedTimestamps.isEmpty {
            lines.append("  dropped at RTP timestamps " + s.droppedTimestamps.map(String.init).joined(separator: " "))
        }
        return lines
    }

    /// What came beside the streams: other SSRCs, other ports, RTCP, SRTP, audio left out.
    private func sessionLines(verbose: Bool) -> [String] {
        var lines: [String] = []
        let c = receiver.counters
        let others = receiver.otherStreams.values
        if !others.isEmpty {
            lines.append("other streams: \(others.count) (\(others.reduce(0) { $0 + $1.packets }) packets) ignored")
            if verbose {
                // Most packets first; ties by SSRC, so that the list is the same from run to run.
                for o in others.sorted(by: { ($0.packets, $1.ssrc) > ($1.packets, $0.ssrc) }).prefix(20) {
                    lines.append("  \(hex(o.ssrc)) PT \(o.payloadType): \(o.packets) packets")
                }
            }
        }
        // The session's counts but those above (datagrams, what was not RTP).
        let notes = Report.counts(c.counts.filter { $0.name != "datagrams" && $0.name != "invalid_rtp" })
        if !notes.isEmpty { lines.append("also: " + notes.joined(separator: ", ")) }
        if let security {
            for (ssrc, c) in security.counters.sorted(by: { $0.key < $1.key }) {
                let counts = Report.counts(c.counts.fields)
                let key = security.key(of: ssrc).map { ", \($0.suite.rawValue) from \($0.origin)" } ?? ""
                lines.append("srtp       \(hex(ssrc)): " + counts.joined(separator: ", ") + key)
            }
        }
        for (ssrc, reason) in receiver.unusableAudio.sorted(by: { $0.key < $1.key }) {
            lines.append("audio stream \(hex(ssrc)) left out: \(reason)")
        }
        return lines
    }

    /// Each output's line: what it wrote, dropped or sent.
    private func outputLines() -> [String] {
        var lines: [String] = []
        lines.append("wrote \(outputs.bytesWritten) bytes of \(streams.first?.codec?.name ?? "video")" + (outputs.segmentCount > 0 ? " in \(outputs.segmentCount) segments" : "")
                     + (outputs.reopens > 0 ? ", reopened \(outputs.reopens) times on SIGHUP" : ""))
        lines += ([wavLine(), audioFileLine(), latencyLine(), flvLine()] + containerLines() + [rtcpLine(), rtmpLine()]).compactMap { $0 }
        lines += decodingLines()
        return lines
    }

    /// `--wav`: frames decoded, and how losses and silences were filled.
    private func wavLine() -> String? {
        outputs.wav.map { "wav        " + Report.counts($0.counts.fields, keeping: ["frames_decoded"]).joined(separator: ", ") }
    }

    /// `--audio`: frames written, and those the file cannot hold.
    private func audioFileLine() -> String? {
        guard let a = outputs.audio else { return nil }
        return "audio file " + (a.track.map { "\($0.description): " } ?? "")
            + Report.counts(a.counts.fields, keeping: ["frames_written"]).joined(separator: ", ")
    }

    /// Live: from the last packet of a frame to its write.
    private func latencyLine() -> String? {
        let l = outputs.latency
        guard l.count > 0 else { return nil }
        return "latency    last packet to written: p50 \(l.percentile(0.5)) µs, p99 \(l.percentile(0.99)) µs, "
            + "max \(l.maxMicroseconds) µs over \(l.count) frames"
    }

    /// `--flv`: frames and sequence headers written, and what was left out.
    private func flvLine() -> String? {
        outputs.flv.map { "flv        " + Report.counts($0.muxer.statistics.counts.fields, keeping: ["frames_written"]).joined(separator: ", ") }
    }

    /// `--mp4`, `--mkv`, `--ts`, and the retention of their segments.
    private func containerLines() -> [String?] {
        outputs.containers.map { c in
            let name = c.container.rawValue
            return name + String(repeating: " ", count: max(1, 11 - name.count))
                + Report.counts(c.statistics.counts.fields, keeping: ["frames_written"]).joined(separator: ", ")
        } + [outputs.retention.map { "retention  \($0.filesDeleted) recordings deleted (\($0.bytesDeleted) bytes)" }]
    }

    /// RTCP sent back to the senders.
    private func rtcpLine() -> String? {
        guard let feedback else { return nil }
        let counts = Report.counts(feedback.reporter.statistics.counts.fields)
        var line = "rtcp sent  " + (counts.isEmpty ? "nothing (no sender heard from)" : counts.joined(separator: ", "))
        if let to = feedback.lastDestination { line += " to \(to)" }
        if feedback.sendFailures > 0 { line += "; \(feedback.sendFailures) could not be sent" }
        return line
    }

    /// `--rtmp`: what went to the server.
    private func rtmpLine() -> String? {
        guard let rtmp = outputs.rtmp else { return nil }
        let r = rtmp.statistics
        let counts = Report.counts(r.counts.fields, keeping: ["frames_sent"])
        var line = "rtmp       \(rtmp.displayURL): " + counts.joined(separator: ", ")
        if r.latency.count > 0 {
            line += "; last packet to sent: p50 \(r.latency.percentile(0.5)) µs, p99 \(r.latency.percentile(0.99)) µs"
        }
        return line
    }

    /// `--decode` and what it feeds: frames decoded, written and damaged, and size changes.
    private func decodingLines() -> [String] {
        guard let d = outputs.decoding else { return [] }
        var lines = ["decode     " + Report.counts(d.counts.fields, keeping: ["frames_decoded"]).joined(separator: ", ")
                     + (d.nativeFormat.map { " (\($0))" } ?? "")]
        if d.sizes.count > 1 {
            lines.append("  size changes: " + d.sizes.map { "\($0.width)x\($0.height) from frame \($0.firstFrame)" }.joined(separator: ", ")
                         + "; raw YUV frames keep their own size, Y4M frames the first size")
        }
        return lines
    }
}
