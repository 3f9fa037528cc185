/// RFC 8285 header extension elements, read as views over the extension data of an `RTPPacket`.
///
/// One-byte form (profile 0xBEDE, §4.2):      Two-byte form (profile 0x100X, §4.3):
///     0 1 2 3 4 5 6 7                           0                   1
///    +-+-+-+-+-+-+-+-+                          0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
///    |  ID   |  len  |  then len+1 bytes       +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///    +-+-+-+-+-+-+-+-+                          |       ID      |     length    | then length bytes
///                                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ID 0 is padding in both forms; ID 15 ends the one-byte form.
public struct RTPHeaderExtensionElements: Sequence, IteratorProtocol {
    public struct Element {
        public var id: UInt8
        public var data: UnsafeRawBufferPointer
    }

    public enum Form { case oneByte, twoByte }

    private var cursor: ByteCursor
    private let form: Form

    /// Nil when the profile is neither RFC 8285 form.
    public init?(profile: UInt16, data: UnsafeRawBufferPointer) {
        if profile == 0xBEDE {
            form = .oneByte
        } else if profile & 0xFFF0 == 0x1000 {
            form = .twoByte
        } else {
            return nil
        }
        cursor = ByteCursor(data)
    }

    public mutating func next() -> Element? {
        while let first = cursor.readUInt8() {
            switch form {
            case .oneByte:
                let id = first >> 4
                if id == 0 { continue }
                if id == 15 { return nil }
                guard let data = cursor.readSlice(Int(first & 0x0F) + 1) else { return nil }
                return Element(id: id, data: data)
            case .twoByte:
                if first == 0 { continue }
                guard let length = cursor.readUInt8(), let data = cursor.readSlice(Int(length)) else { return nil }
                return Element(id: first, data: data)
            }
        }
        return nil
    }
}

extension RTPPacket {
    /// The RFC 8285 elements of this packet's extension, or nil when it has none in that format.
    public func headerExtensionElements(in bytes: UnsafeRawBufferPointer) -> RTPHeaderExtensionElements? {
        guard hasExtension else { return nil }
        return RTPHeaderExtensionElements(profile: extensionProfile, data: bytes.view(extensionRange))
    }
}
