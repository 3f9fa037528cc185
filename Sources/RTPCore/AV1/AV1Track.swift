extension VideoTrack {
    /// An AV1 keyframe's track: its sequence header OBU (the assembly puts one in front of every
    /// keyframe), with its obu_size, and the size it gives.
    static let av1: @Sendable (AccessUnit) -> VideoTrack? = { unit in
        var scratch: [UInt8] = []
        return unit.withContiguousBytes(scratch: &scratch) { bytes -> VideoTrack? in
            guard let (header, payload) = OBUs(bytes).first(where: { $0.header.type == OBUHeader.sequenceHeader }),
                  let sequence = AV1SequenceHeader(payload) else { return nil }
            var obu: [UInt8] = [header.type << 3 | 0x02]
            LEB128.append(payload.count, to: &obu)
            obu += payload
            return VideoTrack(sequence.parameters, configuration: obu)
        }
    }
}
