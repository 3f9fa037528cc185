import Glibc

/// Two threads taking turns with a fixed set of reusable batches: a producer fills empty ones and
/// hands them over; the consumer takes them in the order they were filled and gives them back
/// empty. Either side may end it: the producer when it has no more, the consumer when it wants no
/// more (the producer then gets no empty batch).
///
/// Batches go over whole, so the lock is taken twice a batch, not once an item.
public final class BatchHandoff<Batch: AnyObject> {
    private let lock = ConditionLock()
    private var empty: [Batch]
    private var filled: [Batch] = []
    private var filledHead = 0
    private var producing = true
    private var consuming = true

    public init(batches: [Batch]) {
        empty = batches
        filled.reserveCapacity(batches.count)
    }

    /// Producer: an empty batch to fill, waiting for one; nil once the consumer wants no more.
    public func takeEmpty() -> Batch? {
        lock.locked {
            while consuming && empty.isEmpty { lock.wait() }
            return consuming ? empty.removeLast() : nil
        }
    }

    /// Producer: a filled batch, for the consumer.
    public func handOver(_ batch: Batch) {
        lock.locked {
            filled.append(batch)
            lock.broadcast()
        }
    }

    /// Producer: there are no more batches.
    public func finishProducing() {
        lock.locked {
            producing = false
            lock.broadcast()
        }
    }

    /// Consumer: the next filled batch, waiting for it; nil once the producer has finished and
    /// every batch it filled was taken.
    public func takeFilled() -> Batch? {
        lock.locked {
            while filledHead == filled.count && producing { lock.wait() }
            guard filledHead < filled.count else { return nil }
            let batch = filled[filledHead]
            filledHead += 1
            if filledHead == filled.count {
                filled.removeAll(keepingCapacity: true)
                filledHead = 0
            }
            return batch
        }
    }

    /// Consumer: a batch taken and used, to be filled again.
    public func giveBack(_ batch: Batch) {
        lock.locked {
            empty.append(batch)
            lock.broadcast()
        }
    }

    /// Consumer: wants no more; the producer stops at its next batch.
    public func stopProducer() {
        lock.locked {
            consuming = false
            lock.broadcast()
        }
    }
}

/// A thread running `body`, joined once.
public final class WorkerThread {
    private var thread = pthread_t()
    private var joined = false

    /// Nil when no thread can be made (the caller does the work itself). The thread's messages
    /// begin as the caller's do (a config's source's name).
    public init?(_ body: @escaping () -> Void) {
        final class Box {
            let body: () -> Void
            init(_ body: @escaping () -> Void) { self.body = body }
        }
        let prefix = Terminal.messagePrefix
        let context = Unmanaged.passRetained(Box {
            if let prefix { Terminal.prefixMessages(prefix) }
            body()
        })
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context.toOpaque())
        guard started == 0 else {
            context.release()
            joined = true
            return nil
        }
    }

    /// Waits for `body` to return.
    public func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }

    deinit { join() }

    /// Processors online: a second thread pays only where there are two.
    public static var processors: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}
