import PcapInput
import RTPCore
import SystemIO

/// `--list`: the RTP streams of a capture, one line each.
struct ListStreams {
    let options: Options

    func run() throws -> Int32 {
        var options = self.options
        let capture = try openCapture(options.pcap!)
        options.srtpKeys += try DTLSKeyLogKeys.keys(options, embedded: capture.embeddedTLSKeyLog)
        var sdp = try Run.loadSDP(options, needsMedia: false)
        var sessionLine: String?
        if sdp == nil, let found = try signalledSessionDescription(options) {
            sdp = found.description
            let lines = found.description.media.map { line in
                "m=\(line.media) \(line.port) " + line.payloadTypes.map { pt in line.formats[pt].map { "\(pt) \($0.encodingName)" } ?? "\(pt)" }
                    .joined(separator: ", ")
            }
            sessionLine = "session from the capture's signalling (\(found.origin)): " + lines.joined(separator: "; ")
        }
        let security = try Security.decryptor(options: options, sdp: sdp, inCapture: true)
        let (survey, truncated) = try surveyStreams(of: capture, options: options, sdp: sdp, security: security)
        var lines = [pad("Source", 22) + pad("Destination", 22) + pad("SSRC", 11) + pad("PT", 4)
                     + pad("Packets", 8, right: true) + pad("Lost", 6, right: true) + "  " + "Codec"]
        for key in survey.order {
            let e = survey.entries[key]!
            lines.append(pad(e.key.source?.description ?? "-", 22) + pad(e.key.destination?.description ?? "-", 22)
                         + pad(hex(e.key.ssrc), 11) + pad(e.payloadTypes.map { "\($0.payloadType)" }.joined(separator: ","), 4)
                         + pad("\(e.packets)", 8, right: true) + pad("\(max(0, e.lost))", 6, right: true) + "  "
                         + Self.describe(e, keys: security?.keys.count ?? 0))
        }
        if survey.order.isEmpty { lines.append("(no RTP streams)") }
        if survey.rtcp > 0 {
            lines.append("and \(survey.rtcp) RTCP packets" + (survey.malformedRTCP > 0 ? " (\(survey.malformedRTCP) malformed)" : ""))
        }
        if let sessionLine { lines.append(sessionLine) }
        let out = try OutputFile(path: "-")
        try out.write(Terminal.masked(lines.joined(separator: "\n") + "\n"))
        if let truncated { Terminal.printError("warning: \(capture.path): \(truncated)\n") }
        return 0
    }

    /// What a stream carries: its main payload type's codec, then each other payload type's, with
    /// its packets (comfort noise and telephone events beside a call's audio).
    static func describe(_ e: StreamSurvey.Entry, keys: Int = 0) -> String {
        let main = e.main
        var text = describe(main, keys: keys) + (mpegAudioHint(e) ?? linearPCMHint(e) ?? opusHint(e) ?? "")
        for other in e.payloadTypes where other.payloadType != main.payloadType {
            let packets = other.packets == 1 ? "1 packet" : "\(other.packets) packets"
            text += "; PT \(other.payloadType) (\(packets)): " + describe(other, keys: keys)
        }
        return text
    }

    /// A stream nothing names whose payloads read as MPEG audio in RFC 2250's format (on a dynamic
    /// payload type, where RFC 3551's 14 is not used): what would take it.
    private static func mpegAudioHint(_ e: StreamSurvey.Entry) -> String? {
        let main = e.main
        guard case .unknown = main.codec, main.looksLikeMPEGAudio else { return nil }
        return " (its payloads are MPEG audio as RFC 2250 carries it: --audio-payload-type \(main.payloadType) --audio-codec mpa takes it)"
    }

    /// A stream nothing names whose timestamps run at 48 kHz, as Opus's always do in RTP (and not in
    /// AAC's steps of 1024): what would take it as Opus, said as the guess it is.
    private static func opusHint(_ e: StreamSurvey.Entry) -> String? {
        let main = e.main
        guard case .unknown = main.codec, let (step, rate) = measuredClock(e) else { return nil }
        let aacLike = abs(step - 1024 * (step / 1024).rounded()) < 16
        guard abs(rate - 48000) < 2400, !aacLike else { return nil }
        return " (its timestamps run at 48 kHz, as Opus's do: --audio-payload-type \(main.payloadType) --audio-codec opus takes it as Opus)"
    }

    /// A stream nothing names whose packets each hold 2, 3, 4 or 6 bytes a tick of its clock, as
    /// linear PCM's do, whatever their length (a compressed codec's sizes vary): the rtpmap an SDP
    /// would need, its rate read from the timestamps, said as the guess it is.
    private static func linearPCMHint(_ e: StreamSurvey.Entry) -> String? {
        let main = e.main
        guard case .unknown = main.codec, let bytes = main.constantBytesPerTick, let (_, measured) = measuredClock(e) else { return nil }
        let encodings = [2: ("L16", 1), 4: ("L16", 2), 3: ("L24", 1), 6: ("L24", 2)]
        guard let (name, channels) = encodings[bytes] else { return nil }
        guard let rate = [8000, 16000, 22050, 24000, 32000, 44100, 48000, 88200, 96000].first(where: {
            abs(measured - Double($0)) < Double($0) / 20
        }) else { return nil }
        return " (its packets hold \(bytes) bytes a tick of its clock, as linear PCM's do: an SDP with "
            + "a=rtpmap:\(main.payloadType) \(name)/\(rate)/\(channels) takes it)"
    }

    /// The main payload type's step between packets and its clock's rate, its timestamps' span over
    /// the capture's (DTX's silences stretch both alike), from 50 packets on.
    private static func measuredClock(_ e: StreamSurvey.Entry) -> (step: Double, rate: Double)? {
        // A corrupt capture's times may be anything: wrapped, not trapped.
        let span = e.lastTime &- e.firstTime
        guard e.main.packets >= 50, let step = e.main.typicalTimestampStep, span > 0 else { return nil }
        return (step, step * Double(e.main.packets - 1) / (Double(span) / 1e9))
    }

    /// What one payload type carries: a video codec as its recognition sums it up (H.264 with its
    /// resolution and NAL unit types); another codec by name, clock rate, channels and packet duration, and whether rtprecv takes it; telephone
    /// events by their digits.
    static func describe(_ e: StreamSurvey.PayloadTypeEntry, keys: Int = 0) -> String {
        if e.isTelephoneEvent { return telephoneEvents(e) }
        switch e.codec {
        case .video(let codec):
            return e.recognition(of: codec)?.summary ?? codec.encodingName
        case .named(let name, _, _) where name.uppercased() == "CN":
            return "comfort noise (RFC 3389)"
        case .named(let name, let rate, let channels) where name.uppercased() == "RED":
            return "\(name)/\(rate)" + (channels.map { "/\($0)" } ?? "") + ": redundant blocks (RFC 2198), taken as their primary"
        case .named(let name, let rate, let channels):
            var text = "\(name)/\(rate)" + (channels.map { "/\($0)" } ?? "")
            if let step = e.typicalTimestampStep, rate > 0, rate != 90000 || name.uppercased() == "MPA" {
                let tenths = Int((step * 10000 / Double(rate)).rounded())
                text += ", " + (tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)") + " ms packets"
            }
            if let tag = e.authenticationTagBytes { return text + "; " + StreamNotice.authenticationTagOnPayloads(bytes: tag).description }
            return text + (AudioFormats.isSupported(.init(encodingName: name, clockRate: rate)) ? "" : " (not supported)")
        case .telephoneEvent:
            return telephoneEvents(e)
        case .unknown:
            return "unknown: a dynamic payload type, neither " + VideoCodec.allCases.map(\.name).joined(separator: " nor ")
                + "; an SDP (--sdp) would name it"
        case .encrypted:
            if e.encryptedPackets == 0 { return "encrypted (SRTP?): its payloads look random; give the key with --srtp-key" }
            return keys == 0 ? "encrypted (SRTP?): the SDP says SAVP; give the key with --srtp-key"
                : "encrypted (SRTP): no key given authenticates its \(e.encryptedPackets) packets (\(keys) tried)"
        }
    }

    /// "telephone-event: digits 1 2 3", the events in the order they came.
    private static func telephoneEvents(_ e: StreamSurvey.PayloadTypeEntry) -> String {
        let shown = e.telephoneEvents.map(\.name)
        let more = e.telephoneEvents.count == StreamSurvey.PayloadTypeEntry.maxEvents ? " …" : ""
        return "telephone-event" + (shown.isEmpty ? "" : ": digits " + shown.joined(separator: " ") + more)
    }

    private func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(1, width - s.count))
        return right ? padding + s : s + padding
    }
}
