/// The RTP fixed header, RFC 3550 §5.1.
///
///     0                   1                   2                   3
///     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///    |V=2|P|X|  CC   |M|     PT      |       sequence number         |
///    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///    |                           timestamp                           |
///    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///    |           synchronization source (SSRC) identifier            |
///    +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///    |            contributing source (CSRC) identifiers             |
///    |                             ....                              |
///    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// Parsing keeps offsets into the datagram, never copies: `payloadRange` is what is left once the
/// CSRCs, the header extension (§5.3.1) and the padding are taken away.
public struct RTPPacket: Sendable {
    public var padding: Bool
    public var hasExtension: Bool
    public var csrcCount: Int
    public var marker: Bool
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    /// The 16-bit "defined by profile" field of the extension header, when `hasExtension`.
    public var extensionProfile: UInt16
    /// The extension data after its 4-byte header.
    public var extensionRange: Range<Int>
    public var payloadRange: Range<Int>
    /// Padding bytes stripped, counting the count byte itself.
    public var paddingCount: Int

    public static let fixedHeaderSize = 12

    /// Why a datagram is not an RTP packet; also the names the statistics count them by.
    public enum Invalid: String, Error, CaseIterable, Sendable {
        case tooShort = "shorter than the RTP header"
        case badVersion = "version is not 2"
        case csrcOverrun = "CSRC list runs past the datagram"
        case extensionOverrun = "header extension runs past the datagram"
        case badPadding = "padding count is 0 or larger than the payload"
    }

    @inline(__always)
    public init(parsing bytes: UnsafeRawBufferPointer) throws(Invalid) {
        guard bytes.count >= Self.fixedHeaderSize else { throw .tooShort }
        let b0 = bytes[0], b1 = bytes[1]
        guard b0 >> 6 == 2 else { throw .badVersion }
        padding = b0 & 0x20 != 0
        hasExtension = b0 & 0x10 != 0
        csrcCount = Int(b0 & 0x0F)
        marker = b1 & 0x80 != 0
        payloadType = b1 & 0x7F
        sequenceNumber = bytes.loadUnaligned(fromByteOffset: 2, as: UInt16.self).bigEndian
        timestamp = bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self).bigEndian
        ssrc = bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self).bigEndian

        var offset = Self.fixedHeaderSize + 4 * csrcCount
        guard offset <= bytes.count else { throw .csrcOverrun }

        extensionProfile = 0
        extensionRange = offset..<offset
        if hasExtension {
            guard offset + 4 <= bytes.count else { throw .extensionOverrun }
            extensionProfile = bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self).bigEndian
            let words = Int(bytes.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self).bigEndian)
            let start = offset + 4
            offset = start + 4 * words
            guard offset <= bytes.count else { throw .extensionOverrun }
            extensionRange = start..<offset
        }

        var end = bytes.count
        paddingCount = 0
        if padding {
            // The last byte counts the padding, itself included (§5.1).
            guard end > offset else { throw .badPadding }
            let count = Int(bytes[end - 1])
            guard count > 0, count <= end - offset else { throw .badPadding }
            paddingCount = count
            end -= count
        }
        payloadRange = offset..<end
    }

    /// CSRC `index` (0 ..< csrcCount) of the packet these fields were parsed from.
    public func csrc(_ index: Int, in bytes: UnsafeRawBufferPointer) -> UInt32 {
        precondition(index >= 0 && index < csrcCount)
        return bytes.loadUnaligned(fromByteOffset: Self.fixedHeaderSize + 4 * index, as: UInt32.self).bigEndian
    }
}
