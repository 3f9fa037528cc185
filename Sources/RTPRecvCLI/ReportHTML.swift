import Glibc
import RTPCore

/// The report as one self-contained HTML page (`--report`), for people who want to look: per
/// stream a summary (the statistics JSON's counts, under their JSON names), timelines on one time
/// axis, every dropped or repaired frame of the ledger as a marker, and pictures of its keyframes.
/// No script, font or image comes from elsewhere: it opens offline and travels as one file.
extension Report {
    /// The page: the input's summary, `sections` (every run's streams), and the report as text.
    static func htmlPage(title: String, input: Input, sections: String, text: String) -> String {
        var page = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        page += "<meta name=\"viewport\" content=\"width=device-width\"><title>rtprecv report: \(HTML.escape(title))</title>"
        page += "<style>\(style)</style></head><body>\n"
        page += "<h1>rtprecv report: \(HTML.escape(title))</h1>\n"
        page += "<pre class=\"input\">\(HTML.escape(input.summary))</pre>\n"
        if let warning = input.warning { page += "<p class=\"warning\">\(HTML.escape(warning))</p>\n" }
        page += sections.isEmpty ? "<p class=\"warning\">No stream was followed.</p>\n" : sections
        page += "<details><summary>The report as text</summary><pre>\(HTML.escape(text))</pre></details>\n"
        return page + "</body></html>\n"
    }

    /// A section for each stream of the run, on `timeline`'s axis.
    func htmlSections(_ timeline: ReportTimeline) -> String {
        let duration = Double(timeline.tracks.map(\.end).max() ?? 0) / 1e9
        return (streams + audioStreams).map { s in
            let track = timeline.tracks.first { $0.ssrc == s.ssrc && $0.isAudio == (s.audio != nil) }
            return section(s, track: track, timeline: timeline, duration: duration)
        }.joined()
    }

    private func section(_ s: StreamStatistics, track: ReportTimeline.Track?, timeline: ReportTimeline, duration: Double) -> String {
        let media = s.audio != nil ? "audio" : "video"
        var html = "<section class=\"stream\" data-ssrc=\"\(s.ssrc)\" data-media=\"\(media)\">\n"
        html += "<h2>\(media == "audio" ? "Audio" : "Video") stream \(hex(s.ssrc)): \(HTML.escape(codecLine(s)))</h2>\n"
        html += summary(s)
        if let track {
            html += charts(track, timeline: timeline, duration: duration).joined(separator: "\n") + "\n"
            html += pictures(track, timeline: timeline)
        }
        return html + "</section>\n"
    }

    private func codecLine(_ s: StreamStatistics) -> String {
        if let audio = s.audio { return audio.track.description }
        return s.video?.description ?? s.codec?.name ?? "codec unknown"
    }

    /// The counts a person asks for first, each cell under its statistics JSON name (`data-key`).
    private func summary(_ s: StreamStatistics) -> String {
        var rows: [(label: String, key: String, value: String)] = [
            ("from", "source", "\(s.source?.description ?? "?") → \(s.destination?.description ?? "?") (PT \(s.payloadType))"),
            ("packets", "packets", String(s.packets)),
            ("lost", "lost", String(s.lost)),
            ("jitter", "jitter_ms", format(s.jitterMilliseconds) + " ms"),
            ("frames written", "frames_written", String(s.frames.written)),
        ]
        if s.audio == nil {
            rows.append(("keyframes written", "keyframes_written", String(s.frames.keyframesWritten)))
            rows.append(("repaired", "frames_repaired", String(s.frames.repaired)))
            rows.append(("after a lost reference", "frames_written_after_lost_reference", String(s.frames.writtenWithDamagedReferences)))
        }
        rows.append(("dropped", "frames_dropped", String(s.frames.droppedTotal)))
        for reason in FrameRecord.Reason.allCases where s.frames.dropped(reason) > 0 {
            rows.append(("  " + reason.description, "frames_dropped." + reason.code, String(s.frames.dropped(reason))))
        }
        if let audio = s.audio, audio.gaps > 0 { rows.append(("gaps", "gap_ms", "\(audio.gaps) (\(audio.gapMilliseconds) ms)")) }
        if let audio = s.audio, audio.timestampJumps > 0 { rows.append(("timestamp jumps", "timestamp_jumps", String(audio.timestampJumps))) }
        if let sync = synchronization(s) {
            rows.append(("synchronized", "sr_correction_ms", "by sender reports after \(format(sync.after)) s, moved \(sync.correction) ms"))
        }
        if s.audio == nil, let audio = audioStreams.last { rows.append(audioVideoOffset(video: s, audio: audio)) }
        if let rtt = feedback?.reporter.statistics, rtt.roundTripSamples > 0 {
            rows.append(("round trip", "rtt_us", "\(rtt.roundTripMicroseconds) µs"))
        }
        var html = "<table class=\"summary\">"
        for row in rows {
            html += "<tr><th>\(HTML.escape(row.label))</th><td data-key=\"\(row.key)\">\(HTML.escape(row.value))</td></tr>"
        }
        html += "</table>\n<p class=\"frames\">\(HTML.escape(s.audio == nil ? Report.frames(s.frames) : Report.audioFrames(s.frames)))</p>\n"
        return html
    }

    /// How far apart the session's audio and video would be by their arrival alone, which the
    /// senders' reports corrected; or that nothing could correct it.
    private func audioVideoOffset(video: StreamStatistics, audio: StreamStatistics) -> (label: String, key: String, value: String) {
        guard let v = synchronization(video), let a = synchronization(audio) else {
            return ("A/V offset", "av_offset_ms", "not known: without sender reports for both, the audio is timed by arrival")
        }
        let offset = abs(a.correction - v.correction)
        return ("A/V offset", "av_offset_ms", "\(offset) ms apart by arrival alone; the sender reports aligned them")
    }

    /// Bitrate, loss and jitter by interval; frame sizes, or the audio's level; the ledger's marks.
    private func charts(_ track: ReportTimeline.Track, timeline: ReportTimeline, duration: Double) -> [String] {
        let width = Double(timeline.bucketNanoseconds) / 1e9
        let at = { (i: Int) in (Double(i) + 0.5) * width }
        let kbits = track.buckets.enumerated().map { (at($0.offset), Double($0.element.bytes) * 8 / width / 1000) }
        var bitrate = SVGChart(title: "payload bitrate", duration: duration, top: kbits.map(\.1).max() ?? 0, unit: "kbit/s")
        bitrate.line(kbits, class: "bitrate")
        let lost = track.buckets.enumerated().map {
            (seconds: Double($0.offset) * width, value: Double(max(0, $0.element.lost)), class: "lost",
             title: "\(max(0, $0.element.lost)) packets lost from \(SVGChart.label(Double($0.offset) * width)) s")
        }
        var loss = SVGChart(title: "packets lost", duration: duration, top: lost.map(\.value).max() ?? 0, unit: "")
        loss.bars(lost, barWidth: width)
        let jitterPoints = track.buckets.enumerated().filter { $0.element.packets > 0 }.map { (at($0.offset), $0.element.jitterMilliseconds) }
        var jitter = SVGChart(title: "interarrival jitter", duration: duration, top: jitterPoints.map(\.1).max() ?? 0, unit: "ms")
        jitter.line(jitterPoints, class: "jitter")
        var charts = [bitrate.svg, loss.svg, jitter.svg]
        charts.append(track.isAudio ? level(track, duration: duration, width: width) : frameSizes(track, duration: duration))
        charts.append(marks(track, duration: duration))
        return charts
    }

    private func frameSizes(_ track: ReportTimeline.Track, duration: Double) -> String {
        var chart = SVGChart(title: "frame sizes (keyframes darker)", duration: duration,
                             top: Double(track.frames.map(\.bytes).max() ?? 0) / 1000, unit: "kB")
        let spacing = duration / Double(max(1, track.frames.count))
        chart.bars(track.frames.map {
            (seconds: Double($0.time) / 1e9, value: Double($0.bytes) / 1000, class: $0.keyframe ? "keyframe" : "frame",
             title: "\($0.keyframe ? "keyframe" : "frame") at \(SVGChart.label(Double($0.time) / 1e9)) s: \($0.bytes) bytes")
        }, barWidth: spacing)
        return chart.svg
    }

    /// RMS level per interval in dBFS, drawn from -60.
    private func level(_ track: ReportTimeline.Track, duration: Double, width: Double) -> String {
        var chart = SVGChart(title: "level (RMS)", duration: duration, top: 60, unit: "dBFS", exactTop: true, labelOffset: -60)
        let points = track.buckets.enumerated().filter { $0.element.samples > 0 }.map { (i, b) -> (Double, Double) in
            let rms = (b.squares / Double(b.samples)).squareRoot()
            return ((Double(i) + 0.5) * width, max(0, 60 + 20 * log10(max(rms, 1e-6))))
        }
        chart.line(points, class: "level")
        return chart.svg
    }

    /// Every frame the ledger says was dropped or repaired, and the audio's gaps, as lines that
    /// name why.
    private func marks(_ track: ReportTimeline.Track, duration: Double) -> String {
        var chart = SVGChart(title: "frames dropped and repaired" + (track.isAudio ? ", gaps" : ""), duration: duration,
                             top: 1, unit: "", height: 60, valueAxis: false)
        for m in track.markers {
            let r = m.record
            let why = r.reason?.description ?? "?"
            let seconds = Double(m.time) / 1e9
            chart.marker(at: seconds, class: r.status.rawValue,
                         title: "\(r.status.rawValue) at \(SVGChart.label(seconds)) s: \(why) (RTP timestamp \(r.timestamp), "
                            + "packets \(r.firstSequenceNumber)–\(r.lastSequenceNumber)\(r.missingPackets > 0 ? ", \(r.missingPackets) missing" : ""))",
                         data: [("status", r.status.rawValue), ("reason", r.reason?.code ?? ""), ("ts", String(r.timestamp)),
                                ("seq-first", String(r.firstSequenceNumber)), ("pts-ms", String(r.presentationMilliseconds))])
        }
        for g in track.gaps {
            let seconds = Double(g.time) / 1e9
            chart.marker(at: seconds, class: "gap", title: "a gap of \(g.milliseconds) ms before \(SVGChart.label(seconds)) s",
                         data: [("gap-ms", String(g.milliseconds))])
        }
        var svg = chart.svg
        let leftOut = track.markersLeftOut + track.gapsLeftOut
        if leftOut > 0 { svg += "<p class=\"note\">\(leftOut) more not drawn (the frame ledger, --frames-json, has every one)</p>" }
        return svg
    }

    /// Keyframes decoded, scaled and embedded as JPEG.
    private func pictures(_ track: ReportTimeline.Track, timeline: ReportTimeline) -> String {
        let pictures = timeline.decodedPictures(of: track)
        guard !pictures.isEmpty else { return "" }
        var html = "<div class=\"pictures\">"
        for (p, jpeg) in pictures {
            let seconds = SVGChart.label((Double(p.time) / 1e8).rounded() / 10)
            html += "<figure class=\"picture\" data-ts=\"\(p.record.timestamp)\" data-pts-ms=\"\(p.record.presentationMilliseconds)\">"
                + "<img alt=\"keyframe at \(seconds) s\" src=\"data:image/jpeg;base64,\(Base64.encode(jpeg))\">"
                + "<figcaption>\(seconds) s</figcaption></figure>"
        }
        return html + "</div>\n"
    }

    private static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff;max-width:1000px}
        h1{font-size:1.3em}h2{font-size:1.1em;margin-top:2em}pre{background:#f4f4f4;padding:.6em;overflow-x:auto}
        .warning{color:#a40}table.summary{border-collapse:collapse}table.summary th{text-align:left;font-weight:normal;
        color:#555;padding:1px 1em 1px 0;white-space:pre}svg.chart{display:block;width:100%;height:auto;margin:.3em 0}
        svg .title{font-size:12px;fill:#333}svg .tick{font-size:10px;fill:#666}svg .grid{stroke:#e4e4e4}
        svg polyline{fill:none;stroke-width:1.5}.bitrate{stroke:#2a6fdb}.jitter{stroke:#8a3ffc}.level{stroke:#198038}
        rect.lost{fill:#da1e28}rect.frame{fill:#9ab}rect.keyframe{fill:#234}line.dropped{stroke:#da1e28;stroke-width:2}
        line.repaired{stroke:#f1a000;stroke-width:2}line.gap{stroke:#8a3ffc;stroke-width:2}.note{color:#666;font-size:.9em}
        .pictures{display:flex;flex-wrap:wrap;gap:6px}figure.picture{margin:0}figure.picture img{display:block;width:160px}
        figcaption{font-size:11px;color:#555}
        """
}
