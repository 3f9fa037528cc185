import XCTest
@testable import RTPCore

/// Inputs that crashed a fuzz target (scripts/fuzz), replayed the same way, so that they never do again.
final class FuzzRegressionTests: XCTestCase {
    private func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex {
            let j = s.index(i, offsetBy: 2)
            out.append(UInt8(s[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    /// As the rtp and interleaved fuzz targets do: 16-bit length-framed datagrams into a small receiver.
    private func replay(_ input: [UInt8], interleaved: Bool) throws {
        let feeder = Feeder { c in
            c.stream.reorder = ReorderBuffer.Configuration(packets: 16, latencyNanoseconds: 5_000_000, maxPacketBytes: 2048)
            c.stream.maxAccessUnitBytes = 1 << 16
            c.maxStreams = 4
            if interleaved {
                var p = DeinterleavingBuffer.Parameters()
                p.interleavingDepth = 4
                c.stream.interleaving = p
            }
        }
        var i = 0
        while i + 2 <= input.count {
            let length = Int(input[i]) << 8 | Int(input[i + 1])
            let end = min(i + 2 + length, input.count)
            try feeder.send(Array(input[i + 2..<end]))
            i = end
        }
        _ = try feeder.finish()
    }

    func testPacketOlderThanTheFirstAcrossTheWrapHasAPositiveNumber() throws {
        // A STAP-B with sequence number 1, then one with 65534: the second is older than the first,
        // and numbering it below zero indexed the reorder buffer out of range.
        try replay(hex("001980600001000001000000000119000500046742c01e000268ce001f8060000200000000000000011a000000030000006588840003010bb8419a0200138060fffe05000000000000017d85000988840000108060000400000000000000017c451122"),
                   interleaved: true)
    }

    func testSPSWithAHugeScalingDeltaIsRejectedNotTrapped() {
        // bits target: a High-profile SPS whose scaling list delta overflowed 32-bit arithmetic.
        let nal = hex("67640014a4b40b08800ad80f00556e73616665bdbdbdbd00000000ffffff00000000000000000000000000bdbdbdbdbdbdbd80000029f28a1550")
        XCTAssertNil(nal.withUnsafeBytes { SequenceParameterSet(nal: $0) })
    }

    func testSDPWithAnEmptyPortFieldIsAnErrorNotATrap() {
        // sdp target: "m=video / RTP/..." split the port field into nothing and indexed it.
        let text = String(decoding: hex("763d3042414d41545f560a6d3d766964656f202f205254502f3d2039360d3236343639300d0a613d666d74703a3936207000043b207370726f702d706172616d657465722d736574733d5a3251417967464b2f30434867654b4656413d2c614f383853413d3d3b2070726f3d2c613030370d0a"), as: UTF8.self)
        XCTAssertThrowsError(try SessionDescription(parsing: text))
        XCTAssertThrowsError(try SessionDescription(parsing: "m=video / RTP/AVP 96\n"))
        _ = try? SessionDescription(parsing: "m=video 5004 RTP/AVP 96\na=rtpmap:96 /\nc=IN IP4 /\n")
    }
}
