import RTPCore
import SystemIO

/// What the options mean together: defaults that follow from others, and the combinations that
/// are refused, each with the message that says why. Checked in this order, so that the first
/// problem named is the one a user meets first.
extension Options {
    mutating func settle() throws(UsageError) {
        try settleInput()
        try checkAudio()
        try settleOutputs()
        try checkSegments()
        try settleStreams()
        try checkLiveOnly()
    }

    /// The first option for RTSP over TLS given, if any.
    private var tlsFlag: String? {
        tlsTrust.fingerprint != nil ? "--tls-fingerprint" : tlsTrust.caFile != nil ? "--tls-ca-file" : nil
    }

    /// The input: one SDP is the session (more, a session each); what an rtsp:// URL, a capture or
    /// live input rules out.
    private mutating func settleInput() throws(UsageError) {
        // One SDP is the session; more are a session each.
        if sessionSDPs.count == 1 && sdpDirectory == nil { sdp = sessionSDPs.removeFirst() }
        if let rtsp {
            if let flag = [("--pcap", pcap != nil), ("--sdp", sdp != nil), ("--port", port != nil), ("--audio-port", audioPort != nil),
                           ("--rtcp-to", rtcpTo != nil), ("--source", sourceFilter != nil)].first(where: { $0.1 })?.0 {
                throw UsageError(description: "'\(flag)' does not go with an rtsp:// URL: the server's session description says "
                                 + "what comes, and where")
            }
            if !rtsp.lowercased().hasPrefix("rtsps://"), let flag = tlsFlag {
                throw UsageError(description: "'\(flag)' is for RTSP over TLS: give the server's rtsps:// URL")
            }
            if let file = tlsTrust.caFile, Directory.regularFile(file) == nil {
                throw UsageError(description: "'--tls-ca-file': \(file): no such file")
            }
        } else if let flag = [("--rtsp-transport", rtspTransport != .auto), ("--user", user != nil), ("--password", password != nil)]
            .first(where: { $0.1 })?.0 ?? tlsFlag {
            throw UsageError(description: "'\(flag)' is for pulling from an RTSP server: give its rtsp:// URL")
        }
        if mode == .list && pcap == nil {
            throw UsageError(description: "'--list' needs a capture: give --pcap FILE")
        }
        if pcap != nil {
            for (flag, given) in [("--bind", bind != nil), ("--iface", interface != nil), ("--duration", duration != nil),
                                  ("--timeout", timeout != nil), ("--exit-on-timeout", exitOnTimeout)] where given {
                throw UsageError(description: "'\(flag)' is for live input; it does not go with --pcap")
            }
        }
        if audioPort != nil && pcap != nil {
            throw UsageError(description: "'--audio-port' is for live input; in a capture every port is read (--port selects the video's)")
        }
        if audioPort != nil && sdp != nil {
            throw UsageError(description: "'--audio-port' is for live input without an SDP; the SDP's audio line gives the port")
        }
        if exitOnTimeout && timeout == nil {
            throw UsageError(description: "'--exit-on-timeout' needs '--timeout SECONDS'")
        }
    }

    /// Audio options that contradict --no-audio, or name a payload type no SDP explains.
    private func checkAudio() throws(UsageError) {
        if noAudio, let flag = [("--audio", audio != nil), ("--wav", wav != nil), ("--audio-ssrc", audioSSRC != nil),
                                ("--audio-payload-type", audioPayloadType != nil), ("--audio-port", audioPort != nil),
                                ("--audio-codec", audioCodec != nil)].first(where: { $0.1 })?.0 {
            throw UsageError(description: "'\(flag)' selects audio, which '--no-audio' leaves out")
        }
        if audioCodec != nil && audioPayloadType == nil {
            throw UsageError(description: "'--audio-codec' names the codec of a payload type: give it with '--audio-payload-type N'")
        }
        if sdp == nil, audioCodec == nil, let pt = audioPayloadType, pt >= 96 {
            throw UsageError(description: "'--audio-payload-type \(pt)' is a dynamic type: its codec comes from an SDP (--sdp FILE) "
                             + "or '--audio-codec NAME'")
        }
        if sdp == nil, audioCodec == nil, let pt = audioPayloadType, !AudioSelection.staticTypes.contains(where: { $0.rawValue == pt }) {
            throw UsageError(description: "'--audio-payload-type \(pt)' is no audio type rtprecv takes without an SDP "
                             + "(0 PCMU, 8 PCMA, 9 G.722, 14 MPA)")
        }
    }

    /// Outputs: one on standard output at most; decoding options imply decoding; what only publishing takes.
    private mutating func settleOutputs() throws(UsageError) {
        let toStdout = givenFileOutputs.filter { $0.path == "-" }.map(\.output.flag)
        if toStdout.count > 1 {
            throw UsageError(description: "\(toStdout.joined(separator: " and ")) cannot all write to standard output")
        }
        if yuv != nil || y4m != nil || frameMD5 != nil { decode = true }
        if !decode, let flag = [("--pix-fmt", pixelFormat != nil), ("--scale", scale != nil), ("--skip-corrupt", skipCorrupt)]
            .first(where: { $0.1 })?.0 {
            throw UsageError(description: "'\(flag)' applies to decoded frames: add --decode, --yuv or --y4m")
        }
        if quiet && verbose { throw UsageError(description: "'-q' and '-v' cannot be used together") }
        if rtmp == nil, let flag = [("--reconnect", reconnect && rtsp == nil), ("--realtime", realtime == true),
                                    ("--no-realtime", realtime == false)]
            .first(where: { $0.1 })?.0 {
            throw UsageError(description: flag == "--reconnect" ? "'--reconnect' is for publishing (--rtmp URL) or pulling (an rtsp:// URL)"
                             : "'\(flag)' is for publishing: add --rtmp URL")
        }
    }

    /// --segment-seconds and the outputs it cuts, named by segment.
    private func checkSegments() throws(UsageError) {
        let segmented = givenFileOutputs.filter(\.output.segments)
        for (output, path) in segmented where OutputTemplate.isTemplate(path) != (segmentSeconds != nil) {
            throw UsageError(description: segmentSeconds == nil
                ? "'\(output.flag) \(path)' names segments ({n} or {start}): give --segment-seconds N"
                : "'--segment-seconds' cuts \(output.flag) into files: name them with {n} or {start}, "
                    + "such as \(output.flag) 'cam-{start}\(output.suffix)'")
        }
        if segmentSeconds != nil && segmented.isEmpty {
            throw UsageError(description: "'--segment-seconds' cuts the Annex-B output, the FLV or a recording: give --out 'NAME-{n}.h264', --flv 'NAME-{n}.flv' or --mp4 'NAME-{n}.mp4'")
        }
        if let flag = [("--retain-hours", retainHours != nil), ("--retain-size", retainBytes != nil)].first(where: { $0.1 })?.0,
           segmentSeconds == nil || !Container.allCases.contains(where: { self[keyPath: $0.path] != nil }) {
            throw UsageError(description: "'\(flag)' removes a recording's oldest segments: give --mp4, --mkv or --ts "
                             + "named by segment, such as --mp4 'rec/cam-{start}.mp4' --segment-seconds 600")
        }
        if let segmentIndex, !Container.allCases.contains(where: { self[keyPath: $0.path] != nil }) {
            throw UsageError(description: "'--segment-index \(segmentIndex)' lists a recording's files: give --mp4, --mkv or --ts too")
        }
        if faststart && (mp4 == nil || mp4 == "-" || segmentSeconds != nil) {
            throw UsageError(description: "'--faststart' rewrites a finished MP4 file with its index in front: give --mp4 FILE, "
                             + "without --segment-seconds (segments stay fragmented, each playable as it is closed)")
        }
        if segmentWallclock && segmentSeconds == nil {
            throw UsageError(description: "'--segment-wallclock' aligns segments to the clock: give --segment-seconds N too")
        }
    }

    /// Outputs named by stream mean every stream; a port range, a stream a port; sessions and
    /// --all-streams each their own files.
    private mutating func settleStreams() throws(UsageError) {
        let perStream = givenFileOutputs
        if perStream.contains(where: { OutputTemplate.namesStream($0.path) }) || portRange != nil { allStreams = true }
        // A stream a port at least, unless told otherwise.
        if let portRange, !maxStreamsGiven { maxStreams = max(maxStreams, portRange.count) }
        if recordsSessions { try checkSessions(perStream) }
        if portRange != nil && sdp != nil {
            throw UsageError(description: "'--port LOW-HIGH' listens on a range of ports; with --sdp, the SDP's lines name the ports")
        }
        if allStreams {
            if let flag = [("--rtmp", rtmp != nil), ("--ssrc", ssrc != nil), ("--audio-ssrc", audioSSRC != nil)]
                .first(where: { $0.1 })?.0 {
                throw UsageError(description: "'--all-streams' records every stream to files; '\(flag)' is for one stream")
            }
            // Every stream writes its own files: each output (but statistics, which can be one file) names them apart.
            if let (output, path) = perStream.first(where: { $0.output.media != .statistics && !OutputTemplate.namesStream($0.path) }) {
                throw UsageError(description: "'\(output.flag) \(path)' would be written by every stream: name each stream's file with "
                                 + "{ssrc} (or {pt}, {port}, {src}), such as \(output.flag) 'rec/{ssrc}\(output.suffix)'")
            }
        }
    }

    /// What only live input takes: the metrics endpoint, RTCP, pacing a replay; DTLS roles.
    private func checkLiveOnly() throws(UsageError) {
        if pcap != nil && metrics != nil {
            throw UsageError(description: "'--metrics' serves a live run's statistics; a replay ends with them in --stats-json")
        }
        if pcap != nil, let flag = [("--no-rtcp", noRTCP), ("--rtcp-to", rtcpTo != nil), ("--request-keyframe", requestKeyframe),
                                    ("--nack", nack)]
            .first(where: { $0.1 })?.0 {
            throw UsageError(description: "'\(flag)' is for live input: a capture has no sender to talk back to")
        }
        if noRTCP, let flag = [("--rtcp-to", rtcpTo != nil), ("--request-keyframe", requestKeyframe), ("--nack", nack)]
            .first(where: { $0.1 })?.0 {
            throw UsageError(description: "'\(flag)' sends RTCP, which '--no-rtcp' turns off")
        }
        if realtime != nil && pcap == nil {
            throw UsageError(description: "'--\(realtime! ? "" : "no-")realtime' paces a replay; live input comes in real time already")
        }
        if let tlsKeyLog, pcap == nil || pcap == "-" {
            throw UsageError(description: "'--tls-keylog \(tlsKeyLog)' finds the DTLS handshakes of a capture file (--pcap FILE) "
                             + "before replaying it; live, give the keying material (--srtp-keying-material)")
        }
        if dtlsRole != nil && dtlsKeyingMaterial == nil {
            throw UsageError(description: "'--dtls-role' says whose packets '--srtp-keying-material' decrypts: give that too")
        }
    }
}
