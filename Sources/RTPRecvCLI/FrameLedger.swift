import RTPCore
import SystemIO

/// `--frames-json`: one JSON object per line for every access unit from the stream's first keyframe
/// on, written or not, in decoding order:
///
///     {"ssrc":…,"ts":…,"seq_first":…,"seq_last":…,"packets":…,"bytes":…,"keyframe":…,"status":"written",
///      "refs_intact":…,"pts_ms":…}
///
/// with `"reason"` for dropped and repaired ones, `"missing_packets"` where packets were missing,
/// `"retransmitted_packets"` where packets came in retransmissions (RFC 4588), and
/// `"media":"audio"` on the lines of the audio stream's frames. A telephone event (RFC 4733) beside
/// the audio has a line of its own, once, when it ends:
///
///     {"ssrc":…,"ts":…,"media":"telephone-event","event":"5","volume":10,"duration_ms":200,"ended":true,"pts_ms":…}
///
/// Lines are gathered and written in batches; live, each line goes out as it is made, for `tail -f`.
final class FrameLedger {
    private(set) var file: OutputFile
    private let flushEachLine: Bool
    private var line: [UInt8] = []
    private var pending: [UInt8] = []

    init(file: OutputFile, flushEachLine: Bool) {
        self.file = file
        self.flushEachLine = flushEachLine
        pending.reserveCapacity(1 << 16)
    }

    func append(_ r: FrameRecord) throws {
        line.removeAll(keepingCapacity: true)
        field("ssrc", Int64(r.ssrc), first: true)
        field("ts", Int64(r.timestamp))
        field("seq_first", Int64(r.firstSequenceNumber))
        field("seq_last", Int64(r.lastSequenceNumber))
        field("packets", Int64(r.packets))
        field("bytes", Int64(r.bytes))
        field("keyframe", r.isKeyframe)
        field("status", r.status.rawValue)
        if let reason = r.reason { field("reason", reason.code) }
        if r.missingPackets > 0 { field("missing_packets", Int64(r.missingPackets)) }
        if r.retransmittedPackets > 0 { field("retransmitted_packets", Int64(r.retransmittedPackets)) }
        field("refs_intact", r.referencesIntact)
        field("pts_ms", r.presentationMilliseconds)
        if r.isAudio { field("media", "audio") }
        try endLine()
    }

    func append(_ r: TelephoneEventRecord) throws {
        line.removeAll(keepingCapacity: true)
        field("ssrc", Int64(r.ssrc), first: true)
        field("ts", Int64(r.event.timestamp))
        field("media", "telephone-event")
        field("event", r.event.name)
        field("volume", Int64(r.event.volume))
        field("duration_ms", r.durationMilliseconds)
        field("ended", r.event.ended)
        field("pts_ms", r.presentationMilliseconds)
        try endLine()
    }

    private func endLine() throws {
        line.append(UInt8(ascii: "}"))
        line.append(UInt8(ascii: "\n"))
        pending.append(contentsOf: line)
        if flushEachLine || pending.count >= 1 << 16 { try flush() }
    }

    /// The file opened again at its path, appended to (after SIGHUP: a rotated ledger starts anew).
    func reopen() throws {
        try flush()
        guard file.path != "-" else { return }
        try file.close()
        file = try OutputFile(path: file.path, appending: true)
    }

    func finish() throws {
        try flush()
        try file.close()
    }

    private func flush() throws {
        guard !pending.isEmpty else { return }
        try pending.withUnsafeBytes { try file.write($0) }
        pending.removeAll(keepingCapacity: true)
    }

    private func key(_ name: StaticString, first: Bool) {
        line.append(UInt8(ascii: first ? "{" : ","))
        line.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { line.append(contentsOf: $0) }
        line.append(UInt8(ascii: "\""))
        line.append(UInt8(ascii: ":"))
    }

    private func field(_ name: StaticString, _ value: Int64, first: Bool = false) {
        key(name, first: first)
        line.append(contentsOf: String(value).utf8)
    }

    private func field(_ name: StaticString, _ value: Bool) {
        key(name, first: false)
        line.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// `value` is one of the ledger's own names: letters, digits, `*`, `#`, spaces and underscores,
    /// nothing to escape.
    private func field(_ name: StaticString, _ value: String) {
        key(name, first: false)
        line.append(UInt8(ascii: "\""))
        line.append(contentsOf: value.utf8)
        line.append(UInt8(ascii: "\""))
    }
}
