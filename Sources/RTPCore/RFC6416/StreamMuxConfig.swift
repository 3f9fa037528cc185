/// StreamMuxConfig (ISO/IEC 14496-3 §1.7.3.1): the LATM framing's own header, which wraps the
/// AudioSpecificConfig. RFC 6416 carries it in the SDP (`config=`, with `cpresent=0`) or in-band in
/// the audioMuxElements (`cpresent=1`, the default).
///
/// ```
/// audioMuxVersion 1 | [audioMuxVersionA 1 | taraBufferFullness LatmValue] |
/// allStreamsSameTimeFraming 1 | numSubFrames 6 | numProgram 4 | numLayer 3 |
/// AudioSpecificConfig (version 0: straight after, from bit 15; version 1: ascLen LatmValue first) |
/// frameLengthType 3 | latmBufferFullness 8 (type 0) | otherDataPresent 1 [otherDataLenBits] |
/// crcCheckPresent 1 [crcCheckSum 8]
/// ```
///
/// Only one program of one layer is taken: that is what AAC over RTP sends.
public struct StreamMuxConfig: Sendable, Equatable {
    public var audioMuxVersion: Int
    public var allStreamsSameTimeFraming: Bool
    /// Frames in each audioMuxElement, less one.
    public var numSubFrames: Int
    public var audioSpecificConfig: AudioSpecificConfig
    /// 0: each frame's length comes before it in bytes (255-escaped); the only type taken.
    public var frameLengthType: Int
    /// Bits of other data after the payloads of an audioMuxElement.
    public var otherDataLenBits: Int

    public enum Invalid: Error, CustomStringConvertible {
        case truncated
        case audioMuxVersionA
        case several(String)
        case frameLengthType(Int)
        case config(AudioSpecificConfig.Invalid)

        public var description: String {
            switch self {
            case .truncated: "StreamMuxConfig ends too early"
            case .audioMuxVersionA: "audioMuxVersionA 1 is reserved"
            case .several(let what): "StreamMuxConfig with several \(what): only one AAC stream is taken"
            case .frameLengthType(let t): "frameLengthType \(t) (only 0, AAC, is taken)"
            case .config(let error): "\(error)"
            }
        }
    }

    /// From the hex string of an SDP's `config=`.
    public init(hex: String) throws {
        guard let bytes = hexBytes(hex), !bytes.isEmpty else { throw Invalid.truncated }
        self = try bytes.withUnsafeBytes { raw in
            var reader = BitReader(raw)
            return try StreamMuxConfig(reading: &reader)
        }
    }

    public init(reading reader: inout BitReader) throws {
        func bits(_ n: Int) throws -> Int {
            guard let v = reader.read(n) else { throw Invalid.truncated }
            return Int(v)
        }
        func latmValue() throws -> Int {
            let bytes = try bits(2)
            var value = 0
            for _ in 0...bytes { value = value << 8 | (try bits(8)) }
            return value
        }
        audioMuxVersion = try bits(1)
        if audioMuxVersion == 1 {
            guard try bits(1) == 0 else { throw Invalid.audioMuxVersionA }
            _ = try latmValue()  // taraBufferFullness
        }
        allStreamsSameTimeFraming = try bits(1) == 1
        numSubFrames = try bits(6)
        guard try bits(4) == 0 else { throw Invalid.several("programs") }
        guard try bits(3) == 0 else { throw Invalid.several("layers") }
        do {
            if audioMuxVersion == 0 {
                audioSpecificConfig = try AudioSpecificConfig(reading: &reader)
            } else {
                let length = try latmValue()
                let start = reader.position
                audioSpecificConfig = try AudioSpecificConfig(reading: &reader)
                guard reader.skip(length - (reader.position - start)) else { throw Invalid.truncated }
            }
        } catch let error as AudioSpecificConfig.Invalid {
            throw Invalid.config(error)
        }
        otherDataLenBits = 0
        // Some senders (GStreamer's rtpmp4apay) end the SDP's config with the AudioSpecificConfig and
        // its padding: what follows it is then the defaults of an AAC stream.
        guard reader.bitsLeft >= 13 else {
            frameLengthType = 0
            return
        }
        frameLengthType = try bits(3)
        guard frameLengthType == 0 else { throw Invalid.frameLengthType(frameLengthType) }
        _ = try bits(8)  // latmBufferFullness
        if try bits(1) == 1 {
            if audioMuxVersion == 1 {
                otherDataLenBits = try latmValue()
            } else {
                var more = true
                while more {
                    more = try bits(1) == 1
                    otherDataLenBits = otherDataLenBits << 8 | (try bits(8))
                }
            }
        }
        if try bits(1) == 1 { _ = try bits(8) }  // crcCheckSum
    }
}
