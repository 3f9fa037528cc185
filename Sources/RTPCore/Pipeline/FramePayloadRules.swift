/// What a payload format whose frames come whole between a first and a last packet, each packet
/// opened by a payload descriptor (VP8's RFC 7741, VP9's RFC 9628), declares for
/// `FramePayloadFormat`: its codec, how its descriptor and its frame header read, and how loss
/// reaches the frames that refer to what was lost.
protocol FramePayloadRules {
    associatedtype Descriptor: FrameDescriptor
    associatedtype Header: FrameHeader
    associatedtype References: FrameReferences where References.Descriptor == Descriptor
    associatedtype Assembly: FrameAssembly = PlainAssembly<Descriptor> where Assembly.Descriptor == Descriptor
    static var codec: VideoCodec { get }
    /// Whether a keyframe whose header parses proves the codec in a stream nothing names (VP8's,
    /// VP9's, AV1's); not for a codec taken only when named (`VideoCodec.isTakenOnlyWhenNamed`).
    static var keyframeProvesCodec: Bool { get }
    /// The header of a frame begun with its first packet, once `assembly` ended it in `bytes`.
    static func header(of bytes: AccessUnitBuffer, assembly: Assembly) -> Header?
}

extension FramePayloadRules {
    static var keyframeProvesCodec: Bool { !codec.isTakenOnlyWhenNamed }

    /// Read from the frame's first bytes: VP8's and VP9's headers take fewer than 64.
    static func header(of bytes: AccessUnitBuffer, assembly: Assembly) -> Header? {
        bytes.withBytes(0..<min(bytes.count, 64)) { Header($0) }
    }
}

/// A payload descriptor: what one packet says of the frame it carries part of.
protocol FrameDescriptor {
    /// The descriptor at the start of `payload`, or nil when it runs past it.
    init?(_ payload: UnsafeRawBufferPointer)
    /// Bytes it takes; the frame's bytes follow.
    var size: Int { get }
    /// The packet begins a frame.
    var beginsFrame: Bool { get }
    /// The packet may be a frame's first: `beginsFrame` where the codec marks where frames begin;
    /// AV1, which does not, when its first element continues nothing.
    var mayBeginFrame: Bool { get }
    /// The codec marks where frames begin (VP8's S and PID, VP9's B); where it does not, packets
    /// lost before a new frame may have held its start.
    static var marksFrameStarts: Bool { get }
    /// The packet ends a frame (VP9's E bit); without one, the marker bit or the next timestamp does.
    var endsFrame: Bool { get }
    /// Nothing refers to the frame: dropping it damages no other.
    var nonReference: Bool { get }
    /// The spatial layer of the packet (VP9's SID), where the codec has them: a frame is a picture's
    /// layer frames, the base's first, and those above `VideoFormatConfiguration.maxSpatialLayer`
    /// are left out.
    var spatialLayer: Int? { get }
    /// The packet begins a layer frame above the base within the picture in progress (VP9's B with
    /// a SID above 0).
    var beginsLayerFrame: Bool { get }
    /// The size of the pictures of spatial layers up to `layer` (all, when nil), where the
    /// descriptor says it (VP9's scalability structure): the largest wins over the frame header's,
    /// which is the base layer's.
    func pictureSize(upTo layer: Int?) -> (width: Int, height: Int)?
    /// Frames from `earlier`'s picture to this one's, when both carry a PictureID of one width.
    func pictureDistance(from earlier: Self) -> Int?
}

/// The header at the start of a frame's bytes (RFC 6386 §9.1, the VP9 uncompressed header).
protocol FrameHeader {
    /// Nil when the frame's start cannot be read as one.
    init?(_ frame: UnsafeRawBufferPointer)
    var isKeyframe: Bool { get }
    /// A keyframe's picture size (for IVF), and what it says of the pictures (for the report).
    var pictureSize: (width: Int, height: Int)? { get }
    var parameters: VideoParameters? { get }
    /// Whether the first bytes of a frame, as far as one packet holds them, cannot begin one: a
    /// payload refused as `frameTag`.
    static func contradicted(by start: UnsafeRawBufferPointer) -> Bool
    /// Whether frame headers that parse show the codec (with the stream named): VP8's and VP9's
    /// fixed bits do; AV1's OBUs can be read out of another codec's payloads.
    static var isEvidence: Bool { get }
}

extension FrameHeader {
    static var isEvidence: Bool { true }
}

/// Which frames may refer to a lost one, as the descriptors tell (layers, references).
protocol FrameReferences {
    associatedtype Descriptor
    init()
    /// A packet of the frame in progress came, with the header extension element the stream reads
    /// (the dependency descriptor; empty when none).
    mutating func packet(of frame: Descriptor, headerExtension: UnsafeRawBufferPointer)
    /// Whether the header extension element shows that the packet, the first of a frame to come
    /// after a loss, is surely that frame's first, where the descriptor cannot say (the dependency
    /// descriptor's start of a unit's first frame, for AV1).
    func beginsFrame(_ frame: Descriptor, headerExtension: UnsafeRawBufferPointer) -> Bool
    /// A frame came, with the descriptor of its first packet: before its references are asked.
    mutating func observe(_ frame: Descriptor)
    /// Whether nothing refers to the frame, so that dropping it damages no other.
    func isDiscardable(_ frame: Descriptor) -> Bool
    /// Whether a frame's references are intact.
    func intact(_ frame: Descriptor) -> Bool
    /// A frame that others may refer to was lost or dropped.
    mutating func lost(_ frame: Descriptor)
    /// Frames were lost whole, with nothing known of them.
    mutating func lostWhole()
    /// A frame was written whole, with its references intact or not.
    mutating func wrote(_ frame: Descriptor, isKeyframe: Bool, referencesIntact: Bool)
}

extension FrameReferences where Descriptor: FrameDescriptor {
    func packet(of frame: Descriptor, headerExtension: UnsafeRawBufferPointer) {}
    func beginsFrame(_ frame: Descriptor, headerExtension: UnsafeRawBufferPointer) -> Bool { false }
    func isDiscardable(_ frame: Descriptor) -> Bool { frame.nonReference }
}

extension FrameDescriptor {
    var mayBeginFrame: Bool { beginsFrame }
    static var marksFrameStarts: Bool { true }
    var spatialLayer: Int? { nil }
    var beginsLayerFrame: Bool { false }
    func pictureSize(upTo layer: Int?) -> (width: Int, height: Int)? { nil }
}

/// How a frame's bytes are made from its packets' (after each descriptor): as they come (VP8,
/// VP9), or rewritten into the codec's elementary form (AV1's OBU elements into OBUs with sizes).
/// `borrowing`: the packet's memory outlives the frame, so its bytes may be referred to rather
/// than copied.
protocol FrameAssembly {
    associatedtype Descriptor
    init()
    /// A frame begins in `bytes` (empty).
    mutating func begin(_ bytes: AccessUnitBuffer)
    /// Adds what one packet carries; returns why the frame is damaged when what came cannot be
    /// read or continues what never began.
    mutating func append(_ data: UnsafeRawBufferPointer, of descriptor: Descriptor, to bytes: AccessUnitBuffer,
                         borrowing: Bool) -> FrameRecord.Reason?
    /// The frame's last packet came (or it ends without): what is held back goes in; returns why the
    /// frame is damaged when something was left unfinished.
    mutating func end(_ bytes: AccessUnitBuffer) -> FrameRecord.Reason?
}

/// The payloads' bytes as they come.
struct PlainAssembly<Descriptor>: FrameAssembly {
    init() {}
    func begin(_ bytes: AccessUnitBuffer) {}
    func append(_ data: UnsafeRawBufferPointer, of descriptor: Descriptor, to bytes: AccessUnitBuffer,
                borrowing: Bool) -> FrameRecord.Reason? {
        bytes.append(data, borrowing: borrowing)
        return nil
    }
    func end(_ bytes: AccessUnitBuffer) -> FrameRecord.Reason? { nil }
}
