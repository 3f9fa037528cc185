import XCTest
@testable import RTPCore

/// The piece list against a plain array doing the same edits.
final class AccessUnitBufferTests: XCTestCase {
    func testEditsMatchAPlainArray() {
        let source = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        var random = SeededGenerator(state: 6184)
        source.withUnsafeBytes { source in
            for _ in 0..<300 {
                var buffer = AccessUnitBuffer(capacity: 64)
                var model: [UInt8] = []
                for _ in 0..<Int.random(in: 1...12, using: &random) {
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0:
                        let header = UInt8.random(in: 0...255, using: &random)
                        buffer.appendStartCode(header: header)
                        model += [0, 0, 0, 1, header]
                    case 1, 2:
                        let start = Int.random(in: 0..<source.count - 2000, using: &random)
                        let bytes = source.view(start..<start + Int.random(in: 0..<2000, using: &random))
                        buffer.append(bytes, borrowing: Bool.random(using: &random))
                        model += bytes
                    default:
                        guard !model.isEmpty else { continue }
                        let a = Int.random(in: 0..<model.count, using: &random)
                        let b = Int.random(in: a...model.count, using: &random)
                        buffer.remove(a..<b)
                        model.removeSubrange(a..<b)
                    }
                    XCTAssertEqual(buffer.count, model.count)
                }
                let pieces = buffer.withPieces(upTo: buffer.count) { $0.flatMap { Array($0) } }
                XCTAssertEqual(pieces, model)
                if !model.isEmpty {
                    let a = Int.random(in: 0..<model.count, using: &random)
                    let b = Int.random(in: a...model.count, using: &random)
                    XCTAssertEqual(buffer.withBytes(a..<b) { Array($0) }, Array(model[a..<b]))
                    let prefix = Int.random(in: 0...model.count, using: &random)
                    XCTAssertEqual(buffer.withPieces(upTo: prefix) { $0.flatMap { Array($0) } }, Array(model[..<prefix]))
                    buffer.removeFirst(a)
                    XCTAssertEqual(buffer.withPieces(upTo: buffer.count) { $0.flatMap { Array($0) } }, Array(model[a...]))
                }
            }
        }
    }
}

/// A seeded generator (Knuth's MMIX linear congruence), so that a failure repeats.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state ^ (state >> 29)
    }
}
