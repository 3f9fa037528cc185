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

    /// The capture in both formats, the pcapng one built record for record from the pcap.
    private func shrinkingCaptures() throws -> [URL] {
        let url = Harness.captures.appendingPathComponent("gst-stapa-fua.pcap")
        var pcapng = PcapNGTests.Writer()
        pcapng.section()
        pcapng.interface()
        for record in try TestPcap.records(of: url) { pcapng.enhanced(units: record.microseconds, record.frame) }
        let copy = Harness.temporaryFile("shrinking-walk.pcap"), ng = Harness.temporaryFile("shrinking-walk.pcapng")
        try Data(contentsOf: url).write(to: copy)
        try pcapng.data.write(to: ng)
        return [copy, ng]
    }

    /// A mapped capture cut to nothing under the walk: the zeros that take the lost bytes' place are
    /// a truncation, not damage (a pcapng block length of 0), in either format.
    func testShrinkingUnderTheWalkIsATruncation() throws {
        for url in try shrinkingCaptures() {
            defer { try? FileManager.default.removeItem(at: url) }
            let capture = try CaptureFile(path: url.path)
            guard case .record = capture.next() else { return XCTFail("\(url.lastPathComponent): no first record") }
            XCTAssertNil(capture.truncationFoundAfterTheWalk())
            XCTAssertEqual(truncate(url.path, 0), 0)
            var next = capture.next()
            while case .record = next { next = capture.next() }
            guard case .truncated(_, let message) = next else { return XCTFail("\(url.lastPathComponent): \(next)") }
            XCTAssertTrue(message.contains("shrank to 0 bytes"), message)
        }
    }

    /// A capture walked to its end, then cut to nothing while a record is still to be read (as a
    /// write of it still to be made): the truncation is found after the walk, and only once something
    /// read what was lost.
    func testShrinkingAfterTheWalkIsFoundWhenWhatWasLostIsRead() throws {
        for url in try shrinkingCaptures() {
            defer { try? FileManager.default.removeItem(at: url) }
            let capture = try CaptureFile(path: url.path)
            var last: UnsafeRawBufferPointer?
            var next = capture.next()
            while case .record(let record) = next {
                last = record.bytes
                next = capture.next()
            }
            guard case .end = next, let last else { return XCTFail("\(url.lastPathComponent): \(next)") }
            XCTAssertEqual(truncate(url.path, 0), 0)
            XCTAssertNil(capture.truncationFoundAfterTheWalk(), "nothing lost was read yet")
            XCTAssertTrue(last.allSatisfy { $0 == 0 }, "what the file lost reads as zeros")
            guard case .truncated(let offset, let message)? = capture.truncationFoundAfterTheWalk() else {
                return XCTFail("\(url.lastPathComponent): no truncation found")
            }
            XCTAssertEqual(offset, 0)
            XCTAssertTrue(message.contains("shrank to 0 bytes"), message)
        }
    }
}
