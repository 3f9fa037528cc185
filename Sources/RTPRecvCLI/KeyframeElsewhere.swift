import RTPCore

/// When a replay followed a session that gave no keyframe: the capture's stream to another port
/// that has one (a camera's other session, a second client's), for a hint that names the port.
/// Read only then, in a second pass over the capture (not from standard input or a pipe), so a replay that
/// works never pays for it.
enum KeyframeElsewhere {
    static func hint(after run: Run, options: Options) throws -> String? {
        let receiver = run.receiver
        guard options.port == nil, run.security == nil, receiver.counters.otherPort > 0,
              (receiver.selected?.statistics.frames.keyframesWritten ?? 0) == 0,
              let followed = receiver.configuration.destinationPort, let path = options.pcap, canReadTwice(path) else { return nil }
        let (survey, _) = try surveyStreams(of: try openCapture(path), options: options, sdp: run.sdp, security: nil)
        let found = survey.order.lazy.map { survey.entries[$0]! }.filter { entry in
            guard let port = entry.key.destination?.port else { return false }
            return port != followed && !receiver.sessionPorts.contains(port) && entry.payloadTypes.contains(where: \.sawKeyframe)
        }
        guard let best = found.max(by: { $0.packets < $1.packets }), let port = best.key.destination?.port else { return nil }
        let video = best.payloadTypes.first(where: \.sawKeyframe)!
        let from = best.key.source.map { " from \($0)" } ?? ""
        return "hint: no keyframe came to port \(followed); stream \(hex(best.key.ssrc))\(from) to port \(port) "
            + "(PT \(video.payloadType), \(ListStreams.describe(video))) has keyframes: pass --port \(port)"
    }
}
