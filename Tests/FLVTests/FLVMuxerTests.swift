import XCTest
@testable import FLV
@testable import RTPCore

/// Muxes synthetic access units and walks the file tag by tag.
final class FLVMuxerTests: XCTestCase {
    /// 320x240 Baseline SPS (id 0) and its PPS, as x264 writes them.
    let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E, 0xD9, 0x01, 0x41, 0xFB, 0x01, 0x10, 0x00, 0x00, 0x03, 0x00,
                        0x10, 0x00, 0x00, 0x03, 0x03, 0xC0, 0xF1, 0x62, 0xE4, 0x80]
    let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    let idr: [UInt8] = [0x65, 0x88, 0x84] + Array(repeating: 0x11, count: 30)
    let p: [UInt8] = [0x41, 0x9A, 0x02] + Array(repeating: 0x22, count: 20)

    private func annexB(_ nals: [[UInt8]]) -> [UInt8] { nals.flatMap { [0, 0, 0, 1] + $0 } }

    private func mux(_ units: [(nals: [[UInt8]], ts: Int64, key: Bool, followsLoss: Bool)],
                     configuration: FLVMuxer.Configuration = .init()) throws -> ([UInt8], FLVMuxer) {
        let muxer = FLVMuxer(configuration: configuration)
        var file: [UInt8] = []
        for u in units {
            let bytes = annexB(u.nals)
            // In three pieces, split anywhere, as access units referring to packets come.
            try bytes.withUnsafeBytes { b in
                let thirds = [b.count / 3, 2 * b.count / 3]
                let pieces = [UnsafeRawBufferPointer(rebasing: b[0..<thirds[0]]),
                              UnsafeRawBufferPointer(rebasing: b[thirds[0]..<thirds[1]]),
                              UnsafeRawBufferPointer(rebasing: b[thirds[1]...])]
                try pieces.withUnsafeBufferPointer { pieces in
                    try muxer.write(AccessUnit(timestamp: UInt32(truncatingIfNeeded: u.ts), pts: u.ts, pieces: pieces,
                                               isKeyframe: u.key, referencesIntact: !u.followsLoss)) { file += $0 }
                }
            }
        }
        try muxer.finish { file += $0 }
        return (file, muxer)
    }

    struct Tag {
        var type: UInt8
        var time: UInt32
        var data: ArraySlice<UInt8>
    }

    /// Every tag, checking the header, each PreviousTagSize and that the file ends on a tag boundary.
    private func walk(_ file: [UInt8], flags: UInt8 = FLVHeaderFlags.video, line: UInt = #line) -> [Tag] {
        XCTAssertEqual(Array(file.prefix(3)), Array("FLV".utf8), line: line)
        XCTAssertEqual(file[3], 1, line: line)
        XCTAssertEqual(file[4], flags, line: line)
        XCTAssertEqual(Array(file[5..<13]), [0, 0, 0, 9, 0, 0, 0, 0], "header size 9, PreviousTagSize0 0", line: line)
        var tags: [Tag] = []
        var i = 13
        while i < file.count {
            guard i + 11 <= file.count else { XCTFail("tag header cut at \(i)", line: line); break }
            let size = Int(file[i + 1]) << 16 | Int(file[i + 2]) << 8 | Int(file[i + 3])
            let time = UInt32(file[i + 7]) << 24 | UInt32(file[i + 4]) << 16 | UInt32(file[i + 5]) << 8 | UInt32(file[i + 6])
            XCTAssertEqual(Array(file[i + 8..<i + 11]), [0, 0, 0], "stream id", line: line)
            let end = i + 11 + size
            guard end + 4 <= file.count else { XCTFail("tag data cut at \(i)", line: line); break }
            let previous = Int(file[end]) << 24 | Int(file[end + 1]) << 16 | Int(file[end + 2]) << 8 | Int(file[end + 3])
            XCTAssertEqual(previous, 11 + size, "PreviousTagSize after the tag at \(i)", line: line)
            tags.append(Tag(type: file[i], time: time, data: file[i + 11..<end]))
            i = end + 4
        }
        XCTAssertEqual(i, file.count, line: line)
        return tags
    }

    func testTagsAndPreviousTagSizes() throws {
        let (file, muxer) = try mux([
            ([[0x09, 0xF0], sps, pps, idr], 1000, true, false),
            ([p], 4000, false, false),
            ([p], 7000, false, false),
        ])
        let tags = walk(file)
        XCTAssertEqual(tags.map(\.type), [18, 9, 9, 9, 9, 9])
        // onMetaData first, then the sequence header, three NALU tags and the end of sequence.
        XCTAssertEqual(Array(tags[0].data.prefix(13)), [AMF0Marker.string, 0, 10] + Array("onMetaData".utf8))
        XCTAssertEqual(Array(tags[1].data.prefix(2)), [0x17, AVCPacketType.sequenceHeader.rawValue])
        XCTAssertEqual(tags[1].data[tags[1].data.startIndex + 5], 1, "configurationVersion")
        XCTAssertEqual(tags.dropFirst(2).prefix(3).map { $0.data.first! }, [0x17, 0x27, 0x27])
        XCTAssertEqual(tags.dropFirst(2).prefix(3).map(\.time), [0, 33, 66])
        XCTAssertEqual(Array(tags[5].data), [0x17, AVCPacketType.endOfSequence.rawValue, 0, 0, 0])
        // The keyframe's NALU tag holds the IDR alone, length-prefixed: no start code, no AUD, no SPS/PPS.
        let body = Array(tags[2].data.dropFirst(5))
        XCTAssertEqual(body, [0, 0, 0, UInt8(idr.count)] + idr)
        XCTAssertEqual(muxer.statistics.framesWritten, 3)
    }

    func testFramesAfterALossWaitForTheNextKeyframe() throws {
        let (file, muxer) = try mux([
            ([sps, pps, idr], 0, true, false),
            ([p], 3000, false, true),
            ([sps, pps, idr], 6000, true, false),
            ([p], 9000, false, false),
        ])
        XCTAssertEqual(walk(file).filter { $0.type == 9 }.count, 1 + 3 + 1)
        XCTAssertEqual(muxer.statistics.droppedAfterLoss, 1)
        XCTAssertEqual(muxer.statistics.sequenceHeaders, 1, "the same SPS/PPS need no second header")
    }

    func testTimestampWrapAndJumpGiveNoGap() throws {
        // The RTP clock wraps at 2^32 (the extended timestamp goes on), then the sender jumps 10 hours.
        let start: Int64 = (1 << 32) - 3000
        let (file, muxer) = try mux([
            ([sps, pps, idr], start, true, false),
            ([p], start + 3000, false, false),
            ([p], start + 3000 + 90000 * 36000, false, false),
        ])
        let times = walk(file).filter { $0.type == 9 }.map(\.time)
        XCTAssertEqual(Array(times.dropFirst().dropLast()), [0, 33, 66])
        XCTAssertEqual(muxer.statistics.timestampJumps, 1)
    }

    /// Frames closer than a millisecond (a burst after a reconnect) never share a tag time:
    /// muxers and players refuse a repeated one. Each is written 1 ms after the one before.
    func testFramesOfABurstNeverRepeatATime() throws {
        let (file, muxer) = try mux([
            ([sps, pps, idr], 0, true, false),
            ([p], 45, false, false),    // 0.5 ms later
            ([p], 90, false, false),
            ([p], 3000, false, false),  // 33 ms
        ])
        let times = walk(file).filter { $0.type == 9 }.dropFirst().dropLast().map(\.time)
        XCTAssertEqual(times, [0, 1, 2, 33])
        XCTAssertEqual(muxer.statistics.framesMadeLater, 2)
    }

    func testMetadataPatchesRewriteDurationAndSize() throws {
        var (file, muxer) = try mux([([sps, pps, idr], 0, true, false), ([p], 3000, false, false)])
        for patch in muxer.metadataPatches() { file.replaceSubrange(patch.offset..<patch.offset + 8, with: patch.bytes) }
        let meta = walk(file)[0].data
        func number(_ key: String) -> Double? {
            let needle = [0, UInt8(key.utf8.count)] + Array(key.utf8) + [AMF0Marker.number]
            guard let at = Array(meta).firstRange(of: needle)?.upperBound else { return nil }
            let start = meta.startIndex + at
            let bits = meta[start..<start + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return Double(bitPattern: bits)
        }
        XCTAssertEqual(number("filesize"), Double(file.count))
        XCTAssertEqual(number("width"), 320)
        XCTAssertEqual(number("height"), 240)
        XCTAssertEqual(number("videocodecid"), 7)
        XCTAssertEqual(try XCTUnwrap(number("duration")), 0.066, accuracy: 0.001)
    }

    /// Frames of a codec FLV has no code for never go in, whether they come first or later: the
    /// file is its first carried codec's, and the others are counted.
    func testFramesOfACodecFLVDoesNotCarryAreCountedAndLeftOut() throws {
        let other = VideoCodec(rawValue: "other", name: "Other", encodingName: "OTHER", decoderName: "rawvideo",
                               parameterSetsInSDP: "none", decodingOrder: "none")
        XCTAssertFalse(FLVMuxer.carries(other))
        let muxer = FLVMuxer()
        var file: [UInt8] = []
        for (i, (codec, nals, key)) in [(other, [[0x80, 1, 2, 3]], true), (VideoCodec.h264, [sps, pps, idr], true),
                                       (other, [[0x00, 4, 5]], false), (VideoCodec.h264, [p], false)].enumerated() {
            let bytes = annexB(nals)
            try bytes.withUnsafeBytes { b in
                try [b].withUnsafeBufferPointer { pieces in
                    try muxer.write(AccessUnit(timestamp: UInt32(i * 3000), pts: Int64(i * 3000), pieces: pieces, isKeyframe: key,
                                               codec: codec)) { file += $0 }
                }
            }
        }
        try muxer.finish { file += $0 }
        // The sequence header, the IDR, the P frame and the end of sequence: AVC's, and nothing else.
        XCTAssertEqual(walk(file).filter { $0.type == 9 }.map { $0.data.first! }, [0x17, 0x17, 0x27, 0x17])
        XCTAssertEqual(muxer.statistics.droppedOtherCodec, 2)
        XCTAssertEqual(muxer.statistics.framesWritten, 2)
    }

    func testFrameTooLargeForATagIsLeftOutWithTheFramesThatReferToIt() throws {
        // 17 MiB of filler data (NAL type 12) after the IDR: more than a 24-bit DataSize holds.
        let filler = [0x0C] + [UInt8](repeating: 0xFF, count: 17 << 20) + [0x80]
        let (file, muxer) = try mux([
            ([sps, pps, idr, filler], 0, true, false),
            ([p], 3000, false, false),
            ([sps, pps, idr], 6000, true, false),
            ([p], 9000, false, false),
        ])
        let video = walk(file).filter { $0.type == 9 }
        // The sequence header, the second IDR and its P frame, the end of sequence: every DataSize true.
        XCTAssertEqual(video.map { $0.data.first! }, [0x17, 0x17, 0x27, 0x17])
        XCTAssertEqual(muxer.statistics.droppedTooLarge, 1)
        XCTAssertEqual(muxer.statistics.droppedAfterLoss, 1)
        XCTAssertEqual(muxer.statistics.framesWritten, 2)
    }

    func testTimestampExtendedByteHoldsTheHighBits() throws {
        // 2^24 ms and more (about 4.7 hours): the low 24 bits in Timestamp, the high 8 in TimestampExtended.
        var configuration = FLVMuxer.Configuration()
        configuration.maxTimestampJumpMilliseconds = 1 << 30  // a long gap, not a sender restart
        let (file, _) = try mux([
            ([sps, pps, idr], 0, true, false),
            ([p], 90 * (1 << 24) + 90 * 5, false, false),
        ], configuration: configuration)
        let times = walk(file).filter { $0.type == 9 }.map(\.time)
        XCTAssertEqual(times[2], 1 << 24 | 5, "the walk reads TimestampExtended as the high byte")
        let tag = try XCTUnwrap(walk(file).filter { $0.type == 9 }.dropFirst(2).first)
        XCTAssertEqual(Array(file[(tag.data.startIndex - 7)..<(tag.data.startIndex - 3)]), [0, 0, 5, 1])
    }

    func testAudioAndVideoGoOutInDecodeTimeOrderWithTheExactAudioSpecificConfig() throws {
        var configuration = FLVMuxer.Configuration()
        configuration.expectsAudio = true
        let muxer = FLVMuxer(configuration: configuration)
        var file: [UInt8] = []
        let config = try AudioSpecificConfig(hex: "119056E500")
        let track = AudioTrack(codec: .aac(config), clockRate: 48000, sampleRate: 48000, channels: 2)
        // Video every 33 ms from 0; audio every 21.3 ms from 10 ms, arriving 40 ms after its time.
        var audioIndex = 0
        for frame in 0..<6 {
            let nals = frame == 0 ? [sps, pps, idr] : [p]
            let time = Int64(frame) * 33_333_333
            try annexB(nals).withUnsafeBytes { b in
                try [b].withUnsafeBufferPointer { pieces in
                    var au = AccessUnit(timestamp: UInt32(frame * 3000), pts: Int64(frame * 3000), pieces: pieces, isKeyframe: frame == 0)
                    au.time = time
                    au.arrival = time
                    try muxer.write(au) { file += $0 }
                }
            }
            while Int64(audioIndex) * 21_333_333 + 10_000_000 + 40_000_000 <= time {
                let t = Int64(audioIndex) * 21_333_333 + 10_000_000
                let samples: [UInt8] = [0x21, UInt8(audioIndex)]
                try samples.withUnsafeBytes { bytes in
                    let record = FrameRecord(ssrc: 2, timestamp: 0, firstSequenceNumber: 0, lastSequenceNumber: 0, packets: 1,
                                             bytes: 2, isKeyframe: true, status: .written, referencesIntact: true,
                                             presentationMilliseconds: 0)
                    var frame = AudioFrame(track: track, record: record, pts: Int64(audioIndex * 1024), duration: 1024,
                                           gapBefore: 0, bytes: bytes, arrival: t + 40_000_000)
                    frame.time = t
                    try muxer.write(audio: frame) { file += $0 }
                }
                audioIndex += 1
            }
        }
        try muxer.finish { file += $0 }
        let tags = walk(file, flags: FLVHeaderFlags.video | FLVHeaderFlags.audio)
        let media = tags.filter { $0.type != 18 }
        XCTAssertEqual(media.map(\.time), media.map(\.time).sorted(), "decode times never go back")
        let audio = tags.filter { $0.type == 8 }
        XCTAssertEqual(Array(audio[0].data), [0xAF, 0x00, 0x11, 0x90, 0x56, 0xE5, 0x00], "AAC sequence header, config as given")
        XCTAssertEqual(Array(audio[1].data), [0xAF, 0x01, 0x21, 0x00])
        XCTAssertEqual(audio.dropFirst().map(\.time), (0..<audioIndex).map { UInt32((Int64($0) * 21_333_333 + 10_000_000) / 1_000_000) })
        XCTAssertEqual(muxer.statistics.tagsRetimed, 0)
        XCTAssertEqual(muxer.statistics.audioFramesWritten, audioIndex)
    }

    func testASilentTrackHoldsTheOtherBackOnlyAsLongAsTheWait() throws {
        var configuration = FLVMuxer.Configuration()
        configuration.expectsAudio = true
        configuration.maxInterleaveWaitMilliseconds = 100
        let muxer = FLVMuxer(configuration: configuration)
        var written: [UInt8] = []
        for frame in 0..<10 {
            try annexB(frame == 0 ? [sps, pps, idr] : [p]).withUnsafeBytes { b in
                try [b].withUnsafeBufferPointer { pieces in
                    var au = AccessUnit(timestamp: 0, pts: Int64(frame * 3000), pieces: pieces, isKeyframe: frame == 0)
                    au.time = Int64(frame) * 33_333_333
                    au.arrival = au.time!
                    try muxer.write(au) { written += $0 }
                }
            }
        }
        // No audio came: the header and the frames older than 100 ms went out before the end.
        XCTAssertGreaterThan(muxer.statistics.framesWritten, 5)
        XCTAssertEqual(written[4], FLVHeaderFlags.video)
    }
}
