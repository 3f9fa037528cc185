/// VP8 read from RFC 7741 payloads: keyframe headers that parse (the start code 0x9d 0x01 0x2a and
/// a picture size), and frame starts whose PictureIDs each follow the last one's. Either is
/// evidence no audio payload or other codec gives by chance; the descriptor's first byte alone is not.
struct VP8Recognition: VideoRecognition {
    private var keyframe: VP8FrameHeader?
    private var keyframes = 0
    private var frameStarts = 0
    private var lastPictureID: VP8PayloadDescriptor?
    private var followingPictureIDs = 0
    /// The highest TID seen, where the descriptors carry one.
    private var highestLayer: Int?

    mutating func record(_ payload: UnsafeRawBufferPointer) {
        guard let descriptor = VP8PayloadDescriptor(payload), descriptor.beginsFrame else { return }
        if let layer = descriptor.temporalLayer { highestLayer = max(highestLayer ?? 0, layer) }
        let data = payload.view(descriptor.size..<payload.count)
        guard let header = VP8FrameHeader(data) else { return }
        frameStarts += 1
        if header.isKeyframe {
            keyframe = header
            keyframes += 1
        }
        if descriptor.pictureID != nil {
            if let last = lastPictureID, descriptor.pictureDistance(from: last) == 1 { followingPictureIDs += 1 }
            lastPictureID = descriptor
        }
    }

    func proves(packets: Int) -> Bool { keyframe != nil || followingPictureIDs >= 8 }

    var sawKeyframe: Bool { keyframes > 0 }

    var summary: String {
        "VP8 " + (keyframe.map { "\($0.width)x\($0.height)" } ?? "-") + "  "
            + (highestLayer.map { "\($0 + 1) temporal layers, " } ?? "") + "\(frameStarts) frames, \(keyframes) keyframes"
    }
}
