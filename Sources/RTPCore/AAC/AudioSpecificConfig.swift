/// AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1): what a decoder needs to start on an MPEG-4 audio
/// stream. It comes from the SDP (`config=` of RFC 3640, or inside the LATM StreamMuxConfig of
/// RFC 6416) and goes as it is into FLV's AAC sequence header; ADTS headers are made from it.
///
/// ```
/// audioObjectType          5 bits (31: escape, then 6 bits + 32)
/// samplingFrequencyIndex   4 bits (15: escape, then samplingFrequency in 24 bits)
/// channelConfiguration     4 bits
/// [SBR/PS (5, 29): extensionSamplingFrequencyIndex, audioObjectType again]
/// GASpecificConfig         frameLengthFlag, dependsOnCoreCoder [coreCoderDelay 14], extensionFlag
/// [syncExtensionType 0x2b7: backward-compatible SBR signalling]
/// ```
public struct AudioSpecificConfig: Sendable, Equatable {
    /// The object type of the core coder (2: AAC LC), after any SBR/PS wrapper.
    public var audioObjectType: Int
    public var samplingFrequencyIndex: Int
    /// The core coder's sampling rate in Hz.
    public var samplingFrequency: Int
    public var channelConfiguration: Int
    /// The SBR output rate, when SBR is signalled (HE-AAC): twice the core rate, usually.
    public var extensionSamplingFrequency: Int?
    /// 960 instead of 1024 samples per frame.
    public var frameLengthFlag: Bool
    /// The bytes as they were given (FLV carries them unchanged).
    public var bytes: [UInt8]
    /// How many bits of `bytes` the config took (LATM puts more fields straight after it).
    public var bitLength: Int

    public static let samplingFrequencies = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050,
                                             16000, 12000, 11025, 8000, 7350]

    public enum Invalid: Error, CustomStringConvertible {
        case truncated
        case unsupportedObjectType(Int)
        case unsupportedChannelConfiguration
        case badSamplingFrequencyIndex(Int)

        public var description: String {
            switch self {
            case .truncated: "AudioSpecificConfig ends too early"
            case .unsupportedObjectType(let t): "audio object type \(t) is not AAC (1-4, with SBR 5 or PS 29)"
            case .unsupportedChannelConfiguration: "channelConfiguration 0 (a program_config_element) is not supported"
            case .badSamplingFrequencyIndex(let i): "samplingFrequencyIndex \(i) is reserved"
            }
        }
    }

    /// Samples per channel in one access unit, at the core rate.
    public var samplesPerFrame: Int { frameLengthFlag ? 960 : 1024 }

    /// Output channels (channelConfiguration 7 is 7.1: eight).
    public var channels: Int { channelConfiguration == 7 ? 8 : channelConfiguration }

    /// From the hex string of an SDP's `config=`.
    public init(hex: String) throws {
        guard let bytes = hexBytes(hex) else { throw Invalid.truncated }
        try self.init(bytes: bytes)
    }

    /// From its bytes (an encoder's extradata).
    public init(bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { throw Invalid.truncated }
        self = try bytes.withUnsafeBytes { raw in
            var reader = BitReader(raw)
            var config = try AudioSpecificConfig(reading: &reader)
            config.bytes = bytes
            return config
        }
    }

    /// Reads one config at the reader's position; `bytes` holds exactly its bits, padded.
    public init(reading reader: inout BitReader) throws {
        let start = reader.position
        var type = try Self.objectType(&reader)
        let core = try Self.frequency(&reader)
        let channelConfiguration = try Self.bits(&reader, 4)
        var extensionFrequency: Int?
        if type == 5 || type == 29 {
            extensionFrequency = try Self.frequency(&reader).hz
            type = try Self.objectType(&reader)
        }
        guard (1...4).contains(type) || type == 6 || type == 7 || type == 17 || (19...23).contains(type) else {
            throw Invalid.unsupportedObjectType(type)
        }
        guard channelConfiguration != 0 else { throw Invalid.unsupportedChannelConfiguration }
        let frameLengthFlag = try Self.readGASpecificConfig(&reader, objectType: type)
        extensionFrequency = Self.readBackwardCompatibleSBR(&reader) ?? extensionFrequency
        audioObjectType = type
        samplingFrequencyIndex = core.index
        samplingFrequency = core.hz
        self.channelConfiguration = channelConfiguration
        extensionSamplingFrequency = extensionFrequency
        self.frameLengthFlag = frameLengthFlag
        bitLength = reader.position - start
        var copy = BitReader(reader.bytes, bitOffset: start)
        var out: [UInt8] = []
        _ = copy.copyBits(bitLength, into: &out)
        bytes = out
    }

    private static func bits(_ reader: inout BitReader, _ n: Int) throws -> Int {
        guard let v = reader.read(n) else { throw Invalid.truncated }
        return Int(v)
    }

    private static func objectType(_ reader: inout BitReader) throws -> Int {
        let t = try bits(&reader, 5)
        return t == 31 ? 32 + (try bits(&reader, 6)) : t
    }

    private static func frequency(_ reader: inout BitReader) throws -> (index: Int, hz: Int) {
        let index = try bits(&reader, 4)
        if index == 15 { return (index, try bits(&reader, 24)) }
        guard index < samplingFrequencies.count else { throw Invalid.badSamplingFrequencyIndex(index) }
        return (index, samplingFrequencies[index])
    }

    /// GASpecificConfig (§4.4.1), read past; its frameLengthFlag.
    private static func readGASpecificConfig(_ reader: inout BitReader, objectType type: Int) throws -> Bool {
        let frameLengthFlag = try bits(&reader, 1) == 1
        if try bits(&reader, 1) == 1 { _ = try bits(&reader, 14) }  // dependsOnCoreCoder: coreCoderDelay
        let extensionFlag = try bits(&reader, 1) == 1
        if type == 6 || type == 20 { _ = try bits(&reader, 3) }  // layerNr
        if extensionFlag {
            if type == 22 { _ = try bits(&reader, 16) }  // numOfSubFrame, layer_length
            if [17, 19, 20, 23].contains(type) { _ = try bits(&reader, 3) }  // resilience flags
            _ = try bits(&reader, 1)  // extensionFlag3
        }
        return frameLengthFlag
    }

    /// Backward-compatible SBR signalling after the core config (§1.6.6): read when whole, its
    /// extension sampling frequency; the reader stays where it was when the signalling is absent or cut.
    private static func readBackwardCompatibleSBR(_ reader: inout BitReader) -> Int? {
        var probe = reader
        guard probe.bitsLeft >= 16, probe.read(11) == 0x2B7, let extensionType = probe.read(5), extensionType == 5,
              let sbr = probe.readFlag() else { return nil }
        guard sbr else {
            reader = probe
            return nil
        }
        guard let index = probe.read(4) else { return nil }
        if index == 15 {
            guard let hz = probe.read(24) else { return nil }
            reader = probe
            return Int(hz)
        }
        guard Int(index) < samplingFrequencies.count else { return nil }
        reader = probe
        return samplingFrequencies[Int(index)]
    }

    /// The rate a decoder outputs: the SBR rate when signalled.
    public var outputSamplingFrequency: Int { extensionSamplingFrequency ?? samplingFrequency }
}

extension AudioSpecificConfig {
    /// A placeholder until an in-band config comes (LATM with cpresent=1 and no SDP config).
    public static let unknown = AudioSpecificConfig()

    private init() {
        audioObjectType = 0
        samplingFrequencyIndex = 15
        samplingFrequency = 0
        channelConfiguration = 0
        extensionSamplingFrequency = nil
        frameLengthFlag = false
        bytes = []
        bitLength = 0
    }

    public var isKnown: Bool { audioObjectType != 0 }
}
