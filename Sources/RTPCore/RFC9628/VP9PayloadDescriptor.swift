/// The VP9 payload descriptor that begins every RTP payload (RFC 9628 §4.2), in flexible mode (F=1)
/// and non-flexible mode:
///
///          0 1 2 3 4 5 6 7
///         +-+-+-+-+-+-+-+-+
///         |I|P|L|F|B|E|V|Z| (REQUIRED)
///         +-+-+-+-+-+-+-+-+
///    I:   |M| PICTURE ID  | (REQUIRED)
///         +-+-+-+-+-+-+-+-+
///    M:   | EXTENDED PID  | (RECOMMENDED)
///         +-+-+-+-+-+-+-+-+
///    L:   | TID |U| SID |D| (Conditionally RECOMMENDED)
///         +-+-+-+-+-+-+-+-+
///         |   TL0PICIDX   | (non-flexible mode, with L)
///         +-+-+-+-+-+-+-+-+
///   P,F:  | P_DIFF      |N| (flexible mode, when P: up to 3 times, N saying another follows)
///         +-+-+-+-+-+-+-+-+
///    V:   | SS            | (the scalability structure, `VP9ScalabilityStructure`)
///         +-+-+-+-+-+-+-+-+
public struct VP9PayloadDescriptor: Sendable {
    /// P: the picture refers to earlier ones (inter-picture predicted).
    public var interPicturePredicted: Bool
    /// F: flexible mode, references given by P_DIFF.
    public var flexible: Bool
    /// B and E: the packet begins, ends, a layer frame.
    public var beginsLayer: Bool
    public var endsLayer: Bool
    public var pictureID: Int?
    public var pictureIDBits = 0
    /// TID, U, SID and D (L): the temporal layer, a switching-up point, the spatial layer, and
    /// whether it depends on the spatial layer below.
    public var temporalLayer: Int?
    public var switchingUp = false
    public var spatialLayer: Int?
    public var interLayerDependent = false
    /// TL0PICIDX (non-flexible mode with L).
    public var tl0PictureIndex: Int?
    /// P_DIFF (flexible mode): how many pictures back each reference is; `referenceCount` of them.
    public var references: (Int, Int, Int) = (0, 0, 0)
    public var referenceCount = 0
    /// V: the scalability structure's first spatial layer size, when it gives one.
    public var scalability: VP9ScalabilityStructure?
    public var size: Int

    /// The descriptor at the start of `payload`, or nil when it runs past it or its P_DIFF list
    /// does not end within three.
    public init?(_ payload: UnsafeRawBufferPointer) {
        var c = ByteCursor(payload)
        guard let first = c.readUInt8() else { return nil }
        interPicturePredicted = first & 0x40 != 0
        flexible = first & 0x10 != 0
        beginsLayer = first & 0x08 != 0
        endsLayer = first & 0x04 != 0
        size = 0
        if first & 0x80 != 0 {
            guard let id = c.readUInt8() else { return nil }
            if id & 0x80 != 0 {
                guard let low = c.readUInt8() else { return nil }
                (pictureID, pictureIDBits) = (Int(id & 0x7f) << 8 | Int(low), 15)  // bounded: widenings of bytes
            } else {
                (pictureID, pictureIDBits) = (Int(id), 7)  // bounded: a byte
            }
        }
        if first & 0x20 != 0 {
            guard let layers = c.readUInt8() else { return nil }
            temporalLayer = Int(layers >> 5)  // bounded: three bits
            switchingUp = layers & 0x10 != 0
            spatialLayer = Int(layers >> 1 & 7)  // bounded: three bits
            interLayerDependent = layers & 1 != 0
            if !flexible {
                guard let index = c.readUInt8() else { return nil }
                tl0PictureIndex = Int(index)  // bounded: a byte
            }
        }
        if flexible && interPicturePredicted {
            guard readReferences(&c) else { return nil }
        }
        if first & 0x02 != 0 {
            guard let ss = VP9ScalabilityStructure(&c) else { return nil }
            scalability = ss
        }
        size = c.readerIndex
    }

    private mutating func readReferences(_ c: inout ByteCursor) -> Bool {
        var more = true
        while more {
            guard referenceCount < 3, let byte = c.readUInt8() else { return false }
            let difference = Int(byte >> 1)  // bounded: seven bits
            switch referenceCount {
            case 0: references.0 = difference
            case 1: references.1 = difference
            default: references.2 = difference
            }
            referenceCount += 1
            more = byte & 1 != 0
        }
        return true
    }

    /// The PictureID of the picture's reference `index` (flexible mode; below `referenceCount`).
    public func referencedPicture(_ index: Int, of id: Int) -> Int {
        let difference = index == 0 ? references.0 : index == 1 ? references.1 : references.2
        return (id - difference) & ((1 << pictureIDBits) - 1)
    }

    public func pictureDistance(from earlier: VP9PayloadDescriptor) -> Int? {
        guard let id = pictureID, let before = earlier.pictureID, pictureIDBits == earlier.pictureIDBits else { return nil }
        return (id - before) & ((1 << pictureIDBits) - 1)
    }
}

/// The scalability structure (RFC 9628 §4.2.1): the spatial layers' sizes and the picture group,
/// read to its end (the picture group's references are not kept: P_DIFF and TID/U say enough).
///
///         +-+-+-+-+-+-+-+-+
///    V:   | N_S |Y|G|-|-|-|
///         +-+-+-+-+-+-+-+-+
///    Y:   |     WIDTH     | (16 bits) }  N_S + 1 times
///         |     HEIGHT    | (16 bits) }
///    G:   |      N_G      |
///         +-+-+-+-+-+-+-+-+
///    N_G: | TID |U| R |-|-| }  N_G times, each with R P_DIFF bytes
public struct VP9ScalabilityStructure: Sendable, Equatable {
    public var spatialLayers: Int
    /// Each spatial layer's picture size, when given (Y).
    public var widths: [Int] = []
    public var heights: [Int] = []
    public var pictureGroup = 0

    init?(_ c: inout ByteCursor) {
        guard let head = c.readUInt8() else { return nil }
        spatialLayers = Int(head >> 5) + 1  // bounded: three bits
        if head & 0x10 != 0 {
            for _ in 0..<spatialLayers {
                guard let w = c.readUInt16(), let h = c.readUInt16() else { return nil }
                widths.append(Int(w))  // bounded: a 16-bit field
                heights.append(Int(h))  // bounded: a 16-bit field
            }
        }
        if head & 0x08 != 0 {
            guard let groups = c.readUInt8() else { return nil }
            pictureGroup = Int(groups)  // bounded: a byte
            for _ in 0..<pictureGroup {
                guard let entry = c.readUInt8(), c.skip(Int(entry >> 2 & 3)) else { return nil }  // bounded: two bits
            }
        }
    }
}
