import Foundation
import PcapInput
import XCTest

/// Classic pcap read a buffer at a time, or mapped and walked a stride at a time: records across
/// buffer (or stride) ends, records longer than a buffer, and records kept while something refers to
/// them, against a plain walk of the whole file.
final class CaptureChunkTests: XCTestCase {
    private func check(chunkBytes: Int, keepEverything: Bool, mapped: Bool = false) throws {
        let url = Harness.captures.appendingPathComponent("gst-stapa-fua.pcap")
        let expected = try TestPcap.records(of: url).map { (Int64($0.microseconds), $0.frame) }
        let path = url.path
        let capture = try CaptureFile(path: path, chunkBytes: chunkBytes, mapped: mapped)
        if keepEverything { capture.keepRecords(while: { _ in true }, stopReferring: { _ in XCTFail("over the bound") }) }
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
        // A mapping is walked where it lies: no buffer at all.
        if mapped { XCTAssertEqual(capture.bufferedBytes, 0) }
    }

    func testMappedStridesEndAnywhere() throws {
        for size in [1, 100, 1500, 65536, 1 << 20] {
            try check(chunkBytes: size, keepEverything: false, mapped: true)
            try check(chunkBytes: size, keepEverything: true, mapped: true)
        }
    }

    func testSmallBuffersCutRecordsAnywhere() throws {
        for size in [1, 100, 1500, 4096, 65536] { try check(chunkBytes: size, keepEverything: false) }
    }

    func testRecordsReferredToAreNotOverwritten() throws {
        try check(chunkBytes: 4096, keepEverything: true)
    }

    func testBuffersKeptPastTheBoundAreGivenBackOldestFirst() throws {
        let url = Harness.captures.appendingPathComponent("gst-stapa-fua.pcap")
        let expected = try TestPcap.records(of: url).map(\.frame)
        let capture = try CaptureFile(path: url.path, chunkBytes: 4096, maxKeptBytes: 5 * 4096, mapped: false)
        var kept: [(bytes: UnsafeRawBufferPointer, index: Int)] = []
        var released = 0
        capture.keepRecords(while: { _ in true }, stopReferring: { buffer in
            // Everything before this buffer was given back already: records are read in order.
            let gone = kept.prefix { $0.bytes.baseAddress! >= buffer.baseAddress! && $0.bytes.baseAddress! < buffer.baseAddress! + buffer.count }
            XCTAssertFalse(gone.isEmpty, "a buffer given back that holds no kept record")
            kept.removeFirst(gone.count)
            released += 1
        })
        var count = 0
        while case .record(let record) = capture.next() {
            kept.append((record.bytes, count))
            count += 1
            XCTAssertLessThanOrEqual(capture.bufferedBytes, 7 * 4096)
            // What was not given back is intact.
            if count % 97 == 0 {
                for k in kept { XCTAssertTrue(k.bytes.elementsEqual(expected[k.index]), "record \(k.index)") }
            }
        }
        XCTAssertEqual(count, expected.count)
        XCTAssertGreaterThan(released, 10)
        for k in kept { XCTAssertTrue(k.bytes.elementsEqual(expected[k.index]), "record \(k.index)") }
    }
}
