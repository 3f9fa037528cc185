/// RFC 3389 comfort noise as a receiver plays it: white noise at the level the sender gave, in
/// -dBov (0 dBov being a full-scale square wave, an RMS of 32767). The spectral parameters, which
/// senders mostly leave out, are not used.
public struct ComfortNoise: Sendable {
    /// The peak of uniform noise whose RMS is the level's (a uniform spread of ±A has an RMS of A/√3).
    public let peak: Int32
    private var state: UInt32 = 0x2545_F491

    public init(level: UInt8) {
        // 10^(-level/20): each dB down is a factor of 10^(-1/20).
        var rms = 32767.0
        for _ in 0..<min(level, 127) { rms *= 0.8912509381337456 }
        // bounded: at most 32767, and at least 0.
        peak = Int32(min(32767, (rms * 3.0.squareRoot()).rounded()))
    }

    /// `samples` filled with noise (xorshift: the same noise each run, for files that compare).
    public mutating func fill(_ samples: UnsafeMutableBufferPointer<Int16>) {
        let span = UInt32(truncatingIfNeeded: 2 * peak + 1)
        for i in samples.indices {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            samples[i] = Int16(truncatingIfNeeded: Int32(truncatingIfNeeded: state % span) - peak)
        }
    }
}
