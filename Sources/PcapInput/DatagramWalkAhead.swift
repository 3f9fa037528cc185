import CMappingGuard
import RTPCore
import SystemIO

/// Packets the walk found, handed to the receiving side together. Those carried in TCP are copied
/// into the batch: the reassembly buffers they came from are reused as the walk goes on.
final class DatagramBatch {
    static let packetCapacity = 2048
    /// A TCP-carried packet is at most 64 KiB (its length field's 16 bits).
    static let copyCapacity = 1 << 20

    let packets = UnsafeMutablePointer<CapturedPacket>.allocate(capacity: packetCapacity)
    var count = 0
    let copies = UnsafeMutableRawBufferPointer.allocate(byteCount: copyCapacity, alignment: 16)
    var copied = 0
    /// Where the walk was at the batch's last packet, for progress.
    var offset: Int64 = 0

    deinit {
        packets.deallocate()
        copies.deallocate()
    }

    var isFull: Bool { count == Self.packetCapacity }

    /// Adds `packet`; false when it does not fit (the batch goes over first).
    func add(_ packet: CapturedPacket) -> Bool {
        guard count < Self.packetCapacity else { return false }
        var packet = packet
        if packet.channel != nil {
            guard copied + packet.bytes.count <= copies.count else { return false }
            let copy = UnsafeMutableRawBufferPointer(rebasing: copies[copied..<copied + packet.bytes.count])
            copy.copyMemory(from: packet.bytes)
            packet.bytes = UnsafeRawBufferPointer(copy)
            copied += packet.bytes.count
        }
        (packets + count).initialize(to: packet)
        count += 1
        return true
    }
}

extension CaptureFile {
    /// Whether `forEachDatagramWalkingAhead` walks on a thread of its own: the capture is mapped
    /// whole (its records stay valid), and there is a second processor to walk on.
    public var walksAhead: Bool { mappedBytes != nil && WorkerThread.processors > 1 }

    /// What `forEachDatagram` does, with the walk (records, link layers, TCP reassembly) on a
    /// thread of its own when `walksAhead`, a few batches of packets ahead of `body`, which runs on
    /// the calling thread, in order; a replay then takes the walk's time only once, not on top of
    /// the receiver's. `offset` is where the walk was at the packet, for progress.
    /// `releasing(memory)` is called, on the calling thread, before memory that packets handed on
    /// view into is reused: a batch's copies of TCP-carried packets, or a TCP stream's buffer.
    public func forEachDatagramWalkingAhead(skipped: inout [FrameSkip: Int], tcp: inout InterleavedCapture,
                                            releasing: (UnsafeRawBufferPointer) -> Void,
                                            _ body: (CapturedPacket, _ offset: Int64) throws -> Bool) throws -> String? {
        let handoff = BatchHandoff(batches: (0..<4).map { _ in DatagramBatch() })
        // The walk's state goes to the thread and comes back at the end.
        final class Walk {
            var skipped: [FrameSkip: Int]
            var tcp: InterleavedCapture
            var damage: String?
            var failure: Error?
            init(skipped: [FrameSkip: Int], tcp: InterleavedCapture) {
                self.skipped = skipped
                self.tcp = tcp
            }
        }
        let walk = Walk(skipped: skipped, tcp: tcp)
        guard walksAhead, let walker = WorkerThread({ [self] in
            var batch = handoff.takeEmpty()
            do {
                walk.damage = try forEachDatagram(skipped: &walk.skipped, tcp: &walk.tcp) { packet in
                    guard let current = batch else { return false }
                    if !current.add(packet) {
                        handoff.handOver(current)
                        batch = handoff.takeEmpty()
                        // An empty batch takes any packet: a TCP-carried one is at most 64 KiB.
                        guard let next = batch, next.add(packet) else { return false }
                    }
                    batch?.offset = offset
                    return true
                }
            } catch {
                walk.failure = error
            }
            if let batch, batch.count > 0 { handoff.handOver(batch) }
            handoff.finishProducing()
        }) else {
            return try forEachDatagram(skipped: &skipped, tcp: &tcp, releasing: releasing) { try body($0, offset) }
        }
        defer {
            handoff.stopProducer()
            walker.join()
            skipped = walk.skipped
            tcp = walk.tcp
        }
        while let batch = handoff.takeFilled() {
            var goesOn = true
            for i in 0..<batch.count where goesOn {
                // The walk read these bytes on its own processor: ask for a packet's headers a few
                // packets before it is taken.
                if i + 4 < batch.count, let ahead = batch.packets[i + 4].bytes.baseAddress { mapping_prefetch(ahead, 0) }
                goesOn = try body(batch.packets[i], batch.offset)
            }
            if batch.copied > 0 { releasing(UnsafeRawBufferPointer(rebasing: batch.copies[0..<batch.copied])) }
            batch.count = 0
            batch.copied = 0
            handoff.giveBack(batch)
            guard goesOn else { return nil }
        }
        walker.join()
        if let failure = walk.failure { throw failure }
        return walk.damage
    }
}
