/// VP9 read from RFC 9628 payloads: keyframe headers that parse (the frame marker and the sync code
/// 0x49 0x83 0x42), and frame starts whose PictureIDs each follow the last one's.
struct VP9Recognition: VideoRecognition {
    private var keyframe: VP9FrameHeader?
    private var keyframes = 0
    private var frameStarts = 0
    private var last: VP9PayloadDescriptor?
    private var followingPictureIDs = 0
    /// The highest SID and TID seen, and whether the references came in flexible mode.
    private var highestSpatialLayer: Int?
    private var highestTemporalLayer: Int?
    private var flexible = false
    /// The largest spatial layer's size the scalability structure gave.
    private var layerSize: (width: Int, height: Int)?

    mutating func record(_ payload: UnsafeRawBufferPointer) {
        guard let descriptor = VP9PayloadDescriptor(payload), descriptor.beginsLayer else { return }
        if let layer = descriptor.spatialLayer { highestSpatialLayer = max(highestSpatialLayer ?? 0, layer) }
        if let layer = descriptor.temporalLayer { highestTemporalLayer = max(highestTemporalLayer ?? 0, layer) }
        flexible = flexible || descriptor.flexible
        if let size = descriptor.pictureSize(upTo: nil) { layerSize = size }
        guard descriptor.beginsFrame, let header = VP9FrameHeader(payload.view(descriptor.size..<payload.count)) else { return }
        frameStarts += 1
        if header.isKeyframe {
            keyframe = header
            keyframes += 1
        }
        if descriptor.pictureID != nil {
            if let last, descriptor.pictureDistance(from: last) == 1 { followingPictureIDs += 1 }
            last = descriptor
        }
    }

    func proves(packets: Int) -> Bool { keyframe != nil || followingPictureIDs >= 8 }

    var sawKeyframe: Bool { keyframes > 0 }

    var summary: String {
        let size = layerSize.map { "\($0.width)x\($0.height)" } ?? keyframe.map { "\($0.width)x\($0.height)" } ?? "-"
        var layers = highestSpatialLayer.map { $0 > 0 ? ["\($0 + 1) spatial layers"] : [] } ?? []
        layers += highestTemporalLayer.map { $0 > 0 ? ["\($0 + 1) temporal layers"] : [] } ?? []
        if flexible { layers.append("flexible mode") }
        return "VP9 \(size)  " + layers.map { $0 + ", " }.joined() + "\(frameStarts) frames, \(keyframes) keyframes"
    }
}
