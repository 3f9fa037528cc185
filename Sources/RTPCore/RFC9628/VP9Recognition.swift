/// VP9 read from RFC 9628 payloads: keyframe headers that parse (the frame marker and the sync code
/// 0x49 0x83 0x42), and frame starts whose PictureIDs each follow the last one's.
struct VP9Recognition: VideoRecognition {
    private var keyframe: VP9FrameHeader?
    private var keyframes = 0
    private var frameStarts = 0
    private var last: VP9PayloadDescriptor?
    private var followingPictureIDs = 0

    mutating func record(_ payload: UnsafeRawBufferPointer) {
        guard let descriptor = VP9PayloadDescriptor(payload), descriptor.beginsFrame,
              let header = VP9FrameHeader(payload.view(descriptor.size..<payload.count)) else { return }
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
        "VP9 " + (keyframe.map { "\($0.width)x\($0.height)" } ?? "-") + "  \(frameStarts) frames, \(keyframes) keyframes"
    }
}
