/// SEI messages (H.264 §7.3.2.3): only whether a recovery point (payloadType 6, §D.1.8) is present,
/// which marks a random-access point in streams without IDR pictures.
public enum SEI {
    public static let recoveryPointPayloadType = 6

    /// `nal` is the whole SEI NAL unit, header byte included.
    public static func containsRecoveryPoint(nal: UnsafeRawBufferPointer) -> Bool {
        guard nal.count >= 2, nalUnitType(nal[0]) == NALUnitType.sei else { return false }
        var r = RBSPBitReader(nal.view(1..<nal.count))
        // sei_message(): ff-extended payloadType and payloadSize, then the payload.
        for _ in 0..<64 {
            guard let type = readFFCoded(&r), let size = readFFCoded(&r) else { return false }
            if type == recoveryPointPayloadType { return true }
            guard size < 1 << 20, r.skipBits(size * 8) else { return false }
            // Stop at rbsp_trailing_bits: the 0x80 byte.
            var probe = r
            if probe.readByte() == 0x80 { return false }
        }
        return false
    }

    private static func readFFCoded(_ r: inout RBSPBitReader) -> Int? {
        var value = 0
        while true {
            guard let byte = r.readByte() else { return nil }
            value += Int(byte)
            if byte != 0xFF { return value }
            if value > 1 << 20 { return nil }
        }
    }
}
