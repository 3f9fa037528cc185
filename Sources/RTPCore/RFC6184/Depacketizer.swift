/// Turns RTP payloads into NAL units for the assembler, in every packetization mode of RFC 6184:
/// single NAL units (§5.6), STAP-A and STAP-B (§5.7.1), MTAP16 and MTAP24 (§5.7.2), FU-A and FU-B (§5.8).
///
/// Payloads arrive in sequence order, already checked by `H264Payload.validate`. Fragmentation is a
/// strict state machine: a unit needs its start fragment and every fragment up to its end, with no
/// sequence gap, or the whole unit is dropped.
///
/// In the interleaved mode (packetization-mode 2, from the SDP or from the first STAP-B, MTAP or FU-B),
/// NAL units carry decoding order numbers and go through a `DeinterleavingBuffer` before the
/// assembler; a gap in the numbers marks the access units around it as damaged. Single NAL unit
/// packets and STAP-A are not allowed there (§6.4): they are counted and dropped.
public final class Depacketizer {
    public let assembler: AccessUnitAssembler
    public private(set) var deinterleaver: DeinterleavingBuffer?
    private let interleavingParameters: DeinterleavingBuffer.Parameters
    private let latencyNanoseconds: Int64

    private var fragmentOpen = false
    private var fragmentTimestamp: UInt32 = 0
    /// Interleaved mode: the fragmented unit is rebuilt here, since it has to wait for its DON turn.
    private var fragment: [UInt8] = []
    private var fragmentDON: UInt16 = 0
    private var lastReleasedDON: Int64?

    public private(set) var fragmentedUnitsDropped = 0
    public private(set) var strayFragments = 0
    public private(set) var notAllowedInInterleavedMode = 0
    public private(set) var decodingOrderGaps = 0

    /// `interleaving` non-nil starts in the interleaved mode (the SDP said packetization-mode=2).
    public init(assembler: AccessUnitAssembler, interleaving: DeinterleavingBuffer.Parameters? = nil,
                latencyNanoseconds: Int64 = 500_000_000) {
        self.assembler = assembler
        interleavingParameters = interleaving ?? DeinterleavingBuffer.Parameters()
        self.latencyNanoseconds = latencyNanoseconds
        if let interleaving {
            deinterleaver = DeinterleavingBuffer(parameters: interleaving, latencyNanoseconds: latencyNanoseconds)
        }
    }

    public var isInterleaved: Bool { deinterleaver != nil }

    /// `lostBefore` counts the packets missing between this one and the one processed before it;
    /// `arrival` is on the packet clock; `borrowing`: `payload` stays valid until the access units it
    /// goes into are handed on, so they may reference it.
    public func process(payload: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool, lostBefore: Int,
                        arrival: Int64 = 0, borrowing: Bool = false) throws {
        let type = nalUnitType(payload[0])
        if deinterleaver == nil && H264Payload.isInterleavedType(type) {
            // The SDP said otherwise, or nothing: the packets decide.
            deinterleaver = DeinterleavingBuffer(parameters: interleavingParameters, latencyNanoseconds: latencyNanoseconds)
        }
        if let deinterleaver {
            try processInterleaved(payload, type: type, timestamp: timestamp, lostBefore: lostBefore, arrival: arrival)
            try deinterleaver.release(now: arrival, deliver)
            return
        }
        if lostBefore > 0 {
            dropOpenFragment()
            try assembler.noteLoss(before: timestamp, leading: H264Payload.leadingNAL(payload))
        }
        switch type {
        case H264Payload.fuA:
            try processFragment(payload, timestamp: timestamp, borrowing: borrowing)
        case H264Payload.stapA:
            dropOpenFragment()
            var cursor = ByteCursor(payload, at: 1)
            while let size = cursor.readUInt16(), let nal = cursor.readSlice(Int(size)) {
                try assembler.beginNAL(header: nal[0], body: nal.view(1..<nal.count), timestamp: timestamp,
                                       borrowing: borrowing)
                assembler.endNAL()
            }
        default:
            dropOpenFragment()
            try assembler.beginNAL(header: payload[0], body: payload.view(1..<payload.count), timestamp: timestamp,
                                   borrowing: borrowing)
            assembler.endNAL()
        }
        try assembler.endOfPacket(marker: marker)
    }

    private func processFragment(_ payload: UnsafeRawBufferPointer, timestamp: UInt32, borrowing: Bool) throws {
        let fuHeader = payload[1]
        let start = fuHeader & 0x80 != 0, end = fuHeader & 0x40 != 0
        let fragment = payload.view(2..<payload.count)
        if start {
            dropOpenFragment()
            // The NAL header comes back from the FU indicator's F and NRI and the FU header's type.
            let header = (payload[0] & 0xE0) | (fuHeader & 0x1F)
            try assembler.beginNAL(header: header, body: fragment, timestamp: timestamp, borrowing: borrowing)
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
        assembler.appendNAL(fragment, borrowing: borrowing)
        if end {
            assembler.endNAL()
            fragmentOpen = false
        }
    }

    private func dropOpenFragment() {
        guard fragmentOpen else { return }
        fragmentOpen = false
        fragmentedUnitsDropped += 1
        if deinterleaver == nil { assembler.abortNAL() }
    }

    // MARK: Interleaved mode

    private func processInterleaved(_ payload: UnsafeRawBufferPointer, type: UInt8, timestamp: UInt32,
                                    lostBefore: Int, arrival: Int64) throws {
        // A lost packet shows up later as a gap in the decoding order numbers.
        if lostBefore > 0 { dropOpenFragment() }
        guard let deinterleaver else { return }
        var cursor = ByteCursor(payload, at: 1)
        switch type {
        case H264Payload.stapB:
            dropOpenFragment()
            // Units after the first take the next DON each (§5.7.1).
            var don = cursor.readUInt16()!
            while let size = cursor.readUInt16(), let nal = cursor.readSlice(Int(size)) {
                deinterleaver.insert(don: don, timestamp: timestamp, header: nal[0], body: nal.view(1..<nal.count), arrival: arrival)
                don &+= 1
            }
        case H264Payload.mtap16, H264Payload.mtap24:
            dropOpenFragment()
            // Each unit: DON = DONB + DOND; time = RTP timestamp + its own offset, never accumulated;
            // the size counts the NAL unit alone, after DOND and offset (§5.7.2, Figure 12).
            let base = cursor.readUInt16()!
            while let size = cursor.readUInt16(), let dond = cursor.readUInt8(),
                  let offset = type == H264Payload.mtap16 ? cursor.readUInt16().map(UInt32.init) : cursor.readUInt24(),
                  let nal = cursor.readSlice(Int(size)) {
                deinterleaver.insert(don: base &+ UInt16(dond), timestamp: timestamp &+ offset, header: nal[0],
                                     body: nal.view(1..<nal.count), arrival: arrival)
            }
        case H264Payload.fuB:
            // The first fragment, with the DON; the rest come as FU-A (§5.8).
            dropOpenFragment()
            let fuHeader = payload[1]
            fragmentDON = payload.loadUnaligned(fromByteOffset: 2, as: UInt16.self).bigEndian
            fragment.removeAll(keepingCapacity: true)
            fragment.append((payload[0] & 0xE0) | (fuHeader & 0x1F))
            fragment.append(contentsOf: payload.view(4..<payload.count))
            fragmentTimestamp = timestamp
            if fuHeader & 0x40 != 0 { insertFragment(arrival: arrival) } else { fragmentOpen = true }
        case H264Payload.fuA where payload[1] & 0x80 == 0:
            guard fragmentOpen, timestamp == fragmentTimestamp else {
                dropOpenFragment()
                strayFragments += 1
                return
            }
            fragment.append(contentsOf: payload.view(2..<payload.count))
            if payload[1] & 0x40 != 0 {
                fragmentOpen = false
                insertFragment(arrival: arrival)
            }
        default:
            // Single NAL units, STAP-A and FU-A first fragments carry no DON: nowhere to put them.
            dropOpenFragment()
            notAllowedInInterleavedMode += 1
        }
    }

    private func insertFragment(arrival: Int64) {
        fragment.withUnsafeBytes { nal in
            deinterleaver?.insert(don: fragmentDON, timestamp: fragmentTimestamp, header: nal[0],
                                  body: nal.view(1..<nal.count), arrival: arrival)
        }
    }

    /// A NAL unit leaving the de-interleaving buffer, in decoding order.
    private func deliver(_ unit: DeinterleavingBuffer.Unit) throws {
        let header = unit.nal[0], body = unit.nal.view(1..<unit.nal.count)
        if let last = lastReleasedDON, unit.absDON > last + 1 {
            decodingOrderGaps += 1
            try assembler.noteLoss(before: unit.timestamp, leading: (header, body))
        }
        lastReleasedDON = unit.absDON
        try assembler.beginNAL(header: header, body: body, timestamp: unit.timestamp)
        assembler.endNAL()
    }

    /// Lets the de-interleaving buffer give up waiting (time passes with no packet).
    public func tick(now: Int64) throws {
        try deinterleaver?.release(now: now, deliver)
    }

    /// Ends the stream: an open fragmented unit is incomplete; the de-interleaving buffer empties.
    public func flush() throws {
        dropOpenFragment()
        try deinterleaver?.flush(deliver)
        try assembler.flush()
    }

    public func restart() {
        fragmentOpen = false
        lastReleasedDON = nil
        if deinterleaver != nil {
            deinterleaver = DeinterleavingBuffer(parameters: interleavingParameters, latencyNanoseconds: latencyNanoseconds)
        }
        assembler.restart()
    }
}
