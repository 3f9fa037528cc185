import CPcap
import RTPCore
import SystemIO

/// A pcap or pcapng file, told apart by content, in either byte order, with micro- or nanosecond
/// timestamps. Classic pcap files are mapped and walked in place, with no copy per record; pcapng and
/// everything else goes through libpcap.
public final class CaptureFile {
    public struct OpenError: Error, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    public struct Record {
        /// Capture time in nanoseconds since the epoch.
        public var time: Int64
        public var bytes: UnsafeRawBufferPointer
        public var originalLength: Int
    }

    public enum Next {
        case record(Record)
        case end
        /// The file ends inside a record; everything before `offset` was read.
        case truncated(offset: Int64, message: String)
        /// A record that cannot be read (an absurd length, say); everything before `offset` was read.
        case failed(offset: Int64, message: String)
    }

    public let path: String
    public let linkTypeValue: Int
    public let linkType: LinkType?
    public let fileSize: Int64
    private let handle: OpaquePointer?
    private let file: UnsafeMutablePointer<FILE>?
    private var recordStart: Int64 = 0
    private let mapped: MappedFile?
    private var classic: ClassicPcap?
    private var nextRelease = 0

    public init(path: String) throws {
        self.path = path
        let mapping: MappedFile?
        do {
            mapping = try MappedFile(path: path)
        } catch let error as SystemError {
            throw OpenError(path: path, message: String(describing: error).replacingPrefix(path + ": ", with: ""))
        }
        if let mapping, let classic = ClassicPcap(mapping.bytes) {
            self.mapped = mapping
            self.classic = classic
            handle = nil
            file = nil
            linkTypeValue = classic.linkType
            linkType = LinkType(rawValue: classic.linkType)
            fileSize = Int64(mapping.bytes.count)
            return
        }
        mapped = nil
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        guard let handle = pcap_open_offline_with_tstamp_precision(
            path, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errorBuffer)
        else {
            let message = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw OpenError(path: path, message: Self.explain(message))
        }
        self.handle = handle
        linkTypeValue = Int(pcap_datalink(handle))
        linkType = LinkType(rawValue: linkTypeValue)
        file = pcap_file(handle)
        if let file {
            let here = Int64(ftello(file))
            fseeko(file, 0, SEEK_END)
            fileSize = Int64(ftello(file))
            fseeko(file, off_t(here), SEEK_SET)
            recordStart = here
        } else {
            fileSize = 0
        }
    }

    deinit { if let handle { pcap_close(handle) } }

    private static func explain(_ message: String) -> String {
        if message.contains("unknown file format") || message.contains("bad dump file format") {
            return "not a pcap or pcapng capture (\(message))"
        }
        if message.contains("file header bytes, only got 0") {
            return "the file is empty, not a capture"
        }
        if message.contains("truncated dump file") && message.contains("file header") {
            return "not a capture: too short for a capture header (\(message))"
        }
        return message
    }

    /// Bytes of the file consumed so far, for progress.
    public var offset: Int64 { classic.map { Int64($0.offset) } ?? recordStart }

    /// Records stay valid as long as the capture, not just until the next call: a classic pcap is
    /// mapped whole (pages given back are read again from the page cache if touched).
    public var recordsOutliveCapture: Bool { classic != nil }

    /// The next record. Its bytes stay valid until the next call, or longer (`recordsOutliveCapture`).
    public func next() -> Next {
        if classic != nil {
            // Every 4 MiB, give back the pages more than 4 MiB behind the record about to be handed
            // out: the access unit in progress may still refer to the recent ones.
            let start = classic!.offset
            if start >= nextRelease {
                mapped?.release(upTo: start - (4 << 20))
                mapped?.populate(upTo: start + (8 << 20))
                nextRelease = start + 4 << 20
            }
            return classic!.next()
        }
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        let status = pcap_next_ex(handle!, &header, &data)
        switch status {
        case 1:
            if let file { recordStart = Int64(ftello(file)) }
            let h = header!.pointee
            // A corrupt pcapng block can hold any time: wrap rather than trap.
            let time = Int64(h.ts.tv_sec) &* 1_000_000_000 &+ Int64(h.ts.tv_usec)
            return .record(Record(time: time, bytes: UnsafeRawBufferPointer(start: data, count: Int(h.caplen)),
                                  originalLength: Int(h.len)))
        case PCAP_ERROR_BREAK:
            return .end
        default:
            let message = String(cString: pcap_geterr(handle!))
            if message.contains("truncated") {
                return .truncated(offset: recordStart, message: message)
            }
            return .failed(offset: recordStart, message: message)
        }
    }
}

extension String {
    fileprivate func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}
