import CPcap
import RTPCore
import SystemIO

/// A pcap or pcapng file, told apart by content, in either byte order, with micro- or nanosecond
/// timestamps. Classic pcap and pcapng files are read a buffer (1 MiB) at a time and walked in
/// place, with no copy per record; anything else goes through libpcap.
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
    // Walked in place: the file, its format, the buffer its records are read from, and where the
    // next one starts.
    private let input: InputFile?
    private let classic: ClassicPcap?
    private var pcapng: PcapNG?
    private let chunks: RecordChunks
    private var window = UnsafeRawBufferPointer(start: nil, count: 0)
    private var windowStart: Int64 = 0
    private var windowOffset = 0
    private var inputEnded = false

    /// `chunkBytes`: how much of the file is read at a time; `maxKeptBytes`: how much of it may be
    /// kept for records still referred to (`keepRecords`). `inPlace` false reads through libpcap
    /// whatever the format, for comparing with it.
    public init(path: String, chunkBytes: Int = 1 << 20, maxKeptBytes: Int = 16 << 20, inPlace: Bool = true) throws {
        let name = path == "-" ? "standard input" : path
        self.path = name
        let chunks = RecordChunks(chunkBytes: chunkBytes, maxRetainedBytes: maxKeptBytes)
        self.chunks = chunks
        let input: InputFile
        var header = [UInt8](repeating: 0, count: ClassicPcap.fileHeaderSize)
        var headerBytes = 0
        do {
            input = try InputFile(path: path)
            headerBytes = try header.withUnsafeMutableBytes { try input.read(into: $0) }
        } catch let error as SystemError {
            throw OpenError(path: name, message: String(describing: error).replacingPrefix(path + ": ", with: ""))
        }
        let head = header.withUnsafeBytes { (classic: ClassicPcap(header: UnsafeRawBufferPointer(rebasing: $0[0..<headerBytes])),
                                             pcapng: PcapNG.starts(UnsafeRawBufferPointer(rebasing: $0[0..<headerBytes]))) }
        if inPlace, let classic = head.classic {
            self.input = input
            self.classic = classic
            handle = nil
            file = nil
            linkTypeValue = classic.linkType
            linkType = LinkType(rawValue: classic.linkType)
            fileSize = Int64(input.size)
            windowStart = Int64(ClassicPcap.fileHeaderSize)
            return
        }
        if inPlace, head.pcapng {
            self.input = input
            classic = nil
            handle = nil
            file = nil
            fileSize = Int64(input.size)
            let start: (window: UnsafeRawBufferPointer, atEnd: Bool, linkType: Int?)
            do {
                start = try header.withUnsafeBytes {
                    try Self.readToFirstInterface(UnsafeRawBufferPointer(rebasing: $0[0..<headerBytes]), chunks: chunks, input: input)
                }
            } catch {
                throw OpenError(path: name, message: "\(error)")
            }
            guard let first = start.linkType else {
                throw OpenError(path: name, message: "a pcapng file with no interface description before its first packet")
            }
            (window, inputEnded) = (start.window, start.atEnd)
            pcapng = PcapNG()
            linkTypeValue = first
            linkType = LinkType(rawValue: first)
            return
        }
        guard path != "-" else {
            // Its first bytes are read already: libpcap cannot start over.
            throw OpenError(path: name, message: "not a pcap or pcapng capture")
        }
        self.input = nil
        classic = nil
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

    /// A pcapng file's start, from `header` on, read until its first interface block, which gives the
    /// link type (it comes before the packets).
    private static func readToFirstInterface(_ header: UnsafeRawBufferPointer, chunks: RecordChunks, input: InputFile) throws
        -> (window: UnsafeRawBufferPointer, atEnd: Bool, linkType: Int?) {
        var (window, atEnd) = try chunks.next(keeping: header, capacity: header.count, from: input)
        while true {
            var probe = PcapNG()
            let step = probe.step(window, at: 0)
            guard probe.linkType == nil, case .needsMore(let at, let bytes, _) = step, !atEnd else {
                return (window, atEnd, probe.linkType)
            }
            (window, atEnd) = try chunks.next(keeping: window, capacity: at + bytes, from: input)
        }
    }

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
    public var offset: Int64 { input != nil ? windowStart + Int64(windowOffset) : recordStart }

    /// Whether records can be kept past the next call (`keepRecords`): those walked in place can.
    public var canKeepRecords: Bool { input != nil }

    /// Keeps each record's bytes valid for as long as `isReferenced` says something points into the
    /// buffer given to it, rather than until the next call; past `maxKeptBytes` of such buffers, the
    /// oldest is reused after `stopReferring` was told to copy what it needs of it.
    public func keepRecords(while isReferenced: @escaping (UnsafeRawBufferPointer) -> Bool,
                            stopReferring: @escaping (UnsafeRawBufferPointer) -> Void) {
        chunks.isReferenced = isReferenced
        chunks.stopReferring = stopReferring
    }

    /// Bytes held in read buffers (formats walked in place).
    public var bufferedBytes: Int { chunks.allocatedBytes }

    /// The next record. Its bytes stay valid until the next call (or see `keepRecords`).
    public func next() -> Next {
        if let input {
            while true {
                switch classic?.step(window, at: windowOffset) ?? pcapng!.step(window, at: windowOffset) {
                case .record(let record, let next):
                    windowOffset = next
                    return .record(record)
                case .failed(let at, let message):
                    windowOffset = at
                    return .failed(offset: offset, message: message)
                case .needsMore(let at, let bytes, let message):
                    windowOffset = at
                    if inputEnded {
                        return windowOffset == window.count ? .end : .truncated(offset: offset, message: message)
                    }
                    do {
                        let keep = window.view(windowOffset..<window.count)
                        windowStart += Int64(windowOffset)
                        (window, inputEnded) = try chunks.next(keeping: keep, capacity: bytes, from: input)
                        windowOffset = 0
                    } catch {
                        return .failed(offset: offset, message: "\(error)")
                    }
                }
            }
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
