import RTMPOutput
import RTPCore

/// The live status line: rates since the last line, loss so far, resolution, the audio beside it,
/// elapsed time.
final class LiveStatus {
    private var lastTime: Int64 = 0
    private var lastPackets = 0
    private var lastBytes = 0
    private var lastFrames = 0
    private var lastAudioFrames = 0
    private var lastSent = 0

    func line(now: Int64, start: Int64, receiver: Receiver, rtmp: RTMPPublisher.Statistics?) -> String {
        let s = receiver.selected?.snapshot(), a = receiver.audio?.snapshot()
        let packets = s?.packets ?? 0, bytes = s?.bytes ?? 0, frames = s?.frames.written ?? 0
        let audioFrames = a?.frames.written ?? 0
        let seconds = Double(now - (lastTime == 0 ? start : lastTime)) / 1e9
        let sent = rtmp?.bytesSent ?? 0
        defer {
            (lastTime, lastPackets, lastBytes, lastFrames, lastAudioFrames) = (now, packets, bytes, frames, audioFrames)
            lastSent = sent
        }
        guard seconds > 0 else { return "" }
        let elapsed = Int((now - start) / 1_000_000_000)
        let resolution = s?.video.map { "\($0.width)x\($0.height)" } ?? "-"
        var line = "\(Int(Double(packets - lastPackets) / seconds)) pkt/s  "
            + "\(fixed(Double(bytes - lastBytes) * 8 / seconds / 1e6)) Mbit/s  "
            + "\(fixed(Double(frames - lastFrames) / seconds)) fps  loss \(fixed(lossPercent(s)))%  \(resolution)  "
        if let a, let audio = a.audio {
            line += "audio \(audio.track.codec.name) \(fixed(Double(audioFrames - lastAudioFrames) / seconds)) frames/s "
                + "loss \(fixed(lossPercent(a)))%  "
        }
        if rtmp != nil { line += "rtmp \(fixed(Double(sent - lastSent) * 8 / seconds / 1e6)) Mbit/s  " }
        return line + "\(elapsed / 60):\(elapsed % 60 < 10 ? "0" : "")\(elapsed % 60)"
    }

    private func lossPercent(_ s: StreamStatistics?) -> Double {
        guard let s, s.packets + s.lost > 0 else { return 0 }
        return Double(s.lost) * 100 / Double(s.packets + s.lost)
    }

    private func fixed(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}
