import RTPCore

/// `--metrics`' page for people (`/`): every stream followed, its state, the last minute's
/// bitrate and loss, and a picture of its last keyframe (`/snapshot/SSRC.jpg`, decoded when asked
/// for). It refreshes itself every 5 s; nothing in it comes from elsewhere, and it has no script.
enum LivePage {
    /// The cards of one run's streams (or of one source's, in a config's page), and what heads them.
    struct Section {
        var name: String?
        var streams: Int
        var cards: String
        /// What the run does while it has no stream (sets its session up).
        var state: String?
    }

    static func html(_ sections: [Section], now: Int64, started: Int64) -> String {
        let streams = sections.reduce(0) { $0 + $1.streams }
        var page = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"5\">"
        page += "<meta name=\"viewport\" content=\"width=device-width\"><title>rtprecv: \(streams) streams</title>"
        page += "<style>\(style)</style></head><body>\n"
        let elapsed = max(0, now - started) / 1_000_000_000
        let sources = sections.count > 1 || sections.first?.name != nil ? "\(sections.count) sources, " : ""
        page += "<h1>rtprecv</h1><p class=\"run\">\(sources)\(streams) streams, running for \(elapsed / 60) min \(elapsed % 60) s. "
            + "<a href=\"/metrics\">/metrics</a> <a href=\"/healthz\">/healthz</a></p>\n"
        for section in sections {
            if let name = section.name { page += "<h2 class=\"source\" data-source=\"\(HTML.escape(name))\">\(HTML.escape(name))</h2>\n" }
            page += section.streams == 0 ? "<p class=\"silent\">\(HTML.escape(section.state ?? "No stream yet."))</p>\n" : section.cards
        }
        return page + "</body></html>\n"
    }

    /// A run's streams as cards; `source` names them in a config's page (and their pictures' paths).
    static func cards(_ streams: [FollowedStream], history: LiveHistory, now: Int64, source: String?) -> String {
        streams.map { card($0, history: history.history(of: $0), now: now, source: source) }.joined()
    }

    /// The path of a stream's picture: by SSRC, the run's own key for a stream, under its source's
    /// name in a config's page (two cameras may send one SSRC).
    static func snapshotPath(_ ssrc: UInt32, source: String? = nil) -> String {
        "/snapshot/" + (source.map { $0 + "/" } ?? "") + hex(ssrc).dropFirst(2) + ".jpg"
    }

    private static func card(_ f: FollowedStream, history: [LiveHistory.Second], now: Int64, source: String?) -> String {
        let s = f.statistics
        let age = Double(now - f.lastArrival) / 1e9
        let state = age < 2 ? "receiving" : "silent for \(Int(age)) s"
        let codec = s.audio.map { $0.track.description } ?? s.video?.description ?? s.codec?.name ?? "codec not known yet"
        var html = "<section class=\"stream \(age < 2 ? "live" : "silent")\" data-ssrc=\"\(s.ssrc)\" data-media=\"\(f.media)\">"
        html += "<h2>\(f.media == "audio" ? "Audio" : "Video") \(hex(s.ssrc)): \(HTML.escape(codec))</h2>"
        html += "<p><span class=\"state\">\(state)</span> · from \(HTML.escape(s.source?.description ?? "?")) to "
            + "\(HTML.escape(s.destination?.description ?? "?")) · \(s.packets) packets, \(s.lost) lost · "
            + "\(s.frames.written) frames written, \(s.frames.droppedTotal) dropped</p>"
        html += "<div class=\"row\">"
        if let snapshot = f.snapshot {
            html += snapshot.generation > 0
                ? "<img class=\"snapshot\" alt=\"last keyframe of \(hex(s.ssrc))\" src=\"\(snapshotPath(s.ssrc, source: source))?k=\(snapshot.generation)\">"
                : "<div class=\"snapshot none\">no keyframe yet</div>"
        }
        html += "<div class=\"charts\">" + charts(history) + "</div></div></section>\n"
        return html
    }

    /// The last minute's bitrate and loss, one point a second, the newest at the right.
    private static func charts(_ history: [LiveHistory.Second]) -> String {
        let at = { (i: Int) in Double(LiveHistory.seconds - history.count + i) + 0.5 }
        let kbits = history.enumerated().map { (at($0.offset), Double($0.element.bytes) * 8 / 1000) }
        var bitrate = SVGChart(title: "payload bitrate, last minute", duration: Double(LiveHistory.seconds), top: kbits.map(\.1).max() ?? 0,
                               unit: "kbit/s", height: 100, timeOffset: -Double(LiveHistory.seconds))
        bitrate.line(kbits, class: "bitrate")
        let lost = history.enumerated().map {
            (seconds: at($0.offset) - 0.5, value: Double($0.element.lost), class: "lost", title: "\($0.element.lost) packets lost")
        }
        var loss = SVGChart(title: "packets lost per second", duration: Double(LiveHistory.seconds), top: lost.map(\.value).max() ?? 0,
                            unit: "", height: 100, timeOffset: -Double(LiveHistory.seconds))
        loss.bars(lost, barWidth: 1)
        return bitrate.svg + loss.svg
    }

    private static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}h1{font-size:1.3em}
        h2{font-size:1.05em;margin:.2em 0}section.stream{border-top:1px solid #ddd;padding:.6em 0}.silent .state{color:#da1e28}
        .live .state{color:#198038}.row{display:flex;gap:12px;align-items:flex-start}img.snapshot,.snapshot.none{width:320px;
        flex:none;background:#eee;color:#666;text-align:center}.snapshot.none{line-height:180px}.charts{flex:1;min-width:300px}
        svg.chart{display:block;width:100%;height:auto}svg .title{font-size:12px;fill:#333}svg .tick{font-size:10px;fill:#666}
        svg .grid{stroke:#e4e4e4}svg polyline{fill:none;stroke-width:1.5}.bitrate{stroke:#2a6fdb}rect.lost{fill:#da1e28}
        """
}
