/// Why a video payload was refused before it entered the stream's sequence (RFC 6184 §5, RFC 7798
/// §4.4, RFC 7741 §4), whichever the codec: counted by reason.
public enum VideoPayloadInvalid: String, Error, CaseIterable, Sendable {
    case empty = "empty payload"
    case forbiddenBit = "forbidden_zero_bit set"
    case reservedType = "reserved NAL unit type"
    case tooShort = "payload shorter than its payload header"
    case zeroTemporalId = "nuh_temporal_id_plus1 of 0"
    case aggregationOverrun = "aggregation packet whose first unit runs past its end"
    case aggregationEmpty = "aggregation packet with no NAL unit"
    case aggregationNestedType = "aggregation packet carries an aggregation or fragment type"
    case fragmentTooShort = "fragmentation unit shorter than its headers"
    case fragmentType = "fragmentation unit carries an aggregation or fragment type"
    case fuBWithoutStart = "FU-B that is not a first fragment"
    case paciOverrun = "PACI whose extensions run past its end"
    case paciNestedType = "PACI carrying a PACI"
    case frameTag = "frame start whose VP8 frame tag does not parse"

    /// Ciphertext (SRTP without its key) sets the forbidden bit in half its packets; no sender of
    /// either codec sets it in a quarter of them.
    public static func looksEncrypted(_ invalid: [Self: Int], packets: Int) -> Bool {
        (invalid[.forbiddenBit] ?? 0) * 4 >= packets
    }

    /// For a stream not taken: ciphertext sets the forbidden bit in about half its packets, where
    /// audio on a dynamic type without its SDP sets it in all or none (Opus's TOC byte, say). From
    /// `minimumPacketsForCiphertext` packets on: 32 random bytes set it 16 ± 3 times, well inside.
    public static func looksLikeCiphertext(_ invalid: [Self: Int], packets: Int) -> Bool {
        let forbidden = invalid[.forbiddenBit] ?? 0
        return packets >= minimumPacketsForCiphertext && forbidden * 4 >= packets && forbidden * 4 <= 3 * packets
    }

    /// The fewest packets a stream is called encrypted on, here and by `--list`.
    public static let minimumPacketsForCiphertext = 32
}
