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

/// A capture's datagrams walked on a thread of its own (records, link layers, TCP reassembly), a
/// few batches ahead of the receiving side, which takes the batches in order on its own thread.
/// A replay then takes the walk's time only once, not on top of the receiver's.
public final class WalkAhead {
    /// Packets to take in order, valid until the batch is given back.
    public struct Batch {
        public let packets: UnsafeBufferPointer<CapturedPacket>
        /// Where the walk was at the last of them, for progress.
        public let offset: Int64
        /// The memory of the copies of TCP-carried packets among them, which are reused once the
        /// batch is given back: nothing may refer to it then.
        public let copies: UnsafeRawBufferPointer
        fileprivate let storage: DatagramBatch

        /// Asks for the headers of the packet `distance` after `index`, ahead of its turn: the walk
        /// read them on the other processor.
        @inlinable
        public func prefetch(after index: Int, distance: Int = 4) {
            guard index + distance < packets.count, let bytes = packets[index + distance].bytes.baseAddress else { return }
            mapping_prefetch(bytes, 0)
        }
    }

    /// What the walk found beside the packets, once it is over.
    public struct Outcome {
        public var damage: String?
        public var skipped: [FrameSkip: Int]
        public var tcp: InterleavedCapture
    }

    private let handoff = BatchHandoff(batches: (0..<4).map { _ in DatagramBatch() })
    private var walker: WorkerThread?
    // The walk's own, until it is joined.
    private var outcome: Outcome
    private var failure: Error?
    private let capture: CaptureFile
    @usableFromInline let mapping: FileMapping
    /// Where the receiving side met what the file lost by shrinking (`isLost`).
    private var lost: CaptureFile.Next?

    /// Starts the walk; nil when no thread can be had.
    fileprivate init?(_ capture: CaptureFile, mapping: FileMapping, skipped: [FrameSkip: Int], tcp: InterleavedCapture) {
        outcome = Outcome(damage: nil, skipped: skipped, tcp: tcp)
        self.capture = capture
        self.mapping = mapping
        guard let walker = WorkerThread({ [self] in walk(capture) }) else { return nil }
        self.walker = walker
    }

    private func walk(_ capture: CaptureFile) {
        let handoff = self.handoff
        var batch = handoff.takeEmpty()
        // In locals while the walk goes: two accesses to one stored property may not overlap.
        var (skipped, tcp) = (outcome.skipped, outcome.tcp)
        defer { (outcome.skipped, outcome.tcp) = (skipped, tcp) }
        do {
            outcome.damage = try capture.forEachDatagram(skipped: &skipped, tcp: &tcp) { packet in
                guard let current = batch else { return false }
                if !current.add(packet) {
                    handoff.handOver(current)
                    batch = handoff.takeEmpty()
                    // An empty batch takes any packet: a TCP-carried one is at most 64 KiB.
                    guard let next = batch, next.add(packet) else { return false }
                }
                batch?.offset = capture.offset
                return true
            }
        } catch {
            failure = error
        }
        if let batch, batch.count > 0 { handoff.handOver(batch) }
        handoff.finishProducing()
    }

    /// Whether `packet` lies in what the file lost by shrinking after the walk passed it: those
    /// bytes read as zeros, so the receiving side stops before it and the walk ends there, truncated.
    /// One load a packet until the mapping takes a fault.
    @inlinable @inline(__always)
    public func isLost(_ packet: CapturedPacket) -> Bool {
        mapping.faults.isSet && liesInLostBytes(packet)
    }

    @usableFromInline func liesInLostBytes(_ packet: CapturedPacket) -> Bool {
        let mapped = mapping.bytes
        // A TCP-carried packet is a copy, made before anything was lost.
        guard let start = packet.bytes.baseAddress, let base = mapped.baseAddress, start >= base, start < base + mapped.count,
              start - base + packet.bytes.count > mapping.currentSize() ?? 0 else { return false }
        lost = capture.shrankUnderMapping(at: Int64(start - base))
        return true
    }

    /// The next batch, waiting for it; nil once the walk is over and every batch was taken, or once
    /// a packet was lost.
    public func next() -> Batch? {
        guard lost == nil else { return nil }
        return handoff.takeFilled().map { b in
            Batch(packets: UnsafeBufferPointer(start: b.packets, count: b.count), offset: b.offset,
                  copies: UnsafeRawBufferPointer(rebasing: b.copies[0..<b.copied]), storage: b)
        }
    }

    /// Gives a batch back, to be filled again.
    public func recycle(_ batch: Batch) {
        batch.storage.count = 0
        batch.storage.copied = 0
        handoff.giveBack(batch.storage)
    }

    /// Stops the walk where it is (when the receiving side wants no more) or waits for its end,
    /// and says what it found; rethrows what ended it.
    public func finish() throws -> Outcome {
        handoff.stopProducer()
        walker?.join()
        walker = nil
        if let failure { throw failure }
        if let lost { outcome.damage = lost.damage }
        return outcome
    }

    deinit {
        handoff.stopProducer()
        walker?.join()
    }
}

extension CaptureFile {
    /// The datagrams of `forEachDatagram`, walked on a thread of its own: for a capture mapped whole
    /// (whose records stay valid), where there is a second processor to walk on. Nil otherwise, or
    /// when no thread can be had: then call `forEachDatagram`.
    public func walkAhead(skipped: [FrameSkip: Int], tcp: InterleavedCapture) -> WalkAhead? {
        guard let mapping, WorkerThread.processors > 1 else { return nil }
        return WalkAhead(self, mapping: mapping, skipped: skipped, tcp: tcp)
    }
}
