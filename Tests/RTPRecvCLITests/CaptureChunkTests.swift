import Foundation
import PcapInput
import XCTest

/// Classic pcap read a buffer at a time: records across buffer ends, records longer than a buffer,
/// and records kept while something refers to them, against a plain walk of the whole file.
final class CaptureChunkTests: XCTestCase {
    private func check(chunkBytes: Int, keepEverything: Bool) throws {
        let url = Harness.captures.appendingPathComponent("gst-stapa-fua.pcap")
        let expected = try TestPcap.records(of: url).map { (Int64($0.microseconds), $0.frame) }
        let path = url.path
        let capture = try CaptureFile(path: path, chunkBytes: chunkBytes)
        if keepEverything { capture.keepRecords { _ in true } }
        var kept: [UnsafeRawBufferPointer] = []
        var count = 0
        loop: while true {
            switch capture.next() {
            case .record(let record):
                XCTAssertEqual(record.time / 1000, expected[count].0)
                XCTAssertTrue(record.bytes.elementsEqual(expected[count].1), "record \(count)")
                if keepEverything { kept.append(record.bytes) }
                count += 1
            case .end:
                break loop
            case .truncated(let offset, let message), .failed(let offset, let message):
                XCTFail("at \(offset): \(message)")
                break loop
            }
        }
        XCTAssertEqual(count, expected.count)
        // Records still referred to were never overwritten.
        for (i, bytes) in kept.enumerated() { XCTAssertTrue(bytes.elementsEqual(expected[i].1), "kept record \(i)") }
        if !keepEverything { XCTAssertLessThanOrEqual(capture.bufferedBytes, 3 * max(chunkBytes, 2000)) }
    }

    func testSmallBuffersCutRecordsAnywhere() throws {
        for size in [1, 100, 1500, 4096, 65536] { try check(chunkBytes: size, keepEverything: false) }
    }

    func testRecordsReferredToAreNotOverwritten() throws {
        try check(chunkBytes: 4096, keepEverything: true)
    }
}
