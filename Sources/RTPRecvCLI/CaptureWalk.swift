import PcapInput
import RTPCore
import SRTP
import SystemIO

/// Opens a capture for reading, with a one-line error naming the file.
func openCapture(_ path: String) throws -> CaptureFile {
    let capture: CaptureFile
    do {
        capture = try CaptureFile(path: path)
    } catch let error as CaptureFile.OpenError {
        throw RunError(description: error.description)
    }
    guard capture.linkType != nil else {
        throw RunError(description: "\(capture.path): unsupported link type \(capture.linkTypeValue)")
    }
    return capture
}

/// Whether the capture at `path` can be walked more than once: a regular file, not standard input,
/// a FIFO or a process substitution's /dev/fd/N, which a first look would consume.
func canReadTwice(_ path: String) -> Bool {
    path != "-" && Directory.regularFile(path) != nil
}

/// Without `--sdp`: the session description the capture's own signalling carries (an RTSP
/// DESCRIBE reply, SIP offers and answers), from a first look at its start: until an RTSP PLAY or
/// a SIP answer, or 16 MiB, or 2000 packets with no signalling before them. Nil for standard
/// input and pipes, which cannot be read twice. `serverEndpoints`: the RTSP server's RTP and RTCP endpoints
/// of each set-up media line, with the line's client port.
func signalledSessionDescription(_ options: Options)
    throws -> (description: SessionDescription, origin: String, serverEndpoints: [Endpoint: UInt16])? {
    guard let path = options.pcap, canReadTwice(path) else { return nil }
    let capture = try openCapture(path)
    var signalling = CapturedSignalling()
    var tcp = InterleavedCapture(framing: options.tcpFraming)
    var skipped: [FrameSkip: Int] = [:]
    // Signalling comes before its media: 2000 packets with none before them end the look too.
    var packets = 0
    _ = try capture.forEachDatagram(skipped: &skipped, tcp: &tcp,
                                    while: { capture.offset < 16 << 20 && !signalling.sawPlay && !signalling.sawSIPAnswer
                                        && (packets < 2000 || signalling.sessionDescription != nil) },
                                    message: { m, source, destination in signalling.message(m, from: source, to: destination) }) { p in
        packets += 1
        if p.channel == nil { signalling.datagram(p.bytes, from: p.source) }
        return true
    }
    return signalling.sessionDescription.map { ($0, signalling.origins.joined(separator: "; "), signalling.serverEndpoints) }
}

/// Every RTP stream of a capture (only those to `options.port`, when given), as `--list` tells
/// them, and the damage that ended the capture early.
func surveyStreams(of capture: CaptureFile, options: Options, sdp: SessionDescription?, security: SRTPDecryptor?)
    throws -> (survey: StreamSurvey, truncated: String?) {
    var survey = StreamSurvey(media: (options.audioCodecLine.map { [$0] } ?? []) + (sdp?.media ?? []))
    var skipped: [FrameSkip: Int] = [:]
    var tcp = InterleavedCapture(framing: options.tcpFraming)
    var channelRoles = InterleavedChannelRoles()
    let truncated = try capture.forEachDatagram(skipped: &skipped, tcp: &tcp) { p in
        if let port = options.port, p.channel == nil, p.destination.port != port { return true }
        let plain = Security.unprotect(p.bytes, with: security)
        survey.add(datagram: plain ?? p.bytes, source: p.source, destination: p.destination, time: p.time,
                   encrypted: plain == nil, rtcpOnly: p.channel.map { channelRoles.isRTCP(p.bytes, channel: $0) } ?? false)
        return true
    }
    survey.finish()
    return (survey, truncated)
}
