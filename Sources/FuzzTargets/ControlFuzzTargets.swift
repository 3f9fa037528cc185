import RTPCore
import RTPRecvCLI

/// What any client of the metrics endpoint may send: bytes into the request reader (where its
/// header ends, its first line).
func fuzzHTTP(_ bytes: UnsafeRawBufferPointer) {
    let request = Array(bytes)
    if let end = HTTPRequestHead.end(of: request) { _ = HTTPRequestHead(request[..<end]) }
    _ = HTTPRequestHead(request[...])
}

/// The command line: arguments split at NUL bytes, parsed, and what the runs compute from them
/// (the receiver's configuration, times in nanoseconds).
func fuzzOptions(_ bytes: UnsafeRawBufferPointer) {
    let arguments = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    guard let options = try? Options(arguments: arguments) else { return }
    _ = options.receiverConfiguration
    _ = options.durationNanoseconds
    _ = options.timeoutNanoseconds
}

/// A config file: YAML through libyaml, then every setting through the option parser.
func fuzzConfig(_ bytes: UnsafeRawBufferPointer) {
    _ = try? ConfigFile(path: "fuzz.yml", text: Array(bytes))
}
