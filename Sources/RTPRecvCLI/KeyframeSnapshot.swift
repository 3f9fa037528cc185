import FFmpeg
import RTPCore

/// The live page's picture of a stream: its last keyframe, kept as it comes (a copy into a reused
/// buffer), and decoded into a JPEG only when someone asks for it: no decoder runs for a stream
/// nobody looks at. The JPEG is kept until a newer keyframe has come, and made at most once a
/// second, however often it is asked for.
final class KeyframeSnapshot {
    static let width = 640
    private var keyframe: [UInt8] = []
    private var codec: VideoCodec?
    /// Keyframes kept so far: the one a cached JPEG was made from is told by it.
    private(set) var generation = 0
    private var cached: (generation: Int, made: Int64, jpeg: [UInt8])?
    private var thumbnailer: (codec: VideoCodec, Thumbnailer)?
    /// Pictures decoded on request, for the metrics.
    private(set) var decoded = 0

    func keep(_ accessUnit: AccessUnit) {
        keyframe.removeAll(keepingCapacity: true)
        for piece in accessUnit.pieces { keyframe.append(contentsOf: piece) }
        codec = accessUnit.codec
        generation += 1
    }

    /// The last keyframe as a JPEG, `now` on the monotonic clock; nil before the first keyframe,
    /// or when it would not decode.
    func jpeg(now: Int64) -> [UInt8]? {
        if let cached, cached.generation == generation || now - cached.made < 1_000_000_000 { return cached.jpeg }
        guard let codec, !keyframe.isEmpty else { return nil }
        if thumbnailer?.codec != codec {
            thumbnailer = (try? Thumbnailer(decoderName: codec.decoderName, width: Self.width)).map { (codec, $0) }
        }
        guard let jpeg = keyframe.withUnsafeBytes({ (try? thumbnailer?.1.jpeg(of: $0)) ?? nil }) else { return nil }
        decoded += 1
        cached = (generation, now, jpeg)
        return jpeg
    }
}
