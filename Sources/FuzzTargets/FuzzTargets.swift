import FLV
import Glibc
import RTPRecvCLI
import PcapInput
import RTPCore
import SRTP
import SystemIO

// libFuzzer entry points, built only by scripts/fuzz (with -sanitize=fuzzer,address). One binary
// serves every target; RTPRECV_FUZZ_TARGET picks which one the input goes to.

/// Discards access units, touching every byte so that a bad view would be caught, and reads each
/// keyframe's track and walks and copies each unit as FLV and a recording would (`VideoTrack`:
/// parameter sets, sequence headers; NAL units by their offsets, and behind their lengths).
final class NullSink: AccessUnitSink {
    var checksum: UInt8 = 0
    private var sample: [UInt8] = [], scratch: [UInt8] = []
    func write(_ accessUnit: AccessUnit) throws {
        for piece in accessUnit.pieces {
            for b in piece { checksum &+= b }
        }
        if let track = VideoTrack.of(accessUnit) { checksum &+= UInt8(truncatingIfNeeded: track.configuration.count &+ track.width) }
        accessUnit.copyLengthPrefixed(into: &sample)
        accessUnit.forEachNALUnit(scratch: &scratch) { checksum &+= $0[0] }
    }
}

/// Splits the input into datagrams: a 16-bit big-endian length, then that many bytes, repeated.
func datagrams(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
    var cursor = ByteCursor(bytes)
    while let length = cursor.readUInt16() {
        try body(cursor.readSlice(min(Int(length), cursor.readableBytes))!)
    }
}

/// RTP parser, reorder buffer, depacketizer (every mode) and access-unit assembler: every registered
/// format tried, or only `codec`'s (RFC 7798's with DONL for inputs whose first byte is odd; AV1's
/// with the dependency descriptor read from header extension element 7; RFC 2435's on type 26).
func fuzzReceiver(_ bytes: UnsafeRawBufferPointer, interleaved: Bool, codec: VideoCodec? = nil) {
    var configuration = Receiver.Configuration()
    configuration.codec = codec
    if codec == .h265 {
        if bytes.first.map({ $0 & 1 == 1 }) ?? false {
            var parameters = H265FormatParameters()
            parameters.maxDONDiff = 16
            parameters.depacketizationBufferNALUnits = 4
            configuration.formatParameters = parameters
        }
    }
    if codec == .av1 { configuration.video.dependencyDescriptorID = 7 }
    // JPEG's static type, named as an SDP names it: a stream is taken as JPEG only where it is.
    if codec == .mjpeg { configuration.payloadType = 26 }
    configuration.stream.reorder = ReorderBuffer.Configuration(packets: 16, latencyNanoseconds: 5_000_000, maxPacketBytes: 2048)
    configuration.video.maxAccessUnitBytes = 1 << 16
    configuration.maxStreams = 4
    // The input outlives the receiver, so access units may refer into it: half the inputs do.
    configuration.stream.borrowsPayloads = bytes.count & 1 == 1
    if interleaved {
        var p = DeinterleavingBuffer.Parameters()
        p.interleavingDepth = 4
        p.bufferBytes = 1 << 16
        configuration.formatParameters = H264FormatParameters(interleaving: p)
    }
    let receiver = Receiver(configuration: configuration, sink: NullSink())
    var clock: Int64 = 0
    datagrams(bytes) { datagram in
        clock += 1_000_000
        try? receiver.receive(datagram: datagram, source: nil, destination: nil, arrival: clock)
    }
    try? receiver.finish()
}

/// `--tls-keylog`: a key log (up to the first NUL), then datagrams between two endpoints, in turn
/// each way, as a capture's DTLS handshakes; every handshake found is derived with its secret.
func fuzzDTLS(_ bytes: UnsafeRawBufferPointer) {
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let log = TLSKeyLog(text: String(decoding: bytes[..<split], as: UTF8.self))
    let (a, b) = (Endpoint(address: .v4(0x7F00_0001), port: 5000), Endpoint(address: .v4(0x7F00_0002), port: 6000))
    var collector = DTLSHandshakeCollector()
    var n = 0
    datagrams(UnsafeRawBufferPointer(rebasing: bytes[min(split + 1, bytes.count)...])) { datagram in
        collector.datagram(datagram, from: n % 2 == 0 ? a : b, to: n % 2 == 0 ? b : a)
        n += 1
    }
    for handshake in collector.handshakes {
        _ = try? handshake.keyingMaterial(masterSecret: log.masterSecrets[handshake.clientRandom] ?? [UInt8](repeating: 7, count: 48),
                                          origin: "fuzz")
    }
}

/// The dependency descriptor (AV1's appendix A): each datagram one descriptor, read against the last
/// structure one carried, as a stream reads them.
func fuzzDependencyDescriptor(_ bytes: UnsafeRawBufferPointer) {
    var structure: FrameDependencyStructure?
    datagrams(bytes) { data in
        guard let descriptor = DependencyDescriptor(data, current: structure) else { return }
        structure = descriptor.structure ?? structure
    }
}

/// The HEVC bitstream readers, and the decoder configuration record made from what parses.
func fuzzHEVCBits(_ bytes: UnsafeRawBufferPointer) {
    let sps = HEVCSequenceParameterSet(nal: bytes)
    _ = HEVCPictureParameterSetIds(nal: bytes)
    _ = hevcVideoParameterSetId(nal: bytes)
    _ = HEVCParameterSetCache.identify(nal: bytes)
    if bytes.count > 2 { _ = HEVCSliceSegmentHeaderPrefix(type: bytes[0] >> 1 & 0x3F, body: bytes.view(2..<bytes.count)) }
    if sps != nil {
        let nal = Array(bytes)
        _ = HEVCDecoderConfigurationRecord(vps: [[0x40, 0x01, 0x0C]], sps: [nal], pps: [[0x44, 0x01, 0xC0]])?.bytes(arrayCompleteness: true)
    }
    _ = HEVCDecoderConfigurationRecord(annexB: bytes)?.bytes(arrayCompleteness: false)
}

func fuzzSDP(_ bytes: UnsafeRawBufferPointer) {
    _ = try? SessionDescription(parsing: String(decoding: bytes, as: UTF8.self))
}

func fuzzBitReader(_ bytes: UnsafeRawBufferPointer) {
    _ = SequenceParameterSet(nal: bytes)
    _ = PictureParameterSetIds(nal: bytes)
    _ = SliceHeaderPrefix(nal: bytes)
    _ = SEI.containsRecoveryPoint(nal: bytes)
    _ = AVCDecoderConfigurationRecord(annexB: bytes)?.bytes
    // The same bytes as an SPS, a PPS and a slice that use them, split at two of its bytes' values.
    if bytes.count > 3 {
        let a = 1 + Int(bytes[0]) % (bytes.count - 1), b = a + (bytes.count - a) / 2
        if let sps = SequenceParameterSet(nal: bytes.view(0..<a)), b > a, b < bytes.count {
            _ = PictureIdentity(header: bytes[b], body: bytes.view(b + 1..<bytes.count), sps: sps, pps: bytes.view(a..<b))
        }
    }
}

/// Capture bytes through the classic pcap or pcapng walker (mapped, or for odd-length inputs read
/// 97 bytes at a time, so records and blocks cross buffer ends) or libpcap, then the link, IP and UDP
/// decoders.
func fuzzCapture(_ bytes: UnsafeRawBufferPointer) {
    let path = "/tmp/rtprecv-fuzz-\(getpid()).pcap"
    guard let file = try? OutputFile(path: path) else { return }
    try? file.write(bytes)
    try? file.close()
    let odd = bytes.count % 2 == 1
    guard let capture = try? CaptureFile(path: path, chunkBytes: odd ? 97 : 1 << 20, mapped: !odd),
          let linkType = capture.linkType else { return }
    for _ in 0..<10_000 {
        guard case .record(let record) = capture.next() else { break }
        _ = try? LinkFrameDecoder.udpDatagram(linkType: linkType, frame: record.bytes, originalLength: record.originalLength)
    }
}

/// An access unit of `bytes` in one piece; flags bit 0: keyframe, bit 1: follows a loss.
func withAccessUnit(_ bytes: UnsafeRawBufferPointer, timestamp: Int64, flags: UInt8, _ body: (AccessUnit) -> Void) {
    withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: 1) { pieces in
        pieces[0] = bytes
        body(AccessUnit(timestamp: UInt32(truncatingIfNeeded: timestamp), pts: timestamp,
                        pieces: UnsafeBufferPointer(pieces), isKeyframe: flags & 1 != 0,
                        referencesIntact: flags & 2 == 0))
    }
}

/// Arbitrary access units into the FLV muxer, and as MP4 samples with their track's record: a flag
/// byte (keyframe, loss), a timestamp step, a length.
func fuzzFLV(_ bytes: UnsafeRawBufferPointer) {
    let muxer = FLVMuxer()
    var cursor = ByteCursor(bytes)
    var timestamp: Int64 = 0
    var written = 0
    var sample: [UInt8] = []
    while let flags = cursor.readUInt8(), let step = cursor.readUInt16(), let length = cursor.readUInt16(),
          let unit = cursor.readSlice(min(Int(length), cursor.readableBytes)) {
        timestamp += Int64(Int16(bitPattern: step))
        withAccessUnit(unit, timestamp: timestamp, flags: flags) { au in
            try? muxer.write(au) { written += $0.count }
            _ = VideoTrack.of(au)
            au.copyLengthPrefixed(into: &sample)
        }
    }
    try? muxer.finish { written += $0.count }
    _ = muxer.metadataPatches()
}

/// Arbitrary access units through libavcodec into the YUV4MPEG2 writer (and the raw and MD5
/// outputs), framed as for `flv`. Decoding runs on one thread, in the fuzzer's.
func fuzzDecodeAndY4M(_ bytes: UnsafeRawBufferPointer) {
    guard let options = try? Options(arguments: ["--pcap", "unused", "--y4m", "/dev/null", "--yuv", "/dev/null",
                                                 "--frame-md5", "/dev/null", "--threads", "1", "--skip-corrupt"]),
          let output = try? DecodingOutput(options: options) else { return }
    var cursor = ByteCursor(bytes)
    var timestamp: Int64 = 0
    while let flags = cursor.readUInt8(), let step = cursor.readUInt16(), let length = cursor.readUInt16(),
          let unit = cursor.readSlice(min(Int(length), cursor.readableBytes)) {
        timestamp += Int64(Int16(bitPattern: step))
        withAccessUnit(unit, timestamp: timestamp, flags: flags) { au in try? output.decode(au) }
    }
    try? output.finish()
}

/// Discards audio frames, touching every byte.
final class NullAudioOutput: AudioUnitOutput {
    var checksum: UInt8 = 0
    func unit(_ track: AudioTrack, timestamp: Int64, duration: Int64, bytes: UnsafeRawBufferPointer,
              firstSequenceNumber: Int64, lastSequenceNumber: Int64) throws {
        for b in bytes { checksum &+= b }
    }
    func dropped(timestamp: Int64, reason: FrameRecord.Reason, bytes: Int, firstSequenceNumber: Int64,
                 lastSequenceNumber: Int64, missingPackets: Int) throws {}
    func invalid(_ reason: AudioPayloadInvalid) {}
}

/// The audio depacketizers: the first byte picks the format, then datagrams whose first byte holds
/// the marker bit, a loss before it and a timestamp step.
func fuzzAudio(_ bytes: UnsafeRawBufferPointer) {
    guard let choice = bytes.first else { return }
    let formats: [MediaDescription.Format] = [
        StaticPayloadType.pcmu.format, StaticPayloadType.mpa.format,
        .init(encodingName: "MPEG4-GENERIC", clockRate: 48000, channels: 2,
              parameters: [("mode", "AAC-hbr"), ("sizelength", "13"), ("indexlength", "3"), ("indexdeltalength", "3"),
                           ("config", "1190")]),
        .init(encodingName: "MPEG4-GENERIC", clockRate: 16000, channels: 1,
              parameters: [("mode", "AAC-lbr"), ("sizelength", "6"), ("indexlength", "2"), ("indexdeltalength", "2"),
                           ("ctsdeltalength", "4"), ("auxiliarydatasizelength", "3"), ("config", "1408")]),
        .init(encodingName: "MP4A-LATM", clockRate: 48000, channels: 2),
        .init(encodingName: "MP4A-LATM", clockRate: 48000, channels: 2,
              parameters: [("cpresent", "0"), ("config", "40002320adca00")]),
        .init(encodingName: "OPUS", clockRate: 48000, channels: 2),
        .init(encodingName: "L24", clockRate: 48000, channels: 2),
        .init(encodingName: "G726-24", clockRate: 8000),
    ]
    guard var depacketizer = try? AudioFormats.depacketizer(for: formats[Int(choice) % formats.count], maxFrameBytes: 1 << 14)
    else { return }
    let output = NullAudioOutput()
    var timestamp: Int64 = 0
    var sequence: Int64 = 0
    datagrams(UnsafeRawBufferPointer(rebasing: bytes.dropFirst())) { datagram in
        guard let control = datagram.first else { return }
        timestamp += Int64(control >> 2) * 160
        sequence += 1
        try? depacketizer.process(payload: UnsafeRawBufferPointer(rebasing: datagram.dropFirst()), timestamp: timestamp,
                                  marker: control & 1 != 0, lostBefore: Int(control >> 1 & 1), sequenceNumber: sequence,
                                  into: output)
    }
    try? depacketizer.flush(into: output)
}

/// SRTP and SRTCP datagrams under a fixed key (the bytes 0, 1, 2, ... as key and salt) of the suite the
/// first byte picks, its high bit choosing capture or live replay rules; what authenticates goes on to
/// the receiver. scripts/fuzz-seeds protects capture datagrams with that key (through pylibsrtp).
func fuzzSRTP(_ bytes: UnsafeRawBufferPointer) {
    guard let choice = bytes.first else { return }
    let suite = SRTPSuite.allCases[Int(choice & 0x7F) % SRTPSuite.allCases.count]
    guard let key = try? SRTPMasterKey(suite: suite, keyAndSalt: (0..<UInt8(suite.keyLength + suite.saltLength)).map { $0 },
                                       origin: "fuzz"),
          let decryptor = try? SRTPDecryptor(keys: [key], inCapture: choice & 0x80 != 0, maxPacketBytes: 2048, maxSSRCs: 8)
    else { return }
    var configuration = Receiver.Configuration()
    configuration.stream.reorder = ReorderBuffer.Configuration(packets: 16, latencyNanoseconds: 5_000_000, maxPacketBytes: 2048)
    configuration.maxStreams = 4
    let receiver = Receiver(configuration: configuration, sink: NullSink())
    var arrival: Int64 = 0
    datagrams(UnsafeRawBufferPointer(rebasing: bytes.dropFirst())) { datagram in
        guard let plain = decryptor.unprotect(datagram) else { return }
        arrival += 1_000_000
        try? receiver.receive(datagram: plain, source: nil, destination: nil, arrival: arrival)
    }
    try? receiver.finish()
}

/// What a hostile RTSP server or a damaged capture sends on a control connection: bytes into the
/// message and `$`-frame reader in pieces the input's control bytes cut (a 0xFF byte marks a gap),
/// every reply through the client and every header through its parser; then the same bytes as a
/// captured TCP stream in out-of-order segments.
func fuzzRTSP(_ bytes: UnsafeRawBufferPointer) {
    var reader = RTSPStreamReader(maxMessageBytes: 1 << 14)
    var client = RTSPClient(authorization: RTSPAuthorization(user: "u", password: "p", seed: 1))
    let base = try! RTSPURL(parsing: "rtsp://u:p@cam/live")
    _ = client.request("DESCRIBE", base)
    var offset = 0
    while offset < bytes.count {
        let length = min(bytes.count - offset, Int(bytes[offset]) + 1)
        let piece = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])
        offset += length
        if piece.first == 0xFF { reader.gap() }
        reader.append(piece)
        do {
            try reader.drain { item in
                guard case .message(let m) = item else { return }
                // Half the replies as the answer to the request sent last (CSeq checked), half as any.
                _ = m.body.count & 1 == 0 ? client.receiveReply(m) : client.receive(m)
                for (name, value) in m.headers {
                    if let transport = try? RTSPTransport(parsing: value) { _ = transport.multicastPorts }
                    _ = RTSPSessionHeader(parsing: value)
                    _ = Challenge.parse(value)
                    _ = base.resolving(value)
                    if name.count == 8 { _ = try? RTSPURL(parsing: value) }
                }
                _ = client.request("PLAY", base)
            }
        } catch {
            return
        }
    }
    var tcp = TCPReassembly(maxHeldBytes: 4096, maxHoldNanoseconds: 50)
    var sequence: UInt32 = 0
    offset = 0
    while offset + 2 < bytes.count {
        let length = min(bytes.count - offset - 2, Int(bytes[offset]) & 0x3F)
        let jump = UInt32(bytes[offset + 1])
        let piece = UnsafeRawBufferPointer(rebasing: bytes[offset + 2..<offset + 2 + length])
        tcp.segment(sequenceNumber: sequence &+ jump &- 64, syn: jump == 0, payload: piece, time: Int64(offset)) { _, _ in }
        sequence &+= UInt32(length)
        offset += 2 + length
    }
    tcp.finish { _, _ in }
}

/// Every target, for scripts/fuzz and the regression tests.
public let fuzzTargetNames = ["rtp", "interleaved", "sdp", "bits", "pcap", "flv", "y4m", "audio", "srtp", "rtsp", "h265", "vp8", "vp9",
                              "av1", "mjpeg", "dd", "dtls", "hevcbits",
                              "session", "rtcp", "http", "options", "config"]

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    runFuzzTarget(String(cString: getenv("RTPRECV_FUZZ_TARGET") ?? strdup("rtp")),
                  UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// One input through one target, as the fuzzer runs it; the regression tests replay crashes here.
public func runFuzzTarget(_ target: String, _ bytes: UnsafeRawBufferPointer) {
    switch target {
    case "rtp": fuzzReceiver(bytes, interleaved: false)
    case "interleaved": fuzzReceiver(bytes, interleaved: true)
    case "sdp": fuzzSDP(bytes)
    case "bits": fuzzBitReader(bytes)
    case "pcap": fuzzCapture(bytes)
    case "flv": fuzzFLV(bytes)
    case "y4m": fuzzDecodeAndY4M(bytes)
    case "audio": fuzzAudio(bytes)
    case "srtp": fuzzSRTP(bytes)
    case "rtsp": fuzzRTSP(bytes)
    case "h265": fuzzReceiver(bytes, interleaved: false, codec: .h265)
    case "vp8": fuzzReceiver(bytes, interleaved: false, codec: .vp8)
    case "vp9": fuzzReceiver(bytes, interleaved: false, codec: .vp9)
    case "av1": fuzzReceiver(bytes, interleaved: false, codec: .av1)
    case "mjpeg": fuzzReceiver(bytes, interleaved: false, codec: .mjpeg)
    case "dd": fuzzDependencyDescriptor(bytes)
    case "dtls": fuzzDTLS(bytes)
    case "hevcbits": fuzzHEVCBits(bytes)
    case "session": fuzzSession(bytes)
    case "rtcp": fuzzRTCP(bytes)
    case "http": fuzzHTTP(bytes)
    case "options": fuzzOptions(bytes)
    case "config": fuzzConfig(bytes)
    default: fatalError("RTPRECV_FUZZ_TARGET must be one of: \(fuzzTargetNames.joined(separator: ", "))")
    }
}
