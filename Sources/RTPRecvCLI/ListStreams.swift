import PcapInput
import RTPCore
import SystemIO

/// `--list`: the RTP streams of a capture, one line each.
struct ListStreams {
    let options: Options

    func run() throws -> Int32 {
        let capture = try openCapture(options.pcap!)
        var survey = StreamSurvey()
        var skipped: [FrameSkip: Int] = [:]
        let truncated = try forEachDatagram(in: capture, skipped: &skipped) { record, datagram in
            if let port = options.port, datagram.destination.port != port { return }
            survey.add(datagram: record.bytes.view(datagram.payloadRange), source: datagram.source,
                       destination: datagram.destination, time: record.time)
        }
        var lines = [pad("Source", 22) + pad("Destination", 22) + pad("SSRC", 11) + pad("PT", 4)
                     + pad("Packets", 8, right: true) + pad("Lost", 6, right: true) + "  " + pad("Resolution", 11) + "NAL types"]
        for key in survey.order {
            let e = survey.entries[key]!
            let types = (0..<32).filter { e.nalTypes & (1 << $0) != 0 }.map { t -> String in
                switch t {
                case 24: "STAP-A"
                case 25: "STAP-B"
                case 26: "MTAP16"
                case 27: "MTAP24"
                case 28: "FU-A"
                case 29: "FU-B"
                default: NALUnitType.name(UInt8(t))
                }
            }
            let resolution = e.sps.map { "\($0.width)x\($0.height)" } ?? "-"
            lines.append(pad(e.key.source?.description ?? "-", 22) + pad(e.key.destination?.description ?? "-", 22)
                         + pad(hex(e.key.ssrc), 11) + pad("\(e.key.payloadType)", 4)
                         + pad("\(e.packets)", 8, right: true) + pad("\(max(0, e.lost))", 6, right: true) + "  "
                         + pad(resolution, 11) + types.joined(separator: ","))
        }
        if survey.order.isEmpty { lines.append("(no RTP streams)") }
        if survey.rtcp > 0 { lines.append("and \(survey.rtcp) RTCP packets") }
        let out = try OutputFile(path: "-")
        try out.write(lines.joined(separator: "\n") + "\n")
        if let truncated { Terminal.printError("warning: \(capture.path): \(truncated)\n") }
        return 0
    }

    private func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(1, width - s.count))
        return right ? padding + s : s + padding
    }
}

func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
}
