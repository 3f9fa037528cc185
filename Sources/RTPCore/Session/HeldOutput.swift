/// What a video stream taking over from a silent one outputs during the packet that proves it:
/// its records and access units, kept in order, the units copied (their bytes are valid only
/// during the output call). The receiver writes them once the packet has gone through and it has
/// finished the stream before, so that no stream's output runs inside another's. A copy a
/// hand-over, of what one packet completes.
struct HeldOutput {
    let stream: VideoStream
    /// Each with whether the stream was told it is taken.
    private var outputs: [(record: FrameRecord, unit: HeldUnit?, promised: Bool)] = []

    private struct HeldUnit {
        /// Its pieces and offsets empty: they are the copies' while `forEach` runs.
        var unit: AccessUnit
        var bytes: [UInt8]
        var offsets: [Int]
    }

    init(stream: VideoStream) { self.stream = stream }

    mutating func hold(_ record: FrameRecord, _ accessUnit: AccessUnit?, promised: Bool) {
        outputs.append((record, accessUnit.map { unit in
            var kept = unit
            kept.pieces = UnsafeBufferPointer(start: nil, count: 0)
            kept.nalUnitOffsets = UnsafeBufferPointer(start: nil, count: 0)
            return HeldUnit(unit: kept, bytes: unit.copiedBytes(), offsets: Array(unit.nalUnitOffsets))
        }, promised))
    }

    /// Each output in order, a unit's bytes in one piece, and whether it was promised.
    func forEach(_ body: (FrameRecord, AccessUnit?, Bool) throws -> Void) rethrows {
        for (record, held, promised) in outputs {
            guard var held else {
                try body(record, nil, promised)
                continue
            }
            try held.bytes.withUnsafeBytes { bytes in
                try withUnsafePointer(to: bytes) { piece in
                    try held.offsets.withUnsafeBufferPointer { offsets in
                        held.unit.pieces = UnsafeBufferPointer(start: piece, count: 1)
                        held.unit.nalUnitOffsets = offsets
                        try body(record, held.unit, promised)
                    }
                }
            }
        }
    }
}
