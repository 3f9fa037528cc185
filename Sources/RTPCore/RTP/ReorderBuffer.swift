/// Restores sequence order, bounded in packets and in time.
///
/// A packet that arrives in order while nothing waits is delivered straight from the caller's buffer,
/// with no copy. Only packets that arrive ahead of a gap are copied, into fixed slots indexed by
/// extended sequence number, whose storage is allocated once on first use.
/// A gap is declared lost when the packet bound would be exceeded, or when the oldest waiting packet has
/// waited `latency` on the packet clock (capture timestamps in replay), or at flush.
///
/// The first packet of a stream need not be its earliest: until the first release (priming, at most
/// `primingPackets` packets or the latency), every packet waits, and the earliest one found starts
/// the sequence.
public final class ReorderBuffer {
    public struct Configuration: Sendable {
        public var packets: Int
        public var latencyNanoseconds: Int64
        public var maxPacketBytes: Int

        public init(packets: Int = 512, latencyNanoseconds: Int64 = 500_000_000, maxPacketBytes: Int = 65536) {
            self.packets = packets
            self.latencyNanoseconds = latencyNanoseconds
            self.maxPacketBytes = maxPacketBytes
        }
    }

    public enum Arrival: Equatable {
        /// In order and nothing waits: process the packet now, then call `markDelivered`.
        case deliverNow
        case buffered
        case duplicate
        /// Older than a gap already declared lost.
        case late
        /// Would exceed the packet bound: `pop(now:, through:)` what lies before `limit`, then retry.
        case needsRoom(limit: Int64)
        case tooLarge
    }

    public struct Released {
        public var extendedSequenceNumber: Int64
        public var timestamp: UInt32
        public var marker: Bool
        public var arrival: Int64
        /// Valid until the next call on the buffer.
        public var payload: UnsafeRawBufferPointer
        /// The header extension element kept with it (`RTPStream`'s), as valid.
        public var headerExtension: UnsafeRawBufferPointer
    }

    private struct Slot {
        var extended: Int64 = -1
        var timestamp: UInt32 = 0
        var marker = false
        var length = 0
        var extensionLength = 0
        var arrival: Int64 = 0
    }

    public let configuration: Configuration
    private var slots: [Slot]
    private var storage: UnsafeMutableRawPointer?
    /// The sequence numbers delivered last, by their low bits (a power of two of them, so that a
    /// mask finds the place): tells a duplicate from a packet that came too late. Written for every
    /// packet, so a buffer of its own rather than an array and its uniqueness check.
    private let delivered: UnsafeMutablePointer<Int64>
    private let deliveredMask: Int64
    /// The extended sequence number expected next.
    public private(set) var next: Int64?
    public private(set) var count = 0
    private var stallSince: Int64 = 0
    private var stallKnown = false
    private var priming = true
    private var highestStored: Int64 = -1
    /// Enough to find a stream's earliest packet among heavily reordered first ones, while the first
    /// frames of a live stream wait milliseconds, not the whole latency.
    public static let primingPackets = 64

    public init(_ configuration: Configuration) {
        precondition(configuration.packets > 0 && configuration.maxPacketBytes > 0)
        self.configuration = configuration
        slots = Array(repeating: Slot(), count: configuration.packets)
        let remembered = max(1024, configuration.packets * 2)
        let power = remembered.nonzeroBitCount == 1 ? remembered : 1 << (Int.bitWidth - remembered.leadingZeroBitCount)
        delivered = .allocate(capacity: power)
        delivered.initialize(repeating: -1, count: power)
        deliveredMask = Int64(power - 1)
    }

    deinit {
        storage?.deallocate()
        delivered.deallocate()
    }

    @inline(__always) private func slotIndex(_ extended: Int64) -> Int {
        Int(extended % Int64(slots.count))
    }

    /// `headerExtension`: what of the packet's header extension goes with its payload.
    public func arrive(extended: Int64, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer,
                       headerExtension: UnsafeRawBufferPointer = .empty, arrival: Int64) -> Arrival {
        let capacity = Int64(slots.count)
        guard var next else {
            self.next = extended
            return store(extended: extended, timestamp: timestamp, marker: marker, payload: payload,
                         headerExtension: headerExtension, arrival: arrival)
        }
        if priming && extended < next && highestStored - extended < capacity {
            // Earlier than anything seen, and nothing released yet: it may start the sequence.
            next = extended
            self.next = extended
        }
        if extended < next || extended < 0 {
            return delivered[Int(extended & deliveredMask)] == extended ? .duplicate : .late
        }
        if priming {
            if extended - next >= capacity { return .needsRoom(limit: extended - capacity + 1) }
        } else if count == 0 {
            if extended == next { return .deliverNow }
            // A gap wider than the bound can never fill: declare it lost at once.
            if extended - next >= capacity {
                self.next = extended
                return .deliverNow
            }
        } else if extended - next >= capacity {
            return .needsRoom(limit: extended - capacity + 1)
        }
        return store(extended: extended, timestamp: timestamp, marker: marker, payload: payload,
                         headerExtension: headerExtension, arrival: arrival)
    }

    /// The payload, then the header extension element, in the packet's slot: together no larger
    /// than the packet they came in.
    private func store(extended: Int64, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer,
                       headerExtension: UnsafeRawBufferPointer, arrival: Int64) -> Arrival {
        let index = slotIndex(extended)
        if slots[index].extended == extended { return .duplicate }
        guard payload.count <= configuration.maxPacketBytes - headerExtension.count else { return .tooLarge }
        if storage == nil {
            storage = UnsafeMutableRawPointer.allocate(
                byteCount: slots.count * configuration.maxPacketBytes, alignment: 16)
        }
        let destination = storage! + index * configuration.maxPacketBytes
        if let base = payload.baseAddress, payload.count > 0 {
            destination.copyMemory(from: base, byteCount: payload.count)
        }
        if let base = headerExtension.baseAddress, headerExtension.count > 0 {
            (destination + payload.count).copyMemory(from: base, byteCount: headerExtension.count)
        }
        slots[index] = Slot(extended: extended, timestamp: timestamp, marker: marker, length: payload.count,
                            extensionLength: headerExtension.count, arrival: arrival)
        if count == 0 {
            stallSince = arrival
            stallKnown = true
        }
        count += 1
        highestStored = max(highestStored, extended)
        return .buffered
    }

    /// Whether packet `extended` came: delivered lately, or waiting here.
    public func holds(_ extended: Int64) -> Bool {
        if delivered[Int(extended & deliveredMask)] == extended { return true }  // bounded: masked to the ring
        return extended >= 0 && slots[slotIndex(extended)].extended == extended
    }

    public func markDelivered(_ extended: Int64) {
        next = extended + 1
        delivered[Int(extended & deliveredMask)] = extended
    }

    /// The packet path's usual case, decided inline: nothing waits and `extended` is the one expected
    /// next, so it is delivered now (and marked so). Otherwise false: ask `arrive`.
    @inline(__always)
    public func deliversInOrder(_ extended: Int64) -> Bool {
        guard count == 0, !priming, next == extended, extended >= 0 else { return false }
        markDelivered(extended)
        return true
    }

    /// The next packet in sequence order, if it may leave now. A gap before it is skipped when
    /// `limit` lies beyond it, when the stall has lasted the latency, or when `flushing`.
    public func pop(now: Int64, through limit: Int64 = Int64.min, flushing: Bool = false) -> Released? {
        guard count > 0, var head = next else { return nil }
        if priming {
            guard flushing || head < limit || count >= Self.primingPackets
                || now &- stallSince >= configuration.latencyNanoseconds else { return nil }
            priming = false
        }
        var index = slotIndex(head)
        if slots[index].extended != head {
            if !stallKnown {
                stallSince = slots.lazy.filter { $0.extended >= 0 }.map(\.arrival).min() ?? now
                stallKnown = true
            }
            guard flushing || head < limit || now &- stallSince >= configuration.latencyNanoseconds else {
                return nil
            }
            repeat {
                head += 1
                index = slotIndex(head)
            } while slots[index].extended != head
        }
        let slot = slots[index]
        slots[index].extended = -1
        count -= 1
        stallKnown = false
        markDelivered(head)
        let start = storage! + index * configuration.maxPacketBytes
        return Released(
            extendedSequenceNumber: head, timestamp: slot.timestamp, marker: slot.marker, arrival: slot.arrival,
            payload: UnsafeRawBufferPointer(start: start, count: slot.length),
            headerExtension: UnsafeRawBufferPointer(start: start + slot.length, count: slot.extensionLength))
    }

    /// Forgets every waiting packet and the expected sequence number (after a source restart).
    public func reset() {
        for i in slots.indices where slots[i].extended >= 0 { slots[i].extended = -1 }
        count = 0
        next = nil
        stallKnown = false
        priming = true
        highestStored = -1
    }
}
