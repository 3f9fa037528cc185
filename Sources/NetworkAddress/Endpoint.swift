/// An IP address and UDP port, as read from a capture or a socket.
public struct Endpoint: Hashable, Sendable, CustomStringConvertible {
    public enum Address: Hashable, Sendable {
        case v4(UInt32)
        case v6(UInt64, UInt64)
    }

    public var address: Address
    public var port: UInt16

    @inlinable
    public init(address: Address, port: UInt16) {
        self.address = address
        self.port = port
    }

    public var addressDescription: String {
        switch address {
        case .v4(let a):
            return "\(a >> 24).\(a >> 16 & 0xFF).\(a >> 8 & 0xFF).\(a & 0xFF)"
        case .v6(let high, let low):
            // RFC 5952: lower case, longest run of zero groups shortened to "::".
            let groups = (0..<8).map { i -> UInt16 in
                let word = i < 4 ? high : low
                return UInt16(truncatingIfNeeded: word >> (UInt64(3 - i % 4) * 16))
            }
            var bestStart = -1, bestLength = 1, i = 0
            while i < 8 {
                if groups[i] == 0 {
                    var j = i
                    while j < 8 && groups[j] == 0 { j += 1 }
                    if j - i > bestLength { bestStart = i; bestLength = j - i }
                    i = j
                } else {
                    i += 1
                }
            }
            func hex(_ range: Range<Int>) -> String {
                groups[range].map { String($0, radix: 16) }.joined(separator: ":")
            }
            if bestStart < 0 { return hex(0..<8) }
            return hex(0..<bestStart) + "::" + hex(bestStart + bestLength..<8)
        }
    }

    public var description: String {
        switch address {
        case .v4: return "\(addressDescription):\(port)"
        case .v6: return "[\(addressDescription)]:\(port)"
        }
    }
}
