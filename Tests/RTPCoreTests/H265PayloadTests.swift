import XCTest
@testable import RTPCore

/// RFC 7798's structures and H.265's headers, byte by byte against the specifications' layouts.
final class H265PayloadTests: XCTestCase {
    /// FFmpeg's sprop-vps/sps/pps for a 320x240 Main stream (captures/ffmpeg-h265-global.sdp).
    static let vps = Base64.decode("QAEMAf//AWAAAAMAkAAAAwAAAwA8lZQJ")!
    static let sps = Base64.decode("QgEBAWAAAAMAkAAAAwAAAwA8oAoIDxZZWVKTC8BaAgAAAwACAAADADwQ")!
    static let pps = Base64.decode("RAHAc8GJ")!

    func testTheNALUnitHeaderFields() {
        // F 0, type 19 (IDR_W_RADL), LayerId 0b000011 (high bit in the first byte's last), TID 2.
        let h = HEVCNALHeader(19 << 1 | 0, 3 << 3 | 3)
        XCTAssertEqual(h.type, 19)
        XCTAssertEqual(h.layerId, 3)
        XCTAssertEqual(h.temporalId, 2)
        XCTAssertFalse(h.forbiddenZeroBit)
        XCTAssertEqual(HEVCNALHeader(0x81, 0x09).layerId, 33)
        let fu = h.with(type: 49)
        XCTAssertEqual(fu.type, 49)
        XCTAssertEqual(fu.byte1, h.byte1)
    }

    func testTheSPSOfARealSender() throws {
        let sps = try XCTUnwrap(Self.sps.withUnsafeBytes { HEVCSequenceParameterSet(nal: $0) })
        XCTAssertEqual(sps.width, 320)
        XCTAssertEqual(sps.height, 240)
        XCTAssertEqual(sps.profileName, "Main")
        XCTAssertEqual(sps.generalLevelIdc, 60)
        XCTAssertFalse(sps.generalTierFlag)
        XCTAssertEqual(sps.chromaFormatIdc, 1)
        XCTAssertEqual(sps.bitDepthLumaMinus8, 0)
        XCTAssertEqual(sps.generalProfileTierLevel.count, 12)
        // The 12 bytes are the RBSP's: the emulation prevention byte of "00 00 03" is gone.
        XCTAssertEqual(Array(sps.generalProfileTierLevel[0..<5]), [0x01, 0x60, 0x00, 0x00, 0x00])
        XCTAssertEqual(sps.parameters.description, "H.265 Main, Main tier, level 2.0, 320x240, 8-bit 4:2:0")
        XCTAssertEqual(Self.pps.withUnsafeBytes { HEVCPictureParameterSetIds(nal: $0) }?.seqParameterSetId, 0)
        XCTAssertEqual(Self.vps.withUnsafeBytes { hevcVideoParameterSetId(nal: $0) }, 0)
    }

    func testFormatParametersInDahuasOrderComeOutVPSFirst() {
        let p = H265FormatParameters([("sprop-sps", "QgEBAWAAAAMAkAAAAwAAAwA8oAoIDxZZWVKTC8BaAgAAAwACAAADADwQ"),
                                      ("sprop-pps", "RAHAc8GJ"), ("sprop-vps", "QAEMAf//AWAAAAMAkAAAAwAAAwA8lZQJ"),
                                      ("sprop-max-don-diff", "5"), ("sprop-depack-buf-nalus", "nine")])
        XCTAssertEqual(p.parameterSets.map { HEVCNALHeader($0[0], $0[1]).type }, [32, 33, 34])
        XCTAssertTrue(p.usesDecodingOrderNumbers)
        XCTAssertEqual(p.decodingOrder?.maxDONDiff, 5)
        XCTAssertEqual(p.decodingOrder?.interleavingDepth, 5, "without sprop-depack-buf-nalus, as far as max-don-diff reaches")
        XCTAssertEqual(p.warnings.count, 1, "a value that is no number is said")
        XCTAssertFalse(H265FormatParameters([("sprop-max-don-diff", "0")]).usesDecodingOrderNumbers)
    }

    func testAnSDPsH265LineSelectsTheCodec() throws {
        let sdp = try SessionDescription(parsing: """
            v=0
            m=video 5004 RTP/AVP 97 98
            a=rtpmap:97 MP4V-ES/90000
            a=rtpmap:98 h265/90000
            a=fmtp:98 sprop-pps=RAHAc8GJ;sprop-vps=QAEMAf//AWAAAAMAkAAAAwAAAwA8lZQJ
            """)
        XCTAssertEqual(sdp.payloadType, 98)
        XCTAssertEqual(sdp.codec, .h265)
        XCTAssertEqual(sdp.videoCodecs, [98: .h265])
        XCTAssertNil(sdp.h264)
        XCTAssertNotNil(sdp.formatParameters as? H265FormatParameters)
        XCTAssertEqual(sdp.parameterSets.map { HEVCNALHeader($0[0], $0[1]).type }, [32, 34])
    }

    func testPACIIsUnwrappedPastItsExtension() throws {
        // PayloadHdr type 50 (LayerId 0, TID 1); A 0, cType 1 (TRAIL_R), PHSsize 3; PHES; then the rest.
        let payload: [UInt8] = [50 << 1, 1, 1 << 1 | 0, 3 << 4, 0xAA, 0xBB, 0xCC, 0x80, 0x11]
        try payload.withUnsafeBytes { bytes in
            XCTAssertNil(H265Payload.validate(bytes, decodingOrderNumbers: false))
            let (header, rest) = try XCTUnwrap(H265Payload.unwrapPACI(HEVCNALHeader(bytes), rest: bytes.view(2..<bytes.count)))
            XCTAssertEqual(header.type, 1)
            XCTAssertEqual(header.temporalIdPlus1, 1)
            XCTAssertEqual(Array(rest), [0x80, 0x11])
        }
        // A PHSsize past the end, and a PACI in a PACI.
        [UInt8]([50 << 1, 1, 2, 31 << 4 | 0x0F, 0]).withUnsafeBytes {
            XCTAssertEqual(H265Payload.validate($0, decodingOrderNumbers: false), .paciOverrun)
        }
        [UInt8]([50 << 1, 1, 50 << 1, 0, 0x80]).withUnsafeBytes {
            XCTAssertEqual(H265Payload.validate($0, decodingOrderNumbers: false), .paciNestedType)
        }
    }

    func testAggregationUnitsTakeTheirDONFromDONLAndDOND() {
        // DONL 65535, a 3-byte unit; DOND 0 (DON 0, wrapped), a 2-byte unit; DOND 4 (DON 5).
        let rest: [UInt8] = [0xFF, 0xFF, 0, 3, 0x02, 0x01, 0xAA, 0, 0, 2, 0x4E, 0x01, 4, 0, 2, 0x02, 0x01]
        rest.withUnsafeBytes { bytes in
            var units = H265AggregationUnits(bytes, decodingOrderNumbers: true)
            var dons: [UInt16] = [], sizes: [Int] = []
            while let u = units.next() { dons.append(u.decodingOrderNumber); sizes.append(u.nal.count) }
            XCTAssertEqual(dons, [65535, 0, 5])
            XCTAssertEqual(sizes, [3, 2, 2])
            XCTAssertFalse(units.overran)
        }
        // A size past the end keeps what came before it.
        [UInt8]([0, 3, 0x02, 0x01, 0xAA, 0, 9, 0x02]).withUnsafeBytes { bytes in
            var units = H265AggregationUnits(bytes, decodingOrderNumbers: false)
            XCTAssertNotNil(units.next())
            XCTAssertNil(units.next())
            XCTAssertTrue(units.overran)
        }
    }

    func testInvalidPayloadsAreRefusedByReason() {
        let cases: [([UInt8], VideoPayloadInvalid)] = [
            ([], .empty), ([0x02], .tooShort), ([0x82, 1, 0], .forbiddenBit), ([0x02, 0, 0], .zeroTemporalId),
            ([49 << 1, 1, 0x80 | 49, 0], .fragmentType), ([49 << 1, 1], .fragmentTooShort), ([48 << 1, 1, 0, 9, 2], .aggregationOverrun),
            ([48 << 1, 1, 0, 3, 49 << 1, 1, 0], .aggregationNestedType),
        ]
        for (bytes, reason) in cases {
            bytes.withUnsafeBytes { XCTAssertEqual(H265Payload.validate($0, decodingOrderNumbers: false), reason, "\(bytes)") }
        }
        // A first fragment with DONL needs its two bytes.
        [UInt8]([49 << 1, 1, 0x80 | 1, 0]).withUnsafeBytes {
            XCTAssertEqual(H265Payload.validate($0, decodingOrderNumbers: true), .fragmentTooShort)
        }
    }

    func testReservedTypesAndWhatStartsAnAccessUnit() {
        XCTAssertTrue([10, 15, 22, 31, 41, 47, 51, 63].allSatisfy { HEVCNALUnitType.isReserved($0) })
        XCTAssertFalse([0, 9, 16, 21, 32, 40].contains { HEVCNALUnitType.isReserved($0) })
        XCTAssertTrue([32, 33, 34, 35, 39].allSatisfy { HEVCNALUnitType.startsAccessUnit($0) })
        XCTAssertFalse([40, 36, 38, 1].contains { HEVCNALUnitType.startsAccessUnit($0) }, "suffix SEI, EOS and FD stay")
        XCTAssertTrue(HEVCNALUnitType.isSubLayerNonReference(0) && !HEVCNALUnitType.isSubLayerNonReference(1))
    }
}

extension H265PayloadTests {
    /// The VUI is reached through the SPS's block sizes, PCM, short-term reference picture sets
    /// (predicted and listed) and long-term ones: FFmpeg's x265 SPS says 30 frames/s.
    func testTheVUIFrameRateIsRead() throws {
        let sps = try XCTUnwrap(Self.sps.withUnsafeBytes { HEVCSequenceParameterSet(nal: $0) })
        let rate = try XCTUnwrap(sps.frameRateFraction)
        XCTAssertEqual(rate.numerator, 30)
        XCTAssertEqual(rate.denominator, 1)
    }
}
