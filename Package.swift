// swift-tools-version:6.0
import PackageDescription

// The hot path's classes are only touched from one thread; dynamic exclusivity checks cost 15% of
// replay's instructions (callgrind), so release builds leave them out.
let hotPath: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "rtprecv",
    products: [
        .executable(name: "rtprecv", targets: ["rtprecv"]),
    ],
    targets: [
        // libpcap (headers from libpcap-dev), opened with dlopen on first use: only captures in
        // other formats than pcap and pcapng need it; only PcapInput imports it.
        .target(name: "CPcap", linkerSettings: [.linkedLibrary("dl")]),
        // libsrtp2 (headers from libsrtp2-dev), opened with dlopen on first use; only SRTP imports it.
        .target(name: "CSRTP", linkerSettings: [.linkedLibrary("dl")]),
        // SRTP and SRTCP decryption (RFC 3711): Swift types that own libsrtp2's sessions.
        .target(name: "SRTP", dependencies: ["CSRTP", "RTPCore"]),
        // libavcodec, libavutil and libswscale (headers from libavcodec-dev, libavutil-dev,
        // libswscale-dev), opened with dlopen on first use; only FFmpeg imports it.
        .target(name: "CFFmpeg", linkerSettings: [.linkedLibrary("dl")]),
        // libyaml (headers from libyaml-dev), opened with dlopen on first use: only --config needs it;
        // only YAML imports it.
        .target(name: "CYAML", linkerSettings: [.linkedLibrary("dl")]),
        // YAML texts as trees of nodes with their lines and columns, bounded however aliases nest.
        .target(name: "YAML", dependencies: ["CYAML"]),
        // libnats (headers from libnats-dev), opened with dlopen on first use: only a config's `nats:`
        // needs it; only Fleet imports it.
        .target(name: "CNATS", linkerSettings: [.linkedLibrary("dl")]),
        // A fleet's coordination on NATS JetStream: claims in a key-value bucket, events in a stream.
        .target(name: "Fleet", dependencies: ["CNATS"]),
        // OpenSSL 3's libssl and libcrypto (headers from libssl-dev), opened with dlopen on first use:
        // only rtsps:// needs them; only TLS imports it.
        .target(name: "COpenSSL", linkerSettings: [.linkedLibrary("dl")]),
        // TLS over a TCP connection, the server's certificate checked against a trust or a pin.
        .target(name: "TLS", dependencies: ["COpenSSL", "SystemIO"]),
        // The H.264 decoder and pixel-format conversion: Swift types that own the C objects.
        .target(name: "FFmpeg", dependencies: ["CFFmpeg"]),
        // An IP address and port: the one type the protocol core and the system calls both speak,
        // below both, so that SystemIO depends on nothing else of ours.
        .target(name: "NetworkAddress", swiftSettings: hotPath),
        // RTP, RFC 6184 and H.264 logic over byte buffers: no sockets, files or C libraries.
        .target(name: "RTPCore", dependencies: ["NetworkAddress"], swiftSettings: hotPath),
        // FLV (Adobe FLV v10.1) from access units: pure Swift over bytes.
        .target(name: "FLV", dependencies: ["RTPCore"]),
        // Capture files through libpcap.
        .target(name: "PcapInput", dependencies: ["CPcap", "CMappingGuard", "RTPCore", "SystemIO"], swiftSettings: hotPath),
        // recvmmsg(2), which needs _GNU_SOURCE and so a C file of its own.
        .target(name: "CRecvBatch"),
        // A SIGBUS handler for file mappings, which a signal handler's needs keep in C.
        .target(name: "CMappingGuard"),
        // File descriptors, sockets, mappings and errno: every syscall of the tool goes through here.
        .target(name: "SystemIO", dependencies: ["NetworkAddress", "CRecvBatch", "CMappingGuard"]),
        // An HTTP/1.1 responder for the live loop (--metrics): bounded requests, clients and deadlines.
        .target(name: "HTTPEndpoint", dependencies: ["RTPCore", "SystemIO"]),
        // rtsp://… and rtsps://…: an RTSP session set up and kept, its interleaved media delivered
        // (RFC 2326's logic is RTPCore's).
        .target(name: "RTSPInput", dependencies: ["RTPCore", "SystemIO", "TLS"]),
        // --rtmp: the FLV tags published to an RTMP server from a thread of their own, behind a bounded queue.
        .target(name: "RTMPOutput", dependencies: ["FFmpeg", "FLV", "RTPCore", "SystemIO"]),
        // Options, help, the replay run and the statistics report.
        .target(name: "RTPRecvCLI", dependencies: ["RTPCore", "PcapInput", "SystemIO", "FFmpeg", "FLV", "SRTP", "HTTPEndpoint",
                                                  "RTMPOutput", "RTSPInput", "TLS", "YAML", "Fleet"],
                swiftSettings: hotPath),
        // Release builds carry the Swift runtime inside: the binary runs on a machine without the
        // toolchain, and starts 2 ms sooner (no libswiftCore and kin to map and relocate).
        .executableTarget(name: "rtprecv", dependencies: ["RTPRecvCLI"],
                          linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]),
        // libFuzzer entry points; scripts/fuzz builds and links them with -sanitize=fuzzer.
        .target(name: "FuzzTargets", dependencies: ["RTPCore", "FLV", "PcapInput", "SystemIO", "RTPRecvCLI", "SRTP"]),
        .testTarget(name: "RTPCoreTests", dependencies: ["RTPCore"]),
        .testTarget(name: "FLVTests", dependencies: ["FLV", "RTPCore"]),
        .testTarget(
            name: "RTPRecvCLITests",
            dependencies: ["RTPRecvCLI", "RTPCore", "PcapInput", "FuzzTargets", "YAML", "Fleet"],
            exclude: ["FuzzRegressions"]
        ),
    ]
)
