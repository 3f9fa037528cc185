import SystemIO

/// Refuses a run whose output would overwrite one of its inputs, or two of whose outputs are one
/// file: `rtprecv --pcap copy.pcap --out copy.pcap` once truncated the capture to nothing, and
/// `--out x --flv x` wrote two formats into one file. By device and inode where the file exists, by
/// path where it does not (templates such as 'rec/{ssrc}.h264' compared as written).
enum OutputCollisions {
    static func check(_ options: Options) throws(Options.UsageError) {
        let inputs = [("--pcap", options.pcap), ("--sdp", options.sdp)] + options.sessionSDPs.map { ("--sdp", $0) }
        let outputs = options.givenFileOutputs.map { ($0.output.flag, $0.path) }
        var read: [FileIdentity: String] = [:]
        for case let (flag, path?) in inputs where path != "-" {
            if let identity = FileIdentity(path) { read[identity] = "\(flag) \(path)" }
        }
        var written: [FileIdentity: String] = [:]
        for (flag, path) in outputs where path != "-" {
            guard let identity = FileIdentity(path) else { continue }
            if let input = read[identity] {
                throw Options.UsageError(description: "'\(flag) \(path)' would overwrite the input it reads ('\(input)')")
            }
            if let other = written[identity] {
                throw Options.UsageError(description: "'\(flag) \(path)' and '\(other)' are one file: give each output a file of its own")
            }
            written[identity] = "\(flag) \(path)"
        }
    }
}
