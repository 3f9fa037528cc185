import RTPCore

/// The pcapng format (draft-ietf-opsawg-pcapng), walked in place like a classic pcap: blocks of
/// type(32) total_length(32) body total_length(32), in the byte order each section's header names.
///
///     Section Header (0x0A0D0D0A): byte_order_magic(32) major(16) minor(16) section_length(64) options
///     Interface Description (1):   link_type(16) reserved(16) snaplen(32) options (if_tsresol, if_tsoffset)
///     Enhanced Packet (6):         interface_id(32) ts_high(32) ts_low(32) caplen(32) len(32) data options
///     Simple Packet (3):           len(32) data (interface 0, no timestamp: its if_tsoffset alone)
///     Packet (2, obsolete):        interface_id(16) drops(16) ts_high(32) ts_low(32) caplen(32) len(32) data
///
///     Decryption Secrets (10):     secrets_type(32) secrets_length(32) data: a TLS key log ('TLSK') is kept
///
/// Other blocks (name resolution, statistics, custom) are skipped. Like libpcap, it takes one link
/// type for the whole file: an interface of another is an error.
struct PcapNG {
    static let sectionHeaderType: UInt32 = 0x0A0D_0D0A
    static let byteOrderMagic: UInt32 = 0x1A2B_3C4D
    /// Blocks longer than this are corrupt.
    static let maxBlockLength = 256 << 20

    private struct Interface {
        var linkType: Int
        var snaplen: Int
        /// From if_tsresol (10^-n seconds a unit, or 2^-n with the high bit set); microseconds by default.
        var scale = Scale.multiply(1000)
        /// if_tsoffset, in seconds.
        var offsetSeconds: Int64 = 0

        enum Scale {
            case multiply(Int64)
            case divide(UInt64)
            case binary(exponent: Int)

            init(tsresol: UInt8) {
                let n = Int(tsresol & 0x7F)
                if tsresol & 0x80 != 0 {
                    self = .binary(exponent: n)
                } else if n <= 9 {
                    self = .multiply((0..<9 - n).reduce(1) { value, _ in value * 10 })
                } else {
                    self = .divide(n - 9 <= 19 ? (0..<n - 9).reduce(1) { value, _ in value * 10 } : .max)
                }
            }
        }

        func nanoseconds(_ units: UInt64) -> Int64 {
            let base: Int64
            switch scale {
            case .multiply(let factor):
                base = Int64(truncatingIfNeeded: units) &* factor
            case .divide(let divisor):
                base = Int64(truncatingIfNeeded: units / divisor)
            case .binary(let n):
                let seconds = Double(units) / Double(sign: .plus, exponent: n, significand: 1)
                base = seconds < 9e9 ? Int64(seconds * 1e9) : 0
            }
            // A corrupt block can hold any time: wrap rather than trap.
            return base &+ offsetSeconds &* 1_000_000_000
        }
    }

    private var swapped = false
    private var interfaces: [Interface] = []
    /// The first interface's link type, once its block has been read.
    private(set) var linkType: Int?
    /// The TLS key logs of the secrets blocks read (`editcap --inject-secrets tls,FILE`), up to 16 MiB.
    private(set) var tlsKeyLog: [UInt8] = []

    /// Whether `header` starts a pcapng file.
    static func starts(_ header: UnsafeRawBufferPointer) -> Bool {
        header.count >= 4 && header.loadUnaligned(as: UInt32.self) == sectionHeaderType
    }

    /// The next packet from `offset` in `window`, past any other blocks.
    mutating func step(_ window: UnsafeRawBufferPointer, at start: Int) -> RecordStep {
        var offset = start
        while true {
            guard offset + 12 <= window.count else {
                return .needsMore(at: offset, bytes: 12, shortfall: .blockHeaderCutShort)
            }
            var type = window.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            if type == Self.sectionHeaderType {
                // The byte order is the section's own: read it before the length.
                switch window.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self) {
                case Self.byteOrderMagic: swapped = false
                case Self.byteOrderMagic.byteSwapped: swapped = true
                default: return .failed(at: offset, problem: .sectionWithoutByteOrderMagic)
                }
            } else if swapped {
                type = type.byteSwapped
            }
            let length = Int(u32(window, offset + 4))
            guard length >= 12, length % 4 == 0, length <= Self.maxBlockLength else {
                return .failed(at: offset, problem: .invalidBlockLength(length))
            }
            guard offset + length <= window.count else {
                return .needsMore(at: offset, bytes: length,
                                  shortfall: .blockCutShort(length: length, available: window.count - offset))
            }
            let body = offset + 8, bodyEnd = offset + length - 4
            switch type {
            case Self.sectionHeaderType:
                interfaces.removeAll(keepingCapacity: true)
            case 1:
                if let failure = addInterface(window, block: offset, body: body..<bodyEnd) { return failure }
            case 6, 2:
                return packet(window, type: type, block: offset, body: body..<bodyEnd)
            case 3:
                return simplePacket(window, block: offset, body: body..<bodyEnd)
            case 10:
                keepSecrets(window, body: body..<bodyEnd)
            default:
                break
            }
            offset += length
        }
    }

    /// A Decryption Secrets block: a TLS key log's text is kept; other kinds of secrets are not read.
    private mutating func keepSecrets(_ window: UnsafeRawBufferPointer, body: Range<Int>) {
        guard body.count >= 8, u32(window, body.lowerBound) == 0x544C_534B else { return }
        let length = min(Int(u32(window, body.lowerBound + 4)), body.count - 8)
        guard tlsKeyLog.count + length <= 16 << 20 else { return }
        tlsKeyLog += window.view(body.lowerBound + 8..<body.lowerBound + 8 + length)
        tlsKeyLog.append(UInt8(ascii: "\n"))
    }

    /// An Interface Description block: its link type (the file's, which no later one may change),
    /// snaplen and timestamp options. Nil, or why the file cannot be read on.
    private mutating func addInterface(_ window: UnsafeRawBufferPointer, block offset: Int, body: Range<Int>) -> RecordStep? {
        guard body.count >= 8 else { return .failed(at: offset, problem: .interfaceBlockTooShort) }
        var interface = Interface(linkType: Int(u16(window, body.lowerBound)), snaplen: Int(u32(window, body.lowerBound + 4)))
        readOptions(window, from: body.lowerBound + 8, to: body.upperBound) { code, value in
            if code == 9, value.count >= 1 { interface.scale = Interface.Scale(tsresol: value[0]) }
            if code == 14, value.count >= 8 {
                interface.offsetSeconds = Int64(bitPattern: u64(value, 0))
            }
        }
        if let first = linkType, first != interface.linkType {
            return .failed(at: offset, problem: .interfaceOfAnotherLinkType(index: interfaces.count, linkType: interface.linkType,
                                                                           first: first))
        }
        linkType = interface.linkType
        interfaces.append(interface)
        return nil
    }

    /// An Enhanced Packet block (6), or an obsolete Packet block (2): its record.
    @inline(__always)
    private func packet(_ window: UnsafeRawBufferPointer, type: UInt32, block offset: Int, body: Range<Int>) -> RecordStep {
        guard body.count >= 20 else { return .failed(at: offset, problem: .packetBlockTooShort) }
        let start = body.lowerBound
        let id = type == 6 ? Int(u32(window, start)) : Int(u16(window, start))
        guard id < interfaces.count else {
            return .failed(at: offset, problem: .undescribedInterface(id))
        }
        let units = UInt64(u32(window, start + 4)) << 32 | UInt64(u32(window, start + 8))
        let captured = Int(u32(window, start + 12)), original = Int(u32(window, start + 16))
        let data = start + 20
        guard captured <= body.upperBound - data else {
            return .failed(at: offset, problem: .packetOverrunsBlock(length: captured))
        }
        let record = CaptureFile.Record(time: interfaces[id].nanoseconds(units),
                                        bytes: window.view(data..<data + captured), originalLength: original)
        return .record(record, next: body.upperBound + 4)
    }

    /// A Simple Packet block (3): of the first interface, timed by its offset alone.
    private func simplePacket(_ window: UnsafeRawBufferPointer, block offset: Int, body: Range<Int>) -> RecordStep {
        guard body.count >= 4, let interface = interfaces.first else {
            return .failed(at: offset, problem: .simplePacketBeforeInterface)
        }
        let original = Int(u32(window, body.lowerBound))
        var captured = min(original, body.count - 4)
        if interface.snaplen > 0 { captured = min(captured, interface.snaplen) }
        let record = CaptureFile.Record(time: interface.nanoseconds(0),
                                        bytes: window.view(body.lowerBound + 4..<body.lowerBound + 4 + captured), originalLength: original)
        return .record(record, next: body.upperBound + 4)
    }

    /// Calls `body` with each option's code and value, until opt_endofopt or the end.
    private func readOptions(_ window: UnsafeRawBufferPointer, from start: Int, to end: Int,
                             _ body: (UInt16, UnsafeRawBufferPointer) -> Void) {
        var offset = start
        while offset + 4 <= end {
            let code = u16(window, offset), length = Int(u16(window, offset + 2))
            guard code != 0, offset + 4 + length <= end else { return }
            body(code, window.view(offset + 4..<offset + 4 + length))
            offset += 4 + (length + 3) & ~3
        }
    }

    @inline(__always) private func u16(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt16 {
        let v = bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self)
        return swapped ? v.byteSwapped : v
    }

    @inline(__always) private func u32(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        let v = bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)
        return swapped ? v.byteSwapped : v
    }

    @inline(__always) private func u64(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt64 {
        let v = bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)
        return swapped ? v.byteSwapped : v
    }
}
