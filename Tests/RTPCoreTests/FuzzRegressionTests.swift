import XCTest
@testable import RTPCore

/// What the parsers must answer for inputs that once crashed a fuzz target. The inputs themselves
/// are replayed through their targets by FuzzRegressionFileTests.
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
