import RTPCore

/// An output path with fields filled in per segment: `{n}` the segment number from 0 (or past an
/// earlier run's, `Retention.firstFreeNumber`), `{start}`
/// when it began, UTC in ISO 8601's basic format (20261201T154200Z), so names sort by time; and per
/// stream (`--all-streams`): `{ssrc}` (8 hex digits), `{pt}`, `{port}` (the destination's),
/// `{src}` (the source address) and `{codec}` (h264, h265; where neither the SDP nor --codec tells,
/// the files keep the field in their names until the stream proves its codec, and are renamed then).
struct OutputTemplate {
    let pattern: String

    static func isTemplate(_ path: String) -> Bool { path.contains("{n}") || path.contains("{start}") }

    /// The fields that tell streams apart (`{codec}` alone does not).
    static let streamFields = ["{ssrc}", "{pt}", "{port}", "{src}"]
    static let codecField = "{codec}"

    /// Whether `path` names a file per stream.
    static func namesStream(_ path: String) -> Bool { streamFields.contains { path.contains($0) } }

    /// `path` with the stream's fields filled in (the segment's stay for `path(n:unixNanoseconds:)`).
    static func stream(_ path: String, ssrc: UInt32, payloadType: UInt8, port: UInt16?, source: String?, codec: VideoCodec?) -> String {
        let digits = String(ssrc, radix: 16)
        let filled = codec.map { Self.codec(path, $0) } ?? path
        return filled.replacingAll("{ssrc}", with: String(repeating: "0", count: 8 - digits.count) + digits)
            .replacingAll("{pt}", with: String(payloadType))
            .replacingAll("{port}", with: port.map(String.init) ?? "0")
            .replacingAll("{src}", with: (source ?? "unknown").replacingAll(":", with: "-"))
    }

    /// A session's files (`--sdp` more than once, `--sdp-dir`): its SDP file's name without ".sdp".
    static let sdpField = "{sdp}"

    static func session(_ path: String, sdpFile: String) -> String {
        var name = sdpFile.split(separator: "/").last.map(String.init) ?? sdpFile
        if name.hasSuffix(".sdp") { name.removeLast(4) }
        return path.replacingAll(sdpField, with: name)
    }

    /// `path` with `{codec}` filled in.
    static func codec(_ path: String, _ codec: VideoCodec) -> String { path.replacingAll(codecField, with: codec.rawValue) }

    /// Part `n` (from 1) of an output that is not cut into segments: `cam.mp4` → `cam.1.mp4`, the
    /// number before the last extension of the file's name.
    static func part(_ path: String, _ n: Int) -> String {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return path + ".\(n)" }
        return String(path[..<dot]) + ".\(n)" + String(path[dot...])
    }

    /// The path of segment `n`, begun at `unixNanoseconds`.
    func path(n: Int, unixNanoseconds: Int64) -> String {
        pattern.replacingAll("{n}", with: String(n)).replacingAll("{start}", with: OutputTemplate.basicUTC(unixNanoseconds))
    }

    /// "YYYYMMDDTHHMMSSZ" (the civil date from days since 1970 by Howard Hinnant's algorithm).
    static func basicUTC(_ unixNanoseconds: Int64) -> String {
        let seconds = unixNanoseconds / 1_000_000_000
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = seconds - days * 86400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(year)\(two(month))\(two(day))T\(two(secondOfDay / 3600))\(two(secondOfDay / 60 % 60))\(two(secondOfDay % 60))Z"
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
