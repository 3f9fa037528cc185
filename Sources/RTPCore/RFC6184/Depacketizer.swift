/// Turns the payloads of packetization modes 0 and 1 (RFC 6184 §6.2, §6.3) into NAL units for the
/// assembler: single NAL units (§5.6), STAP-A (§5.7.1) and FU-A (§5.8).
///
/// Payloads arrive in sequence order, already checked by `H264Payload.validate`. FU-A is a strict
/// state machine: a unit needs its start fragment and every fragment up to its end, with no sequence
/// gap, or the whole unit is dropped.
public final class Depacketizer {
    public let assembler: AccessUnitAssembler
    private var fragmentOpen = false
    private var fragmentTimestamp: UInt32 = 0

    public private(set) var fragmentedUnitsDropped = 0
    public private(set) var strayFragments = 0

    public init(assembler: AccessUnitAssembler) {
        self.assembler = assembler
    }

    /// `lostBefore` counts the packets missing between this one and the one processed before it.
    public func process(payload: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool, lostBefore: Int) throws {
        if lostBefore > 0 {
            dropOpenFragment()
            try assembler.noteLoss(before: timestamp, leading: H264Payload.leadingNAL(payload))
        }
        let type = nalUnitType(payload[0])
        switch type {
        case H264Payload.fuA:
            try processFragment(payload, timestamp: timestamp)
        case H264Payload.stapA:
            dropOpenFragment()
            var cursor = ByteCursor(payload, at: 1)
            while let size = cursor.readUInt16(), let nal = cursor.readSlice(Int(size)) {
                try assembler.beginNAL(header: nal[0], body: nal.view(1..<nal.count), timestamp: timestamp)
                assembler.endNAL()
            }
        default:
            dropOpenFragment()
            try assembler.beginNAL(header: payload[0], body: payload.view(1..<payload.count), timestamp: timestamp)
            assembler.endNAL()
        }
        try assembler.endOfPacket(marker: marker)
    }

    private func processFragment(_ payload: UnsafeRawBufferPointer, timestamp: UInt32) throws {
        let fuHeader = payload[1]
        let start = fuHeader & 0x80 != 0, end = fuHeader & 0x40 != 0
        let fragment = payload.view(2..<payload.count)
        if start {
            dropOpenFragment()
            // The NAL header comes back from the FU indicator's F and NRI and the FU header's type.
            let header = (payload[0] & 0xE0) | (fuHeader & 0x1F)
            try assembler.beginNAL(header: header, body: fragment, timestamp: timestamp)
            // S and E together are invalid per §5.8, but real cameras send it: a whole unit.
            if end {
                assembler.endNAL()
            } else {
                fragmentOpen = true
                fragmentTimestamp = timestamp
            }
            return
        }
        guard fragmentOpen, timestamp == fragmentTimestamp else {
            // A fragment of a unit whose start never came: the unit is lost, and its picture with it.
            dropOpenFragment()
            strayFragments += 1
            try assembler.noteLoss(before: timestamp, leading: nil)
            return
        }
        assembler.appendNAL(fragment)
        if end {
            assembler.endNAL()
            fragmentOpen = false
        }
    }

    private func dropOpenFragment() {
        guard fragmentOpen else { return }
        fragmentOpen = false
        fragmentedUnitsDropped += 1
        assembler.abortNAL()
    }

    /// Ends the stream: an open fragmented unit is incomplete.
    public func flush() throws {
        dropOpenFragment()
        try assembler.flush()
    }

    public func restart() {
        fragmentOpen = false
        assembler.restart()
    }
}
