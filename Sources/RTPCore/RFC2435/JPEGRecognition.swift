/// Motion JPEG read from RFC 2435 payloads, for `--list`: frames whose packets' fragment offsets
/// run on from 0 without a gap, each packet's JPEG header one of a defined type with the frame's
/// size. Five such frames, in nine of ten payloads, are evidence a stream on a static type 26 or a
/// named one needs; JPEG is not guessed for a dynamic type without its SDP (see
/// `VideoCodec.isTakenOnlyWhenNamed`).
struct JPEGRecognition: VideoRecognition {
    private var size: (width: Int, height: Int)?
    /// Headers that say 0: a picture larger than 2040.
    private var unsized = false
    private var frames = 0
    private var valid = 0
    /// The scan bytes the frame in progress should have next, when its packets so far ran on.
    private var expectedOffset: Int?

    mutating func record(_ payload: UnsafeRawBufferPointer) {
        guard let header = JPEGPayloadHeader(payload), header.size + header.tableLength < payload.count else {
            expectedOffset = nil
            return
        }
        valid += 1
        let data = payload.count - header.size - header.tableLength
        if header.fragmentOffset == 0 {
            expectedOffset = data
            frames += 1
        } else if expectedOffset == header.fragmentOffset {
            expectedOffset = header.fragmentOffset + data
        } else {
            expectedOffset = nil
            return
        }
        // A picture larger than 2040 has its size in the SDP alone.
        if header.width > 0 && header.height > 0 { size = (header.width, header.height) } else { unsized = true }
    }

    func proves(packets: Int) -> Bool { frames >= 5 && valid * 10 >= packets * 9 }

    var sawKeyframe: Bool { frames > 0 }

    var summary: String {
        "JPEG " + (size.map { "\($0.width)x\($0.height)" } ?? (unsized ? "over 2040 (its size is the SDP's a=x-dimensions)" : "-"))
            + "  \(frames) frames"
    }
}
