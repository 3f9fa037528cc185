import XCTest
@testable import RTPCore

/// The piece list against a plain array doing the same edits.
final class AccessUnitBufferTests: XCTestCase {
    func testEditsMatchAPlainArray() {
        let source = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        var random = SeededGenerator(state: 6184)
        source.withUnsafeBytes { source in
            for _ in 0..<300 {
                let buffer = AccessUnitBuffer(capacity: 64)
                var model: [UInt8] = []
                for _ in 0..<Int.random(in: 1...12, using: &random) {
                    switch Int.random(in: 0..<7, using: &random) {
                    case 0:
                        let header = UInt8.random(in: 0...255, using: &random)
                        buffer.appendStartCode(header: header)
                        model += [0, 0, 0, 1, header]
                    case 1, 2:
                        let start = Int.random(in: 0..<source.count - 2000, using: &random)
                        let bytes = source.view(start..<start + Int.random(in: 0..<2000, using: &random))
                        buffer.append(bytes, borrowing: Bool.random(using: &random))
                        model += bytes
                    case 3:
                        // Views into part of the source become copies; the bytes stay the same.
                        let start = Int.random(in: 0..<source.count, using: &random)
                        let part = source.view(start..<min(source.count, start + Int.random(in: 1...8000, using: &random)))
                        buffer.copyViews(pointingInto: part)
                        XCTAssertFalse(buffer.refers(to: part))
                    case 4:
                        let at = Int.random(in: 0...model.count, using: &random)
                        let start = Int.random(in: 0..<source.count - 600, using: &random)
                        let bytes = source.view(start..<start + Int.random(in: 1...600, using: &random))
                        buffer.insert(bytes, at: at)
                        model.insert(contentsOf: bytes, at: at)
                    case 5:
                        // Room kept for a header whose size comes once what follows it did.
                        let room = buffer.reserve(10)
                        let start = Int.random(in: 0..<source.count - 2000, using: &random)
                        let after = source.view(start..<start + Int.random(in: 0..<2000, using: &random))
                        buffer.append(after, borrowing: Bool.random(using: &random))
                        let header = (0..<Int.random(in: 0...10, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                        header.withUnsafeBytes { buffer.fill(room, with: $0) }
                        // More than the room, or a second fill, changes nothing.
                        [UInt8](repeating: 9, count: 11).withUnsafeBytes { buffer.fill(room, with: $0) }
                        if !header.isEmpty { [UInt8(9)].withUnsafeBytes { buffer.fill(room, with: $0) } }
                        model += header + after
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

extension AccessUnitBufferTests {
    func testCopiedViewsSurviveTheirMemory() {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: 8192, alignment: 8)
        defer { memory.deallocate() }
        for i in 0..<memory.count { memory[i] = UInt8(truncatingIfNeeded: i * 13) }
        let other = (0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let buffer = AccessUnitBuffer(capacity: 16)
        var model: [UInt8] = []
        other.withUnsafeBytes { other in
            for (from, to) in [(0, 1000), (2000, 2600), (5000, 8192)] {
                buffer.appendStartCode(header: 0x41)
                model += [0, 0, 0, 1, 0x41]
                let view = UnsafeRawBufferPointer(rebasing: memory[from..<to])
                buffer.append(view, borrowing: true)
                model += view
                buffer.append(other.view(0..<1000), borrowing: true)  // stays a view: not in `memory`
                model += other[0..<1000]
            }
            buffer.remove(3..<900)
            model.removeSubrange(3..<900)
            buffer.copyViews(pointingInto: UnsafeRawBufferPointer(memory))
            XCTAssertFalse(buffer.refers(to: UnsafeRawBufferPointer(memory)))
            XCTAssertTrue(buffer.refers(to: other))
            memory.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.appendStartCode(header: 0x65)
            model += [0, 0, 0, 1, 0x65]
            XCTAssertEqual(buffer.withPieces(upTo: buffer.count) { $0.flatMap { Array($0) } }, model)
            buffer.remove(model.count - 7..<model.count)
            model.removeSubrange(model.count - 7..<model.count)
            XCTAssertEqual(buffer.withPieces(upTo: buffer.count) { $0.flatMap { Array($0) } }, model)
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
