@testable import RTPCore
import XCTest

// A made-up codec added as docs/ADDING_A_CODEC.md says, to show that the receiver takes a payload
// format it was not written for: its codec, its fmtp reader, its format and its registration, and
// nothing else. "TOY/90000": a frame is the packets of one timestamp up to the marker; each payload
// is a flag byte (0x80: a keyframe) and then the frame's bytes.

extension VideoCodec {
    static let toy = VideoCodec(rawValue: "toy", name: "Toy", encodingName: "TOY", decoderName: "rawvideo",
                                parameterSetsInSDP: "none", decodingOrder: "none")
}

/// The toy has no fmtp parameters.
struct ToyFormatParameters: VideoFormatParameters {
    init(_ parameters: [(key: String, value: String)]) {}
    var parameterSets: [[UInt8]] { [] }
    var warnings: [String] { [] }
}

extension VideoPayloadFormatRegistration {
    static let toy = VideoPayloadFormatRegistration(codec: .toy, parameters: ToyFormatParameters.self,
                                                   recognition: ToyRecognition(), track: { _ in nil }) { ssrc, configuration, _ in
        AnyVideoPayloadFormat(ToyPayloadFormat(ssrc: ssrc, configuration: configuration))
    }
}

/// The toy known from its payloads: a flag byte with no bit but the keyframe's, in every payload.
struct ToyRecognition: VideoRecognition {
    private var valid = 0
    private var keyframes = 0
    mutating func record(_ payload: UnsafeRawBufferPointer) {
        guard payload.count >= 2, payload[0] & 0x7F == 0 else { return }
        valid += 1
        if payload[0] != 0 { keyframes += 1 }
    }
    func proves(packets: Int) -> Bool { valid >= 3 && valid == packets }
    var sawKeyframe: Bool { keyframes > 0 }
    var summary: String { "TOY \(keyframes) keyframe packets" }
}

/// The toy's payload format: frames from packets, and the shared verdicts on each.
final class ToyPayloadFormat: VideoPayloadFormat {
    var output: (FrameRecord, AccessUnit?) throws -> Bool = { _, _ in false }
    var onNotice: (StreamNotice) -> Void = { _ in }
    let codec = VideoCodec.toy
    let clockRate: Int
    private(set) var invalidPayload: [VideoPayloadInvalid: Int] = [:]
    private let verdicts: FrameVerdicts
    /// The frame in progress: its timestamp, whether it is a keyframe, its bytes and packets.
    private var open: (timestamp: UInt32, isKeyframe: Bool)?
    private var bytes: [UInt8] = []
    private var packets = PacketSpan()
    private var damage: AccessUnitDamage?
    /// Nothing was lost since the last keyframe written.
    private var referencesIntact = false
    private var framesSeen = 0

    init(ssrc: UInt32, configuration: VideoFormatConfiguration) {
        clockRate = configuration.clockRate
        verdicts = FrameVerdicts(ssrc: ssrc, configuration: configuration)
        verdicts.emit = { [unowned self] record, accessUnit in try self.output(record, accessUnit) }
    }

    var wantsKeyframe: Bool { verdicts.wantsKeyframe }
    func outputWithdrew(_ record: FrameRecord) { verdicts.withdraw(record) }
    func addParameterSets(_ nalUnits: [[UInt8]]) {}
    func provesCodec(given: Bool) -> Bool { framesSeen > 0 }

    func accepts(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard payload.count >= 2, payload[0] & 0x7F == 0 else {
            invalidPayload[payload.isEmpty ? .empty : .tooShort, default: 0] += 1
            return false
        }
        return true
    }

    func process(payload: UnsafeRawBufferPointer, headerExtension: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool,
                 lostBefore: Int, arrival: Int64, borrowing: Bool, sequenceNumber: Int64) throws {
        if let frame = open, frame.timestamp != timestamp { try finish(arrival: arrival) }
        if lostBefore > 0 {
            // The loss may have held this frame's start or the last one's end: this one is damaged.
            var d = damage ?? AccessUnitDamage()
            d.add(.missingPackets, missing: lostBefore, beforeFirstSlice: false)
            damage = d
        }
        if open == nil { open = (timestamp, payload[0] & 0x80 != 0) }
        bytes.append(contentsOf: payload.view(1..<payload.count))
        packets.add(sequenceNumber)
        if marker { try finish(arrival: arrival) }
    }

    private func finish(arrival: Int64) throws {
        guard let frame = open else { return }
        defer { (open, damage, packets) = (nil, nil, PacketSpan()); bytes.removeAll(keepingCapacity: true) }
        framesSeen += 1
        if damage != nil { referencesIntact = false }
        let pts = verdicts.presentationTime(timestamp: frame.timestamp, arrival: arrival, isIDR: frame.isKeyframe,
                                            newPicture: true) { nil }
        // Nothing of a damaged toy frame can be mended: it has no slices to begin a picture.
        let facts = FrameVerdicts.Facts(timestamp: frame.timestamp, packets: packets, bytes: bytes.count,
                                        isKeyframe: frame.isKeyframe, damage: damage, pts: pts, slicesBeginPicture: false,
                                        slicesNameParameterSets: false, slicesHaveParameterSets: true,
                                        referencesIntact: referencesIntact || frame.isKeyframe)
        guard case .toWrite(let record) = try verdicts.judge(facts) else {
            referencesIntact = false
            return
        }
        try bytes.withUnsafeBytes { raw in
            try [raw].withUnsafeBufferPointer { pieces in
                var accessUnit = AccessUnit(record: record, pts: pts, pieces: pieces, isIDR: frame.isKeyframe, arrival: arrival,
                                            codec: codec)
                guard try verdicts.write(&accessUnit) else { return }
                verdicts.wrote(accessUnit.record, isKeyframe: frame.isKeyframe, referencesIntact: facts.referencesIntact)
                if frame.isKeyframe { referencesIntact = true }
            }
        }
    }

    func tick(now: Int64) throws {}
    func flush() throws { try finish(arrival: 0) }
    func restart() { verdicts.restart() }
    // The toy copies every payload: it never refers to the caller's memory.
    func refers(to memory: UnsafeRawBufferPointer) -> Bool { false }
    func stopReferring(to memory: UnsafeRawBufferPointer) {}

    func fold(into s: inout StreamStatistics) {
        s.codec = codec
        s.invalidPayload = invalidPayload
        verdicts.fold(into: &s)
    }
}

final class ToyCodecTests: XCTestCase {
    /// Packets of toy frames: (flag, bytes) per packet, the last of a frame with the marker.
    private func toyPackets(_ frames: [(key: Bool, parts: [[UInt8]])], firstSequence: UInt16 = 1) -> [[UInt8]] {
        var seq = firstSequence
        return frames.enumerated().flatMap { i, frame in
            frame.parts.enumerated().map { j, part in
                defer { seq &+= 1 }
                return Fixture.rtp(seq: seq, ts: UInt32(i * 3000), marker: j == frame.parts.count - 1, pt: 97,
                                   payload: [frame.key ? 0x80 : 0] + part)
            }
        }
    }

    private func feeder(_ configure: (inout Receiver.Configuration) -> Void = { _ in }) -> Feeder {
        Feeder {
            $0.formats = VideoPayloadFormats.registered + [.toy]
            configure(&$0)
        }
    }

    /// With no SDP and no codec named, the toy is tried beside H.264 and H.265, proves itself, and
    /// its frames are written whole from its first keyframe on.
    func testTheReceiverTakesACodecItWasNotWrittenFor() throws {
        let f = feeder()
        let frames: [(key: Bool, parts: [[UInt8]])] = [(false, [[1, 2]]), (true, [[10, 11], [12]]), (false, [[20]]),
                                                      (false, [[30, 31], [32, 33]])]
        for packet in toyPackets(frames) { try f.send(packet) }
        let written = try f.finish()
        XCTAssertEqual(written, [[10, 11, 12], [20], [30, 31, 32, 33]])
        XCTAssertEqual(f.sink.keyframes, [true, false, false])
        XCTAssertEqual(f.stream.codec, .toy)
        XCTAssertEqual(f.stream.frames.written, 3)
        XCTAssertEqual(f.stream.frames.beforeFirstKeyframe, 1)
        XCTAssertEqual(f.sink.records.map(\.status), [.written, .written, .written])
    }

    /// A lost packet drops its frame, and with the wait for a keyframe after loss, the frames up to
    /// the next keyframe: the shared verdicts, with the toy's own facts.
    func testALostPacketDropsItsFrameAndTheFramesUpToTheNextKeyframe() throws {
        let f = feeder {
            $0.codec = .toy
            $0.video.waitForKeyframeAfterLoss = true
        }
        var packets = toyPackets([(true, [[1]]), (false, [[2], [3]]), (false, [[4]]), (true, [[5]]), (false, [[6]])])
        packets.remove(at: 1)  // the first packet of the second frame
        for packet in packets { try f.send(packet) }
        let written = try f.finish()
        XCTAssertEqual(written, [[1], [5], [6]])
        XCTAssertEqual(f.sink.records.map(\.status), [.written, .dropped, .dropped, .written, .written])
        XCTAssertEqual(f.sink.records.map(\.reason), [nil, .missingPackets, .waitingForKeyframe, nil, nil])
        XCTAssertEqual(f.stream.frames.dropped(.missingPackets), 1)
    }

    /// Payloads the toy refuses are counted by reason, as every format's are.
    func testPayloadsTheFormatRefusesAreCounted() throws {
        let f = feeder { $0.codec = .toy }
        for packet in toyPackets([(true, [[1]])]) { try f.send(packet) }
        try f.send(Fixture.rtp(seq: 2, ts: 3000, marker: true, pt: 97, payload: [0x01]))
        _ = try f.finish()
        XCTAssertEqual(f.stream.invalidPayload[.tooShort], 1)
    }

    /// Without an SDP, a capture's survey (`--list`) knows the toy from its payloads, as its
    /// recognition says, and not as H.264 or H.265.
    func testTheSurveyKnowsTheCodecFromItsPayloads() throws {
        var survey = StreamSurvey(formats: VideoPayloadFormats.registered + [.toy])
        let frames: [(key: Bool, parts: [[UInt8]])] = [(true, [[1, 2], [3]]), (false, [[4]]), (false, [[5]])]
        for packet in toyPackets(frames) {
            packet.withUnsafeBytes { survey.add(datagram: $0, source: nil, destination: nil, time: 0) }
        }
        let entry = try XCTUnwrap(survey.entries.values.first?.main)
        XCTAssertEqual(entry.codec, .video(.toy))
        XCTAssertTrue(entry.sawKeyframe)
        XCTAssertEqual(entry.recognition(of: .toy)?.summary, "TOY 2 keyframe packets")
    }
}
