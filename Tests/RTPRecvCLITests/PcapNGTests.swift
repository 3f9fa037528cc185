import Foundation
import PcapInput
import XCTest

/// pcapng walked in place, record for record against libpcap's reading of the same file: both byte
/// orders, timestamp resolutions and offsets, several sections, the packet block kinds, blocks to skip,
/// buffers that end anywhere, a file cut short, and what libpcap refuses.
final class PcapNGTests: XCTestCase {
    /// Builds pcapng blocks in one byte order, as the format's draft lays them out.
    struct Writer {
        var bigEndian = false
        private(set) var data = Data()

        private func word32(_ v: UInt32) -> [UInt8] {
            withUnsafeBytes(of: bigEndian ? v.bigEndian : v.littleEndian) { Array($0) }
        }
        private func word16(_ v: UInt16) -> [UInt8] {
            withUnsafeBytes(of: bigEndian ? v.bigEndian : v.littleEndian) { Array($0) }
        }
        private func padded(_ bytes: [UInt8]) -> [UInt8] { bytes + Array(repeating: 0, count: (4 - bytes.count % 4) % 4) }

        mutating func block(_ type: UInt32, _ body: [UInt8]) {
            let length = UInt32(12 + padded(body).count)
            data.append(contentsOf: word32(type) + word32(length) + padded(body) + word32(length))
        }

        private func option(_ code: UInt16, _ value: [UInt8]) -> [UInt8] {
            word16(code) + word16(UInt16(value.count)) + padded(value)
        }

        mutating func section() {
            block(0x0A0D_0D0A, word32(0x1A2B_3C4D) + word16(1) + word16(0) + Array(repeating: 0xFF, count: 8)
                  + option(4, Array("rtprecv test".utf8)) + option(0, []))
        }

        mutating func interface(linkType: UInt16 = 1, snaplen: UInt32 = 262_144, tsresol: UInt8? = nil, offsetSeconds: Int64? = nil) {
            var options: [UInt8] = option(2, Array("lo".utf8))
            if let tsresol { options += option(9, [tsresol]) }
            if let offsetSeconds {
                options += option(14, withUnsafeBytes(of: bigEndian ? offsetSeconds.bigEndian : offsetSeconds.littleEndian) { Array($0) })
            }
            block(1, word16(linkType) + word16(0) + word32(snaplen) + options + option(0, []))
        }

        mutating func enhanced(interface: UInt32 = 0, units: UInt64, _ frame: [UInt8], comment: Bool = false) {
            let options = comment ? option(1, Array("a comment".utf8)) + option(0, []) : []
            block(6, word32(interface) + word32(UInt32(units >> 32)) + word32(UInt32(units & 0xFFFF_FFFF))
                  + word32(UInt32(frame.count)) + word32(UInt32(frame.count)) + padded(frame) + options)
        }

        mutating func obsolete(interface: UInt16 = 0, units: UInt64, _ frame: [UInt8]) {
            block(2, word16(interface) + word16(0) + word32(UInt32(units >> 32)) + word32(UInt32(units & 0xFFFF_FFFF))
                  + word32(UInt32(frame.count)) + word32(UInt32(frame.count)) + padded(frame))
        }

        mutating func simple(_ frame: [UInt8]) { block(3, word32(UInt32(frame.count)) + padded(frame)) }

        /// Name resolution and interface statistics blocks, which carry no packet.
        mutating func others() {
            block(4, word16(1) + word16(8) + [127, 0, 0, 1] + Array("lo\0\0".utf8) + word16(0) + word16(0))
            block(5, word32(0) + word32(0) + word32(0))
        }
    }

    private typealias Read = (time: Int64, bytes: [UInt8], originalLength: Int)

    private func records(_ url: URL, inPlace: Bool, chunkBytes: Int = 1 << 20, mapped: Bool = true) throws
        -> (records: [Read], end: CaptureFile.Next) {
        let capture = try CaptureFile(path: url.path, chunkBytes: chunkBytes, mapped: mapped, inPlace: inPlace)
        var read: [Read] = []
        while true {
            let next = capture.next()
            guard case .record(let r) = next else { return (read, next) }
            read.append((r.time, Array(r.bytes), r.originalLength))
        }
    }

    private var frames: [(microseconds: UInt64, frame: [UInt8])] {
        get throws { try TestPcap.records(of: Harness.captures.appendingPathComponent("gst-stapa-fua.pcap")) }
    }

    private func write(_ writer: Writer, _ name: String) throws -> URL {
        let url = Harness.temporaryFile(name + ".pcapng")
        try writer.data.write(to: url)
        return url
    }

    /// The same records, times within `tolerance` ns, and the same ending, in place and through libpcap.
    private func assertSameAsLibpcap(_ url: URL, count: Int, tolerance: Int64 = 0, file: StaticString = #filePath, line: UInt = #line) throws {
        let ours = try records(url, inPlace: true), theirs = try records(url, inPlace: false)
        XCTAssertEqual(ours.records.count, count, file: file, line: line)
        XCTAssertEqual(theirs.records.count, count, "libpcap: \(theirs.end)", file: file, line: line)
        for (a, b) in zip(ours.records, theirs.records) {
            XCTAssertLessThanOrEqual(abs(a.time - b.time), tolerance, "\(a.time) vs \(b.time)", file: file, line: line)
            XCTAssertEqual(a.bytes, b.bytes, file: file, line: line)
            XCTAssertEqual(a.originalLength, b.originalLength, file: file, line: line)
        }
        for chunkBytes in [7, 1000, 4096] {
            for mapped in [false, true] {
                XCTAssertEqual(try records(url, inPlace: true, chunkBytes: chunkBytes, mapped: mapped).records.map(\.bytes),
                               ours.records.map(\.bytes), "\(mapped ? "mapped" : "read"), \(chunkBytes) bytes at a time",
                               file: file, line: line)
            }
        }
    }

    func testByteOrdersAndResolutionsMatchLibpcap() throws {
        let frames = try self.frames
        for (bigEndian, tsresol) in [(false, nil), (true, UInt8(9)), (false, UInt8(3)), (true, UInt8(0x80 | 20))] as [(Bool, UInt8?)] {
            var w = Writer(bigEndian: bigEndian)
            w.section()
            w.interface(tsresol: tsresol)
            w.others()
            for (i, f) in frames.enumerated() {
                let seconds = Double(f.microseconds) / 1e6
                let units: UInt64
                switch tsresol {
                case nil: units = f.microseconds
                case 9: units = f.microseconds * 1000
                case 3: units = f.microseconds / 1000
                default: units = UInt64(seconds * Double(1 << 20))
                }
                w.enhanced(units: units, f.frame, comment: i % 7 == 0)
            }
            let url = try write(w, "order-\(bigEndian)-\(tsresol ?? 6)")
            try assertSameAsLibpcap(url, count: frames.count, tolerance: tsresol == 0x80 | 20 ? 1000 : 0)
        }
    }

    func testSectionsOffsetsAndEveryPacketBlockMatchLibpcap() throws {
        let frames = Array(try self.frames.prefix(60))
        var w = Writer()
        w.section()
        w.interface(tsresol: 6, offsetSeconds: 1000)
        for f in frames[0..<20] { w.enhanced(units: f.microseconds, f.frame) }
        for f in frames[20..<30] { w.obsolete(units: f.microseconds, f.frame) }
        for f in frames[30..<40] { w.simple(f.frame) }
        // A second section with its own interfaces.
        w.section()
        w.interface()
        w.interface(tsresol: 9)
        for f in frames[40..<60] { w.enhanced(interface: 1, units: f.microseconds * 1000, f.frame) }
        let url = try write(w, "sections")
        try assertSameAsLibpcap(url, count: 60)
    }

    /// Sections may differ in byte order (libpcap stops at such a section; the format allows it).
    func testASectionInTheOtherByteOrderReadsOn() throws {
        let frames = Array(try self.frames.prefix(20))
        var w = Writer()
        w.section()
        w.interface()
        for f in frames[0..<10] { w.enhanced(units: f.microseconds, f.frame) }
        w.bigEndian = true
        w.section()
        w.interface(tsresol: 9)
        for f in frames[10..<20] { w.enhanced(units: f.microseconds * 1000, f.frame) }
        let read = try records(try write(w, "byteorders"), inPlace: true)
        guard case .end = read.end else { return XCTFail("\(read.end)") }
        XCTAssertEqual(read.records.map(\.bytes), frames.map(\.frame))
        XCTAssertEqual(read.records.map(\.time), frames.map { Int64($0.microseconds) * 1000 })
    }

    func testReplayOfPcapNGIsTheReplayOfThePcap() throws {
        var w = Writer()
        w.section()
        w.interface()
        for f in try frames { w.enhanced(units: f.microseconds, f.frame) }
        let url = try write(w, "replay")
        let fromPcapNG = Harness.temporaryFile("replay-ng.h264"), fromPcap = Harness.temporaryFile("replay-classic.h264")
        let statsNG = Harness.temporaryFile("replay-ng.json"), statsClassic = Harness.temporaryFile("replay-classic.json")
        XCTAssertEqual(try Harness.rtprecv(["--pcap", url.path, "--out", fromPcapNG.path, "--stats-json", statsNG.path]).status, 0)
        XCTAssertEqual(try Harness.rtprecv(["--pcap", Harness.captures.appendingPathComponent("gst-stapa-fua.pcap").path,
                                            "--out", fromPcap.path, "--stats-json", statsClassic.path]).status, 0)
        XCTAssertEqual(try Data(contentsOf: fromPcapNG), try Data(contentsOf: fromPcap))
        // The jitter comes from the capture times: the same streams, to the digit.
        func streams(_ url: URL) throws -> NSArray {
            (try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any])["streams"] as! NSArray
        }
        XCTAssertEqual(try streams(statsNG), try streams(statsClassic))
    }

    func testFileCutShortKeepsWhatCameBefore() throws {
        var w = Writer()
        w.section()
        w.interface()
        let frames = Array(try self.frames.prefix(40))
        for f in frames { w.enhanced(units: f.microseconds, f.frame) }
        let whole = w.data
        let url = Harness.temporaryFile("cut.pcapng")
        try whole.prefix(whole.count - 30).write(to: url)
        let ours = try records(url, inPlace: true), theirs = try records(url, inPlace: false)
        XCTAssertEqual(ours.records.count, 39)
        XCTAssertEqual(theirs.records.count, 39, "libpcap")
        guard case .truncated(let offset, _) = ours.end else { return XCTFail("\(ours.end)") }
        XCTAssertLessThan(offset, Int64(whole.count - 30))
    }

    func testInterfacesOfAnotherLinkTypeAndUndescribedOnesAreErrors() throws {
        let frame = try frames[0].frame
        var mixed = Writer()
        mixed.section()
        mixed.interface(linkType: 1)
        mixed.enhanced(units: 1, frame)
        mixed.interface(linkType: 101)
        mixed.enhanced(interface: 1, units: 2, frame)
        let ours = try records(try write(mixed, "mixed"), inPlace: true)
        XCTAssertEqual(ours.records.count, 1)
        guard case .failed(_, let message) = ours.end else { return XCTFail("\(ours.end)") }
        XCTAssertTrue(message.contains("link type 101, not the first interface's 1"), message)

        var undescribed = Writer()
        undescribed.section()
        undescribed.interface()
        undescribed.enhanced(interface: 3, units: 1, frame)
        let end = try records(try write(undescribed, "undescribed"), inPlace: true).end
        guard case .failed(_, let text) = end else { return XCTFail("\(end)") }
        XCTAssertTrue(text.contains("interface 3"), text)

        var noInterface = Writer()
        noInterface.section()
        noInterface.enhanced(units: 1, frame)
        let result = try Harness.rtprecv(["--pcap", try write(noInterface, "nointerface").path, "--out", "/dev/null"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("no interface description before its first packet"), result.stderr)
    }
}
