import XCTest
@testable import RTPCore

/// The reader, which takes bits a byte at a time, against a model that takes out the emulation
/// prevention bytes first and then reads one bit at a time, as §7.4.1 and §9.1 describe it.
final class RBSPBitReaderTests: XCTestCase {
    /// The model: the RBSP bits, and a position in them.
    private struct Model {
        var bits: [UInt8] = []
        var position = 0

        init(_ bytes: [UInt8]) {
            var zeros = 0
            for byte in bytes {
                if zeros >= 2 && byte == 3 {
                    zeros = 0
                    continue
                }
                zeros = byte == 0 ? zeros + 1 : 0
                for shift in (0..<8).reversed() { bits.append(byte >> UInt8(shift) & 1) }
            }
        }

        mutating func bit() -> UInt32? {
            guard position < bits.count else { return nil }
            position += 1
            return UInt32(bits[position - 1])
        }

        mutating func bits(_ n: Int) -> UInt32? {
            var value: UInt32 = 0
            for _ in 0..<n {
                guard let b = bit() else { return nil }
                value = value << 1 | b
            }
            return value
        }

        mutating func ue() -> UInt32? {
            var zeros = 0
            while true {
                guard let b = bit() else { return nil }
                if b == 1 { break }
                zeros += 1
                if zeros > 31 { return nil }
            }
            return bits(zeros).map { UInt32((UInt64(1) << zeros) - 1 + UInt64($0)) }
        }

        mutating func skip(_ n: Int) -> Bool {
            guard position + n <= bits.count else { return false }
            position += n
            return true
        }
    }

    func testReadsMatchABitAtATimeModel() {
        var random = SeededGenerator(state: 9101)
        for _ in 0..<3000 {
            // Sparse bytes, so that long runs of zeros (long Exp-Golomb codes) and 00 00 03 occur.
            let bytes = (0..<Int.random(in: 0...24, using: &random)).map { _ -> UInt8 in
                switch Int.random(in: 0..<6, using: &random) {
                case 0, 1: 0
                case 2: 3
                case 3: 1
                default: UInt8.random(in: 0...255, using: &random)
                }
            }
            var model = Model(bytes)
            bytes.withUnsafeBytes { raw in
                var reader = RBSPBitReader(raw)
                for _ in 0..<12 {
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0:
                        XCTAssertEqual(reader.readBit(), model.bit(), "\(bytes)")
                    case 1:
                        let n = Int.random(in: 0...32, using: &random)
                        let expected = model.bits(n)
                        XCTAssertEqual(reader.readBits(n), expected, "\(bytes) bits(\(n))")
                        if expected == nil { return }
                    case 2:
                        let expected = model.ue()
                        XCTAssertEqual(reader.readUE(), expected, "\(bytes) ue")
                        if expected == nil { return }
                    case 3:
                        let n = Int.random(in: 0...40, using: &random)
                        let expected = model.skip(n)
                        XCTAssertEqual(reader.skipBits(n), expected, "\(bytes) skip(\(n))")
                        if !expected { return }
                    default:
                        let expected = model.bits(8).map { UInt8($0) }
                        XCTAssertEqual(reader.readByte(), expected, "\(bytes) byte")
                        if expected == nil { return }
                    }
                }
            }
        }
    }
}
