import RTPCore

/// Datagrams with their arrival: a 16-bit big-endian length, a byte that says how far the packet
/// clock moved (below 128: that many milliseconds; above: a jump of 2^40 ns or more, either way, as
/// a capture's timestamps may make), then the datagram; repeated.
func timedDatagrams(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Int64) throws -> Void) rethrows {
    var cursor = ByteCursor(bytes)
    var arrival: Int64 = 1_000_000_000
    while let length = cursor.readUInt16(), let step = cursor.readUInt8() {
        if step < 128 {
            arrival = arrival.addingSaturated(Int64(step) * 1_000_000)
        } else {
            let jump = Int64(step & 0x3F) << 40
            arrival = step & 0x40 == 0 ? arrival.addingSaturated(jump) : arrival.subtractingSaturated(jump)
        }
        try body(cursor.readSlice(min(Int(length), cursor.readableBytes))!, arrival)
    }
}

/// A session as an SDP describes it, through to the clocks its rates feed: the SDP (up to the
/// first NUL byte) configures the receiver as a run does (`Receiver.Configuration.take`), then
/// RTP and RTCP datagrams (`timedDatagrams`) go through its video and audio pipelines, frame gates,
/// presentation clocks and the session's media clock.
func fuzzSession(_ bytes: UnsafeRawBufferPointer) {
    let end = bytes.firstIndex(of: 0) ?? bytes.count
    guard let sdp = try? SessionDescription(parsing: String(decoding: bytes.view(0..<end), as: UTF8.self)) else { return }
    var configuration = Receiver.Configuration()
    configuration.take(sdp)
    configuration.stream.reorder = ReorderBuffer.Configuration(packets: 16, latencyNanoseconds: 5_000_000, maxPacketBytes: 2048)
    configuration.video.maxAccessUnitBytes = 1 << 16
    configuration.maxStreams = 4
    let receiver = Receiver(configuration: configuration, sink: NullSink())
    // What --list makes of the same packets.
    var survey = StreamSurvey(media: sdp.media)
    timedDatagrams(bytes.view(min(end + 1, bytes.count)..<bytes.count)) { datagram, arrival in
        try? receiver.receive(datagram: datagram, source: nil, destination: nil, arrival: arrival)
        survey.add(datagram: datagram, source: nil, destination: nil, time: arrival)
    }
    try? receiver.finish()
    survey.finish()
}

/// A sequence of RTCP (and RTP) datagrams, from any sender at any time, through the receiver (its
/// sender reports into the media clock) and the RTCP reporter that answers them: reception
/// reports, NACKs, keyframe requests and round trips from DLRR blocks (addressed to the reporter).
func fuzzRTCP(_ bytes: UnsafeRawBufferPointer) {
    var configuration = Receiver.Configuration()
    configuration.stream.reorder = ReorderBuffer.Configuration(packets: 16, latencyNanoseconds: 5_000_000, maxPacketBytes: 2048)
    configuration.stream.tracksMissing = true
    configuration.maxStreams = 4
    let receiver = Receiver(configuration: configuration, sink: NullSink())
    var reporterConfiguration = RTCPReporter.Configuration()
    reporterConfiguration.requestKeyframes = true
    reporterConfiguration.fullIntraRequests = true
    reporterConfiguration.negativeAcknowledgements = true
    let reporter = RTCPReporter(configuration: reporterConfiguration)
    receiver.onDelaySinceLastReceiverReport = { block, arrival in
        var ours = block
        ours.ssrc = reporter.ssrc
        reporter.noteDelay(ours, arrival: arrival)
    }
    timedDatagrams(bytes) { datagram, arrival in
        try? receiver.receive(datagram: datagram, source: nil, destination: nil, arrival: arrival)
        try? receiver.tick(now: arrival)
        let lost = receiver.retransmissionRequests(now: arrival, interval: reporter.retransmissionInterval, maxTries: 3, latency: 50_000_000)
        _ = reporter.poll(now: arrival, reports: { receiver.receptionReports(now: arrival) }, keyframeFor: receiver.selected?.ssrc,
                          lost: lost, sessionBitsPerSecond: Double(datagram.count) * 8000)
    }
    _ = reporter.goodbye(reports: receiver.receptionReports(now: 0))
    try? receiver.finish()
}
