import CMappingGuard
import CPcap
import RTPCore
import SystemIO

/// A pcap or pcapng file, told apart by content, in either byte order, with micro- or nanosecond
/// timestamps. Classic pcap and pcapng files are walked in place, with no copy per record: through
/// one read-only mapping of the whole file, or, for a pipe or a file that cannot be mapped, a buffer
/// (1 MiB) at a time. Anything else goes through libpcap.
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

        /// The warning for a capture cut short or damaged; nil for a record or the end.
        public var damage: String? {
            switch self {
            case .record, .end: nil
            case .truncated(let offset, let message): "capture truncated at byte \(offset) (\(message))"
            case .failed(let offset, let message): "capture damaged at byte \(offset) (\(message))"
            }
        }
    }

    public let path: String
    public private(set) var linkTypeValue = 0
    public private(set) var linkType: LinkType?
    /// A pcapng file's own TLS key log (decryption secrets blocks before its first packet).
    public private(set) var embeddedTLSKeyLog: String?
    public let fileSize: Int64
    private let handle: OpaquePointer?
    private let file: UnsafeMutablePointer<FILE>?
    private var recordStart: Int64 = 0
    // Walked in place: the file, its format, the mapping or buffer its records are in (`window`),
    // and where the next one starts.
    private let input: InputFile?
    private let classic: ClassicPcap?
    private var pcapng: PcapNG?
    private let chunks: RecordChunks
    private var window = UnsafeRawBufferPointer(start: nil, count: 0)
    private var windowStart: Int64 = 0
    private var windowOffset = 0
    private var inputEnded = false
    // Mapped: the window is the mapping's first bytes, grown a chunk at a time so that a file that
    // shrinks is seen (fstat) before the walk gets to what it lost.
    let mapping: FileMapping?
    private let faults: FileMapping.FaultMark?
    private var mappedEnd = 0
    private var shrankTo: Int?

    /// `chunkBytes`: how much of the file is read (or, mapped, walked) at a time; `maxKeptBytes`: how
    /// much of what was read may be kept for records still referred to (`keepRecords`). `mapped`
    /// false reads even a regular file into buffers; `inPlace` false reads through libpcap whatever
    /// the format, for comparing with it.
    public convenience init(path: String, chunkBytes: Int = 1 << 20, maxKeptBytes: Int = 16 << 20, mapped: Bool = true,
                            inPlace: Bool = true) throws {
        let name = path == "-" ? "standard input" : path
        let chunks = RecordChunks(chunkBytes: chunkBytes, maxRetainedBytes: maxKeptBytes)
        let input: InputFile
        var header = [UInt8](repeating: 0, count: ClassicPcap.fileHeaderSize)
        do {
            input = try InputFile(path: path)
            let headerBytes = try header.withUnsafeMutableBytes { try input.read(into: $0) }
            header.removeLast(header.count - headerBytes)
        } catch let error as SystemError {
            throw OpenError(path: name, message: String(describing: error).replacingPrefix(path + ": ", with: ""))
        }
        let classic = header.withUnsafeBytes { ClassicPcap(header: $0) }
        if inPlace, classic != nil || header.withUnsafeBytes({ PcapNG.starts($0) }) {
            // Standard input is read even when it is a file: it may not start at the file's start.
            try self.init(walking: input, name: name, header: header, classic: classic, chunks: chunks, mapped: mapped && path != "-")
        } else {
            try self.init(libpcap: path, chunks: chunks)
        }
    }

    /// A classic pcap (`classic`) or pcapng file walked in place, its first bytes (`header`) read.
    private init(walking input: InputFile, name: String, header: [UInt8], classic: ClassicPcap?, chunks: RecordChunks,
                 mapped: Bool) throws {
        path = name
        self.chunks = chunks
        self.input = input
        self.classic = classic
        handle = nil
        file = nil
        fileSize = Int64(input.size)
        mapping = mapped ? input.map() : nil
        faults = mapping?.faults
        if let mapping {
            mappedEnd = mapping.bytes.count
            window = mapping.bytes.view(0..<min(mappedEnd, header.count))
        }
        do {
            if let classic {
                linkTypeValue = classic.linkType
                windowOffset = ClassicPcap.fileHeaderSize
                if mapping == nil {
                    windowStart = Int64(ClassicPcap.fileHeaderSize)
                    windowOffset = 0
                }
            } else {
                if mapping == nil {
                    (window, inputEnded) = try header.withUnsafeBytes { try chunks.next(keeping: $0, capacity: header.count, from: input) }
                }
                let start = try readToFirstPacket()
                guard let first = start.linkType else {
                    throw OpenError(path: name, message: "a pcapng file with no interface description before its first packet")
                }
                pcapng = PcapNG()
                linkTypeValue = first
                if !start.tlsKeyLog.isEmpty { embeddedTLSKeyLog = String(decoding: start.tlsKeyLog, as: UTF8.self) }
            }
        } catch let error as OpenError {
            throw error
        } catch {
            throw OpenError(path: name, message: "\(error)")
        }
        linkType = LinkType(rawValue: linkTypeValue)
    }

    /// Any other format libpcap reads, from a file (its first bytes cannot be given back to libpcap).
    private init(libpcap path: String, chunks: RecordChunks) throws {
        self.path = path
        self.chunks = chunks
        mapping = nil
        faults = nil
        guard path != "-" else {
            // Its first bytes are read already: libpcap cannot start over.
            throw OpenError(path: "standard input", message: "not a pcap or pcapng capture")
        }
        self.input = nil
        classic = nil
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        var errorMessage: String { errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } }
        guard rtprecv_pcap_load(&errorBuffer, errorBuffer.count) == 0 else {
            throw OpenError(path: path, message: "not a pcap or pcapng capture, and libpcap, which reads other formats, cannot be loaded: \(errorMessage)")
        }
        guard let handle = pcap_open_offline_with_tstamp_precision(
            path, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errorBuffer)
        else {
            throw OpenError(path: path, message: Self.explain(errorMessage))
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

    /// The link type of a pcapng file's first interface block and the TLS key log of its secrets
    /// blocks, which come before the packets: the window grown from the file's start until it holds
    /// the first packet (or the file ends).
    private func readToFirstPacket() throws -> (linkType: Int?, tlsKeyLog: [UInt8]) {
        while true {
            var probe = PcapNG()
            let step = probe.step(window, at: 0)
            guard case .needsMore(let at, let bytes, _) = step, !inputEnded else {
                return (probe.linkType, probe.tlsKeyLog)
            }
            try refill(capacity: at + bytes)
        }
    }

    /// More of the file after `windowOffset`: at least `capacity` bytes from there, unless the file
    /// ends first.
    private func refill(capacity: Int) throws {
        guard let mapping else {
            let keep = window.view(windowOffset..<window.count)
            windowStart += Int64(windowOffset)
            (window, inputEnded) = try chunks.next(keeping: keep, capacity: capacity, from: input!)
            windowOffset = 0
            return
        }
        if let size = mapping.currentSize(), size < mappedEnd {
            mappedEnd = max(size, windowOffset)
            shrankTo = size
        }
        let end = min(mappedEnd, max(window.count + chunks.chunkBytes, windowOffset + capacity))
        window = mapping.bytes.view(0..<end)
        inputEnded = end == mappedEnd
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

    /// The whole file, when it is mapped: records are views into it, valid until the capture is
    /// released.
    public var mappedBytes: UnsafeRawBufferPointer? { mapping?.bytes }

    /// The truncation at `offset` of a file that shrank under its mapping, once something read what
    /// it lost: those bytes read as zeros, wherever they are read.
    func shrankUnderMapping(at offset: Int64) -> Next {
        let size = mapping?.currentSize().map { " to \($0) bytes" } ?? ""
        return .truncated(offset: offset, message: "the file shrank\(size) while it was read; frames that were still to be written may hold zeros for what it lost")
    }

    /// Whether the file shrank under its mapping and something read what it lost, the walk or the
    /// output (a write of the capture's bytes made after the walk ended): then the truncation, at the
    /// file's size now, for a replay whose walk did not find it.
    public func truncationFoundAfterTheWalk() -> Next? {
        guard let faults, faults.isSet else { return nil }
        return shrankUnderMapping(at: Int64(mapping?.currentSize() ?? 0))
    }

    /// Bytes held in read buffers (formats walked in place; none when mapped).
    public var bufferedBytes: Int { chunks.allocatedBytes }

    /// The next record. Its bytes stay valid until the next call (or see `keepRecords`).
    public func next() -> Next {
        var found: Record?
        let ended = forEachRecord { record in
            found = record
            return false
        }
        return found.map(Next.record) ?? ended ?? .end
    }

    /// Hands each record in turn to `body` (its bytes valid as `next()` says) until `body` returns
    /// false or the capture ends. Returns how the walk ended: nil when `body` stopped it, else `.end`,
    /// `.truncated` or `.failed`. The walk's state is in locals, and there is no result to unpack a
    /// record from.
    public func forEachRecord(_ body: (Record) throws -> Bool) rethrows -> Next? {
        guard input != nil else {
            while true {
                let next = nextThroughLibpcap()
                guard case .record(let record) = next else { return next }
                if try !body(record) { return nil }
            }
        }
        while true {
            let window = self.window
            var offset = windowOffset
            walk: while true {
                switch classic?.step(window, at: offset) ?? pcapng!.step(window, at: offset) {
                case .record(let record, let next):
                    if let faults, faults.isSet { return shrankUnderMapping(at: self.offset) }
                    // The next record's header and first bytes, and a guess at the one after, while
                    // this one is processed.
                    if let base = window.baseAddress { mapping_prefetch(base + next, next - offset) }
                    offset = next
                    windowOffset = next
                    if try !body(record) { return nil }
                case let other:
                    if let end = endOrRefill(after: other) { return end }
                    break walk
                }
            }
        }
    }

    /// A step of the walk in place that found no record: the end of the window, where more of the
    /// file is read (nil: walk on) or the capture ends; or a record that cannot be read.
    private func endOrRefill(after step: RecordStep) -> Next? {
        // Past a fault, the walk reads the zeros that took the lost bytes' place: no record, nor damage.
        if let faults, faults.isSet { return shrankUnderMapping(at: offset) }
        switch step {
        case .record:
            return nil
        case .failed(let at, let problem):
            windowOffset = at
            return .failed(offset: offset, message: problem.description)
        case .needsMore(let at, let bytes, let shortfall):
            windowOffset = at
            if inputEnded {
                if let shrankTo {
                    return .truncated(offset: offset, message: "the file shrank to \(shrankTo) bytes while it was read")
                }
                return windowOffset == window.count ? .end : .truncated(offset: offset, message: shortfall.description)
            }
            do {
                try refill(capacity: bytes)
            } catch {
                return .failed(offset: offset, message: "\(error)")
            }
            return nil
        }
    }

    private func nextThroughLibpcap() -> Next {
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
