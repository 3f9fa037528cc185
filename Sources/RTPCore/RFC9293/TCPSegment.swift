/// A TCP segment's header (RFC 9293 §3.1), as a capture holds it: ports, sequence number, the
/// flags that open and close a connection, and where its payload lies in the frame.
public struct TCPSegment: Sendable {
    public var source: Endpoint
    public var destination: Endpoint
    public var sequenceNumber: UInt32
    public var syn: Bool
    public var fin: Bool
    public var rst: Bool
    /// The payload's bytes within the frame.
    public var payloadRange: Range<Int>

    init(_ ip: UnsafeRawBufferPointer, at offset: Int, end: Int, base: Int,
         source: Endpoint.Address, destination: Endpoint.Address) throws(FrameSkip) {
        guard offset + 20 <= end else { throw .malformed }
        let dataOffset = Int(ip[offset + 12] >> 4) * 4
        guard dataOffset >= 20, offset + dataOffset <= end else { throw .malformed }
        let flags = ip[offset + 13]
        self.source = Endpoint(address: source, port: ip.loadUnaligned(fromByteOffset: offset, as: UInt16.self).bigEndian)
        self.destination = Endpoint(address: destination, port: ip.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self).bigEndian)
        sequenceNumber = ip.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self).bigEndian
        syn = flags & 0x02 != 0
        fin = flags & 0x01 != 0
        rst = flags & 0x04 != 0
        payloadRange = base + offset + dataOffset..<base + end
    }
}
