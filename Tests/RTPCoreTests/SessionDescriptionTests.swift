import XCTest
@testable import RTPCore

final class SessionDescriptionTests: XCTestCase {
    func testFFmpegSDPGivesPortPayloadTypeAndParameterSets() throws {
        let sdp = try SessionDescription(parsing: """
            v=0\r
            o=- 0 0 IN IP4 127.0.0.1\r
            s=No Name\r
            c=IN IP4 239.1.2.3/16\r
            t=0 0\r
            m=video 5006 RTP/AVP 96\r
            a=rtpmap:96 H264/90000\r
            a=fmtp:96 packetization-mode=1; sprop-parameter-sets=Z0LAHtkBQfsBEAAAAwAQAAADA8DxYuSA,aM48gA==; profile-level-id=42C01E\r

            """)
        XCTAssertEqual(sdp.port, 5006)
        XCTAssertEqual(sdp.payloadType, 96)
        XCTAssertEqual(sdp.connectionAddress, "239.1.2.3")
        XCTAssertEqual(sdp.h264?.packetizationMode, 1)
        XCTAssertEqual(sdp.h264?.profileLevelId, "42C01E")
        XCTAssertEqual(sdp.parameterSets, [Fixture.sps, Fixture.pps])
    }

    /// RFC 4570: the video's own source-filter wins over the session's; only an inclusive one with
    /// a source is used, and one source is joined.
    func testSourceFilterForSourceSpecificMulticast() throws {
        let session = try SessionDescription(parsing: """
            c=IN IP4 232.1.1.1/16
            a=source-filter: incl IN IP4 232.1.1.1 192.0.2.10
            m=audio 5000 RTP/AVP 0
            a=source-filter: incl IN IP4 * 198.51.100.1
            m=video 5004 RTP/AVP 96
            """)
        XCTAssertEqual(session.sourceFilter, "192.0.2.10")
        XCTAssertEqual(session.connectionAddress, "232.1.1.1")

        let media = try SessionDescription(parsing: """
            a=source-filter: incl IN IP6 ff3e::1 2001:db8::1
            m=video 5004 RTP/AVP 96
            c=IN IP6 ff3e::1
            a=source-filter: incl IN IP6 ff3e::1 2001:db8::7 2001:db8::8
            """)
        XCTAssertEqual(media.sourceFilter, "2001:db8::7")
        XCTAssertEqual(media.warnings.count, 1)
        XCTAssertTrue(media.warnings[0].contains("only 2001:db8::7 is joined"), media.warnings[0])

        let excluding = try SessionDescription(parsing: """
            m=video 5004 RTP/AVP 96
            a=source-filter: excl IN IP4 232.1.1.1 192.0.2.10
            """)
        XCTAssertNil(excluding.sourceFilter)
        XCTAssertEqual(excluding.warnings.count, 1)
    }

    func testSpropQuirksAreTolerated() throws {
        // Empty items, a trailing comma, missing padding, an SPS alone.
        let sdp = try SessionDescription(parsing: """
            m=video 0 RTP/AVP 97
            a=rtpmap:97 H264/90000
            a=fmtp:97 sprop-parameter-sets=,Z0LAHtkBQfsBEAAAAwAQAAADA8DxYuSA,;packetization-mode=0
            """)
        XCTAssertEqual(sdp.parameterSets, [Fixture.sps])
        XCTAssertEqual(sdp.payloadType, 97)
    }

    /// Start codes inside an item (GW Security's cameras end each with 00 00 00 01; others begin
    /// with one, or put both sets in one item): the NAL units between them, without the codes.
    func testStartCodesInSpropItemsAreTakenAsBoundaries() throws {
        for sprop in ["Z0LAHtkBQfsBEAAAAwAQAAADA8DxYuSAAAAAAQ==,AAAAAWjOPIA=", "AAAAAWdCwB7ZAUH7ARAAAAMAEAAAAwPA8WLkgAAAAWjOPIAAAAAB"] {
            let sdp = try SessionDescription(parsing: "m=video 0 RTP/AVP 96\na=rtpmap:96 H264/90000\na=fmtp:96 sprop-parameter-sets=\(sprop)\n")
            XCTAssertEqual(sdp.parameterSets, [Fixture.sps, Fixture.pps], sprop)
        }
        let vps = "QAEMAf//AWAAAAMAkAAAAwAAAwA8lZQJ"
        let hevc = H265FormatParameters([("sprop-vps", Data([0, 0, 0, 1] + Data(base64Encoded: vps)! + [0, 0, 0, 1]).base64EncodedString())])
        XCTAssertEqual(hevc.parameterSets, [[UInt8](Data(base64Encoded: vps)!)])
    }

    func testGarbageSpropItemIsSkippedWithAWarning() throws {
        let sdp = try SessionDescription(parsing: "m=video 1 RTP/AVP 96\na=fmtp:96 sprop-parameter-sets=Z0LA*,aM48gA==\n")
        XCTAssertEqual(sdp.parameterSets, [Fixture.pps])
        XCTAssertEqual(sdp.warnings.count, 1)
    }

    func testEveryMediaLineIsReadWithItsFormatsAndRTCP() throws {
        // A camera's session: H.264 and AAC (mpeg4-generic), RTCP muxed on the video, on its own
        // port for the audio; controls and SSRCs as RTSP servers and WebRTC stacks give them.
        let sdp = try SessionDescription(parsing: """
            v=0\r
            o=- 1 1 IN IP4 192.0.2.1\r
            s=camera\r
            c=IN IP4 192.0.2.1\r
            t=0 0\r
            m=video 5004 RTP/AVPF 96 97\r
            a=rtpmap:96 H264/90000\r
            a=fmtp:96 packetization-mode=1;sprop-parameter-sets=Z0LAHtkBQfsBEAAAAwAQAAADA8DxYuSA,aM48gA==\r
            a=rtpmap:97 rtx/90000\r
            a=fmtp:97 apt=96\r
            a=rtcp-mux\r
            a=control:trackID=1\r
            a=ssrc:287454020 cname:camera@example\r
            m=audio 5006/2 RTP/AVP 98 0\r
            c=IN IP4 239.1.2.3/16\r
            a=rtpmap:98 mpeg4-generic/48000/2\r
            a=fmtp:98 streamtype=5; profile-level-id=1; mode=AAC-hbr; sizelength=13; indexlength=3; indexdeltalength=3; config=1190\r
            a=rtcp:5009\r
            a=control:rtsp://192.0.2.1/stream/trackID=2\r
            m=application 0 RTP/AVP 100\r

            """)
        XCTAssertEqual(sdp.media.map(\.media), ["video", "audio", "application"])
        let video = sdp.media[0], audio = sdp.media[1]
        XCTAssertEqual(video.proto, "RTP/AVPF")
        XCTAssertEqual(video.payloadTypes, [96, 97])
        XCTAssertEqual(video.formats[97]?.encodingName, "rtx")
        XCTAssertEqual(video.formats[97]?.parameter("apt"), "96")
        XCTAssertTrue(video.rtcpMux)
        XCTAssertEqual(video.expectedRTCPPort, 5004)
        XCTAssertEqual(video.control, "trackID=1")
        XCTAssertEqual(video.ssrcs.first?.ssrc, 287454020)
        XCTAssertEqual(video.ssrcs.first?.attribute, "cname")
        XCTAssertEqual(video.ssrcs.first?.value, "camera@example")
        XCTAssertEqual(video.connectionAddress, "192.0.2.1")
        XCTAssertEqual(audio.port, 5006)
        XCTAssertEqual(audio.portCount, 2)
        XCTAssertEqual(audio.connectionAddress, "239.1.2.3")
        XCTAssertEqual(audio.expectedRTCPPort, 5009)
        XCTAssertEqual(audio.formats[98]?.encodingName, "mpeg4-generic")
        XCTAssertEqual(audio.formats[98]?.clockRate, 48000)
        XCTAssertEqual(audio.formats[98]?.channels, 2)
        XCTAssertEqual(audio.formats[98]?.parameter("sizelength"), "13")
        XCTAssertEqual(audio.formats[98]?.parameter("config"), "1190")
        XCTAssertEqual(audio.formats[0]?.encodingName, "PCMU", "a static payload type needs no rtpmap")
        XCTAssertEqual(audio.formats[0]?.clockRate, 8000)
        XCTAssertEqual(sdp.media[2].port, 0)
        // The video fields come from the H.264 line.
        XCTAssertEqual(sdp.port, 5004)
        XCTAssertEqual(sdp.payloadType, 96)
        XCTAssertEqual(sdp.parameterSets, [Fixture.sps, Fixture.pps])
        XCTAssertTrue(sdp.warnings.isEmpty, "\(sdp.warnings)")
    }

    /// RFC 8285's a=extmap: an ID (with a direction or not) and a URI; one without either is said
    /// and skipped; the receiver reads the dependency descriptor's ID from it.
    func testHeaderExtensionsAreMappedByID() throws {
        let sdp = try SessionDescription(parsing: """
            v=0\r
            c=IN IP4 127.0.0.1\r
            m=video 5004 UDP/TLS/RTP/SAVPF 45\r
            a=rtpmap:45 AV1/90000\r
            a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r
            a=extmap:11/recvonly \(DependencyDescriptor.uri)\r
            a=extmap:x urn:ietf:params:rtp-hdrext:toffset\r
            a=extmap:12\r

            """)
        let video = try XCTUnwrap(sdp.video)
        XCTAssertEqual(video.headerExtensions.map(\.id), [4, 11])
        XCTAssertEqual(video.headerExtensionID(uri: "urn:ietf:params:rtp-hdrext:sdes:mid"), 4)
        XCTAssertEqual(sdp.warnings.count, 2, "\(sdp.warnings)")
        var configuration = Receiver.Configuration()
        configuration.take(sdp)
        XCTAssertEqual(configuration.video.dependencyDescriptorID, 11)
    }

    /// A clock rate every clock divides by (0 divided by zero in the frame gates) or multiplies by (a
    /// huge one overflowed): outside 1 Hz…10 MHz it is an error naming the line; so is a channel
    /// count outside 1…255.
    func testClockRatesOutsideOneHertzToTenMegahertzAreErrorsNamingTheLine() throws {
        for (rtpmap, said) in [("H264/0", "clock rate '0'"), ("H264/10000001", "clock rate '10000001'"), ("H264/-90000", "clock rate '-90000'"),
                               ("H264/99999999999999999999", "clock rate '99999999999999999999'"), ("H264/", "clock rate ''"),
                               ("opus/48000/0", "channel count '0'"), ("L16/44100/65536", "channel count '65536'")] {
            let text = "v=0\nm=video 5004 RTP/AVP 96\na=rtpmap:96 \(rtpmap)\n"
            XCTAssertThrowsError(try SessionDescription(parsing: text), rtpmap) { error in
                let description = "\(error)"
                XCTAssertTrue(description.contains("line 3") && description.contains(said), description)
            }
        }
        let edges = try SessionDescription(parsing: "v=0\nm=audio 5004 RTP/AVP 96 97\na=rtpmap:96 L16/1/2\na=rtpmap:97 X/10000000\n")
        XCTAssertEqual(edges.media[0].formats[96]?.clockRate, 1)
        XCTAssertEqual(edges.media[0].formats[96]?.channels, 2)
        XCTAssertEqual(edges.media[0].formats[97]?.clockRate, 10_000_000)
    }

    /// An fmtp line with no parameters (a camera's Opus: `a=fmtp:97`, with or without a space after)
    /// says nothing and is taken; one without its payload type is still an error naming the line.
    func testAnFmtpWithoutParametersIsTaken() throws {
        for fmtp in ["a=fmtp:97", "a=fmtp:97 "] {
            let sdp = try SessionDescription(parsing: """
                v=0\r
                m=audio 0 RTP/AVP 97\r
                a=rtpmap:97 opus/48000/2\r
                \(fmtp)\r
                m=video 0 RTP/AVP 96\r
                a=rtpmap:96 H264/90000\r
                a=fmtp:96 packetization-mode=1\r

                """)
            XCTAssertEqual(sdp.media.count, 2, fmtp)
            XCTAssertEqual(sdp.media[0].formats[97]?.encodingName, "opus", fmtp)
            XCTAssertTrue(sdp.media[0].formats[97]?.parameters.isEmpty ?? false, fmtp)
            XCTAssertEqual(sdp.media[1].formats[96]?.parameter("packetization-mode"), "1", fmtp)
        }
        XCTAssertThrowsError(try SessionDescription(parsing: "v=0\nm=audio 0 RTP/AVP 97\na=fmtp: x=1\n")) { error in
            XCTAssertTrue("\(error)".contains("line 3"), "\(error)")
        }
    }

    /// Cameras' SDPs with a broken line where nothing is taken from it: a truncated c= line, an
    /// empty rtpmap and a clock rate of 0 in a metadata line. Each is a warning naming its line; the
    /// same in the video line is still an error.
    func testBrokenLinesOutsideTheMediaTakenAreWarnings() throws {
        let sdp = try SessionDescription(parsing: """
            v=0\r
            c=IN \r
            m=video 5004 RTP/AVP 96\r
            a=rtpmap:96 H264/90000\r
            m=application 42508 RTP/AVP 107 95\r
            a=rtpmap:\r
            a=rtpmap:95 tp-link/0\r

            """)
        XCTAssertEqual(sdp.payloadType, 96)
        XCTAssertEqual(sdp.codec, .h264)
        XCTAssertEqual(sdp.warnings.count, 3, "\(sdp.warnings)")
        XCTAssertEqual(sdp.warnings.map { $0.prefix(7) }, ["line 2:", "line 6:", "line 7:"])
        XCTAssertThrowsError(try SessionDescription(parsing: "v=0\nm=video 5004 RTP/AVP 96\na=rtpmap:\n"))
    }

    func testAudioOnlySessionHasNoVideo() throws {
        let sdp = try SessionDescription(parsing: "m=audio 5000 RTP/AVP 0\n")
        XCTAssertNil(sdp.video)
        XCTAssertNil(sdp.payloadType)
        XCTAssertEqual(sdp.media.first?.formats[0]?.encodingName, "PCMU")
    }
}

final class SequenceParameterSetTests: XCTestCase {
    func testResolutionAndProfile() throws {
        let sps = try XCTUnwrap(Fixture.sps.withUnsafeBytes { SequenceParameterSet(nal: $0) })
        XCTAssertEqual(sps.profileIdc, 66)
        XCTAssertEqual(sps.width, 320)
        XCTAssertEqual(sps.height, 240)
    }

    func test1080pCroppingFromFFmpegSDP() throws {
        let nal = try XCTUnwrap(Base64.decode("Z0LAKNoB4AiflwEQAAADABAAAAMDwPGDKg=="))
        let sps = try XCTUnwrap(nal.withUnsafeBytes { SequenceParameterSet(nal: $0) })
        XCTAssertEqual(sps.width, 1920)
        XCTAssertEqual(sps.height, 1080)
    }

    func testTruncatedSPSIsRejectedNotTrapped() {
        for length in 0..<Fixture.sps.count - 3 {
            let cut = Array(Fixture.sps.prefix(length))
            _ = cut.withUnsafeBytes { SequenceParameterSet(nal: $0) }
        }
        XCTAssertNil([0x67, 0x42].withUnsafeBytes { SequenceParameterSet(nal: $0) })
    }
}

final class RTPSourceStateTests: XCTestCase {
    func testExtendsAcrossTheWrap() {
        var s = RTPSourceState(firstSequenceNumber: 65534)
        let base = s.extendedHighestSequenceNumber - 65534
        XCTAssertEqual(s.update(65535), .accepted(extended: base + 65535))
        XCTAssertEqual(s.update(0), .accepted(extended: base + 65536))
        XCTAssertEqual(s.update(65535), .accepted(extended: base + 65535))  // late, from the previous cycle
        XCTAssertEqual(s.update(2), .accepted(extended: base + 65538))
        // Older than the very first packet, across the wrap: still a positive number.
        var t = RTPSourceState(firstSequenceNumber: 3)
        guard case .accepted(let e) = t.update(65530) else { return XCTFail() }
        XCTAssertGreaterThan(e, 0)
        XCTAssertEqual(e, t.extendedHighestSequenceNumber - 9)
    }

    func testJumpNeedsASecondPacketToRestart() {
        var s = RTPSourceState(firstSequenceNumber: 10)
        let first = s.extendedHighestSequenceNumber
        XCTAssertEqual(s.update(30000), .jumped)
        XCTAssertEqual(s.update(11), .accepted(extended: first + 1))
        XCTAssertEqual(s.update(40000), .jumped)
        guard case .restarted(let e) = s.update(40001) else { return XCTFail("no restart") }
        XCTAssertGreaterThan(e - 1, first + 1, "numbering never goes backwards")
        XCTAssertEqual(s.restarts, 1)
    }
}

final class ReorderBufferTests: XCTestCase {
    /// A packet that waits keeps its header extension element beside its payload, within the
    /// packet bound on both together.
    func testTheHeaderExtensionWaitsWithItsPayload() {
        let buffer = ReorderBuffer(.init(packets: 4, latencyNanoseconds: .max, maxPacketBytes: 8))
        let payload: [UInt8] = [1, 2, 3, 4, 5], element: [UInt8] = [9, 8, 7]
        payload.withUnsafeBytes { p in
            element.withUnsafeBytes { e in
                XCTAssertEqual(buffer.arrive(extended: 10, timestamp: 0, marker: false, payload: p, headerExtension: e, arrival: 0), .buffered)
                (element + [6]).withUnsafeBytes { longer in
                    XCTAssertEqual(buffer.arrive(extended: 11, timestamp: 0, marker: false, payload: p, headerExtension: longer, arrival: 0),
                                   .tooLarge)
                }
                let released = buffer.pop(now: 0, flushing: true)
                XCTAssertEqual(released.map { Array($0.payload) }, payload)
                XCTAssertEqual(released.map { Array($0.headerExtension) }, element)
            }
        }
    }

    func testPacketBoundDeclaresTheGapLost() {
        let buffer = ReorderBuffer(.init(packets: 4, latencyNanoseconds: .max, maxPacketBytes: 16))
        let payload: [UInt8] = [1, 2, 3]
        payload.withUnsafeBytes { p in
            XCTAssertEqual(buffer.arrive(extended: 10, timestamp: 0, marker: false, payload: p, arrival: 0), .buffered)
            XCTAssertNotNil(buffer.pop(now: 0, flushing: true))
            // 11 is missing; 12..14 wait; 15 would exceed the bound.
            for e in 12...14 {
                XCTAssertEqual(buffer.arrive(extended: Int64(e), timestamp: 0, marker: false, payload: p, arrival: 0), .buffered)
            }
            XCTAssertNil(buffer.pop(now: 0))
            XCTAssertEqual(buffer.arrive(extended: 15, timestamp: 0, marker: false, payload: p, arrival: 0), .needsRoom(limit: 12))
            XCTAssertEqual(buffer.pop(now: 0, through: 12)?.extendedSequenceNumber, 12)
            XCTAssertEqual(buffer.arrive(extended: 11, timestamp: 0, marker: false, payload: p, arrival: 0), .late)
        }
    }

    func testLatencyDeclaresTheGapLost() {
        let buffer = ReorderBuffer(.init(packets: 64, latencyNanoseconds: 100, maxPacketBytes: 16))
        let payload: [UInt8] = [1]
        payload.withUnsafeBytes { p in
            _ = buffer.arrive(extended: 1, timestamp: 0, marker: false, payload: p, arrival: 0)
            XCTAssertNil(buffer.pop(now: 50))
            XCTAssertEqual(buffer.pop(now: 100)?.extendedSequenceNumber, 1)
            XCTAssertEqual(buffer.arrive(extended: 2, timestamp: 0, marker: false, payload: p, arrival: 110), .deliverNow)
            buffer.markDelivered(2)
            XCTAssertEqual(buffer.arrive(extended: 4, timestamp: 0, marker: false, payload: p, arrival: 120), .buffered)
            XCTAssertNil(buffer.pop(now: 200))
            XCTAssertEqual(buffer.pop(now: 220)?.extendedSequenceNumber, 4)
            XCTAssertEqual(buffer.arrive(extended: 2, timestamp: 0, marker: false, payload: p, arrival: 230), .duplicate)
        }
    }
}

final class VUITests: XCTestCase {
    func testReorderDepthAndTimingFromX264SPS() throws {
        // x264 with two B-frames, from ffmpeg-bframes.sdp.
        let nal = try XCTUnwrap(Base64.decode("Z2QAFKzZQUH7ARAAAAMAEAAAAwPA8UKZYA=="))
        let sps = try XCTUnwrap(nal.withUnsafeBytes { SequenceParameterSet(nal: $0) })
        XCTAssertEqual(sps.profileIdc, 100)
        XCTAssertEqual(sps.width, 320)
        XCTAssertEqual(sps.maxNumReorderFrames, 2)
        XCTAssertEqual(try XCTUnwrap(sps.frameRate), 30, accuracy: 0.001)
    }

    /// b=AS (RFC 8866 §5.8): the session's, else the lines' summed, as RTCP's session bandwidth.
    func testBandwidthFromBAS() throws {
        let lines = try SessionDescription(parsing: "v=0\r\ns=-\r\nt=0 0\r\nm=video 5004 RTP/AVP 96\r\nb=AS:500\r\n"
                                            + "a=rtpmap:96 H264/90000\r\nm=audio 5006 RTP/AVP 0\r\nb=AS:64\r\n")
        XCTAssertEqual(lines.media.map(\.bandwidthKbps), [500, 64])
        XCTAssertEqual(lines.bandwidthBitsPerSecond, 564_000)
        let session = try SessionDescription(parsing: "v=0\r\ns=-\r\nb=AS:2000\r\nt=0 0\r\nm=video 5004 RTP/AVP 96\r\nb=AS:500\r\n")
        XCTAssertEqual(session.bandwidthBitsPerSecond, 2_000_000)
        XCTAssertNil(try SessionDescription(parsing: "v=0\r\ns=-\r\nt=0 0\r\nm=video 5004 RTP/AVP 96\r\nb=AS:junk\r\n").bandwidthBitsPerSecond)
    }
}


extension SessionDescription {
    /// The fmtp, when RFC 6184's format read it.
    var h264: H264FormatParameters? { formatParameters as? H264FormatParameters }
}
