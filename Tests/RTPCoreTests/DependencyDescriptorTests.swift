@testable import RTPCore
import XCTest

/// The dependency descriptor (AV1's appendix A) read bit by bit: the structure's templates, a
/// frame's own fields in place of its template's, ns(n), and what is malformed.
final class DependencyDescriptorTests: XCTestCase {
    /// Bits most significant first, as the descriptor is written.
    private struct Bits {
        var bits: [UInt8] = []
        mutating func put(_ width: Int, _ value: Int) {
            for i in stride(from: width - 1, through: 0, by: -1) { bits.append(UInt8((value >> i) & 1)) }
        }
        var bytes: [UInt8] {
            let padded = bits + [UInt8](repeating: 0, count: (8 - bits.count % 8) % 8)
            return stride(from: 0, to: padded.count, by: 8).map { i in padded[i..<i + 8].reduce(0) { $0 << 1 | $1 } }
        }
    }

    private func descriptor(_ bits: Bits, current: FrameDependencyStructure? = nil) -> DependencyDescriptor? {
        bits.bytes.withUnsafeBytes { DependencyDescriptor($0, current: current) }
    }

    /// L1T2 with offset 62: a keyframe template, a T0 template referring 2 back and a T1 one
    /// referring 1 back; two decode targets; one chain; a 640x360 render size.
    private func keyframeWithStructure(frameNumber: Int) -> Bits {
        var b = Bits()
        b.put(1, 1); b.put(1, 0); b.put(6, 62); b.put(16, frameNumber)
        b.put(1, 1); b.put(1, 0); b.put(1, 0); b.put(1, 0); b.put(1, 0)  // structure, no custom fields
        b.put(6, 62); b.put(5, 1)  // offset, two decode targets
        b.put(2, 0); b.put(2, 1); b.put(2, 3)  // layers: T0, T0, T1
        for dtis in [[2, 2], [2, 2], [0, 1]] { for dti in dtis { b.put(2, dti) } }
        b.put(1, 0)  // no references
        b.put(1, 1); b.put(4, 1); b.put(1, 0)  // 2 back
        b.put(1, 1); b.put(4, 0); b.put(1, 0)  // 1 back
        b.put(2, 0b10)  // ns(3) of 1: one chain
        b.put(0, 0); b.put(0, 0)  // each target protected by chain 0: ns(1), no bits
        b.put(4, 0); b.put(4, 2); b.put(4, 1)  // template chain fdiffs
        b.put(1, 1); b.put(16, 639); b.put(16, 359)
        return b
    }

    func testTheStructureAndTheFramesThatReferToIt() throws {
        let key = try XCTUnwrap(descriptor(keyframeWithStructure(frameNumber: 65535)))
        let structure = try XCTUnwrap(key.structure)
        XCTAssertEqual(key.frameNumber, 65535)
        XCTAssertTrue(key.startOfFrame)
        XCTAssertFalse(key.endOfFrame)
        XCTAssertEqual(structure.decodeTargetCount, 2)
        XCTAssertEqual(structure.templates.map(\.temporalID), [0, 0, 1])
        XCTAssertEqual(structure.templates.map { $0.references.count }, [0, 1, 1])
        XCTAssertEqual(structure.templates[1].references[0], 2)
        XCTAssertEqual(structure.chainCount, 1)
        XCTAssertEqual(structure.resolutions.map(\.width), [640])
        XCTAssertEqual(structure.resolutions.map(\.height), [360])
        XCTAssertEqual(key.frame.references.count, 0)
        XCTAssertTrue(key.frame.isReferenced)

        // A T1 frame by its template (ID 62 + 2, wrapped): one back, discardable in every target.
        var t1 = Bits()
        t1.put(1, 1); t1.put(1, 1); t1.put(6, 0); t1.put(16, 0)
        let frame = try XCTUnwrap(descriptor(t1, current: structure))
        XCTAssertEqual(frame.frame.temporalID, 1)
        XCTAssertEqual(frame.frame.references[0], 1)
        XCTAssertFalse(frame.frame.isReferenced)
        XCTAssertNil(frame.structure)
        // Without a structure, nothing names its template.
        XCTAssertNil(descriptor(t1))

        // A T0 frame with its own indications, references (one nibble, then three) and chain fdiff.
        var custom = Bits()
        custom.put(1, 1); custom.put(1, 1); custom.put(6, 63); custom.put(16, 7)
        custom.put(1, 0); custom.put(1, 1); custom.put(1, 1); custom.put(1, 1); custom.put(1, 1)
        custom.put(2, 0b11)  // active decode targets
        custom.put(2, 1); custom.put(2, 0)  // indications
        custom.put(2, 1); custom.put(4, 3); custom.put(2, 3); custom.put(12, 4095); custom.put(2, 0)
        custom.put(8, 9)
        let own = try XCTUnwrap(descriptor(custom, current: structure))
        XCTAssertEqual(own.frame.temporalID, 0)
        XCTAssertEqual(own.frame.indications, 0b01)
        XCTAssertEqual(own.frame.references.count, 2)
        XCTAssertEqual([own.frame.references[0], own.frame.references[1]], [4, 4096])
        XCTAssertFalse(own.frame.isReferenced)
    }

    func testWhatIsMalformed() throws {
        let structure = try XCTUnwrap(descriptor(keyframeWithStructure(frameNumber: 1))?.structure)
        // A template ID past the templates.
        var beyond = Bits()
        beyond.put(2, 0); beyond.put(6, 1); beyond.put(16, 2)
        XCTAssertNil(descriptor(beyond, current: structure))
        // Eight references: more than an AV1 frame has.
        var eight = Bits()
        eight.put(2, 0); eight.put(6, 62); eight.put(16, 2)
        eight.put(1, 0); eight.put(1, 0); eight.put(1, 0); eight.put(1, 1); eight.put(1, 0)
        for _ in 0..<8 { eight.put(2, 1); eight.put(4, 0) }
        eight.put(2, 0)
        XCTAssertNil(descriptor(eight, current: structure))
        // Shorter than the mandatory fields, and a structure cut short.
        XCTAssertNil([UInt8(0x80), 0].withUnsafeBytes { DependencyDescriptor($0, current: structure) })
        let whole = keyframeWithStructure(frameNumber: 1).bytes
        for length in 4..<whole.count - 1 {
            XCTAssertNil(whole[..<length].withUnsafeBytes { DependencyDescriptor($0, current: nil) }, "\(length)")
        }
        // 65 templates: more than six bits name.
        var many = Bits()
        many.put(2, 0); many.put(6, 0); many.put(16, 0); many.put(1, 1); many.put(4, 0)
        many.put(6, 0); many.put(5, 0)
        for _ in 0..<64 { many.put(2, 0) }
        many.put(2, 3)
        for _ in 0..<65 { many.put(2, 2) }
        XCTAssertNil(descriptor(many))
    }

    /// ns(5) (A.8.2): 0-2 in two bits, 3 and 4 in three.
    func testNonSymmetricNumbers() {
        let codes: [(bits: [Int], value: Int)] = [([0, 0], 0), ([0, 1], 1), ([1, 0], 2), ([1, 1, 0], 3), ([1, 1, 1], 4)]
        for (bits, value) in codes {
            var b = Bits()
            for bit in bits { b.put(1, bit) }
            let read = b.bytes.withUnsafeBytes { p -> Int? in
                var r = BitReader(p)
                return r.readNonSymmetric(5)
            }
            XCTAssertEqual(read, value)
        }
    }
}
