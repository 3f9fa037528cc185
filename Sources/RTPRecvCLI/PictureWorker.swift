import FFmpeg
import RTPCore
import SystemIO

/// The report's pictures: keyframes decoded and encoded as JPEG on a thread of their own while
/// the run goes on, so that a replay hardly waits for them. A keyframe withdrawn before its turn
/// (the report thinned its pictures) is never decoded.
final class PictureWorker {
    private let queue: Queue
    private var thread: WorkerThread?

    /// The thread starts at once and loads libavcodec (its first use costs ~15 ms) while the run
    /// sets up and begins.
    init(width: Int) {
        queue = Queue(width: width)
        thread = WorkerThread { [queue] in
            try? VideoDecoder.loadLibraries()
            queue.work()
        }
    }

    deinit {
        queue.end()
        thread?.join()
    }

    /// A keyframe (an access unit that needs no other) to picture, known by `id`.
    func submit(id: Int, codec: VideoCodec, keyframe: [UInt8]) {
        queue.add(Job(id: id, codec: codec, keyframe: keyframe))
    }

    /// The picture of `id` is not wanted: not decoded if not yet, forgotten if it was.
    func withdraw(id: Int) { queue.withdraw(id) }

    /// Waits for the pictures submitted and not withdrawn; those that would not decode are missing.
    /// The caller helps with those still to come, on a core the run no longer needs (or alone, if no
    /// thread could be made).
    func finish() -> [Int: [UInt8]] {
        queue.end()
        queue.work()
        thread?.join()
        return queue.pictures
    }

    private struct Job {
        var id: Int
        var codec: VideoCodec
        var keyframe: [UInt8]
    }

    /// What the run and the thread share, under one lock; the thread holds it, not the worker.
    private final class Queue {
        private let width: Int
        private let lock = ConditionLock()
        private var jobs: [Job] = []
        private var wanted: Set<Int> = []
        private var done: [Int: [UInt8]] = [:]
        private var ended = false

        init(width: Int) {
            self.width = width
        }

        func add(_ job: Job) {
            lock.locked {
                jobs.append(job)
                wanted.insert(job.id)
                lock.broadcast()
            }
        }

        func withdraw(_ id: Int) {
            lock.locked {
                jobs.removeAll { $0.id == id }
                wanted.remove(id)
                done[id] = nil
            }
        }

        func end() {
            lock.locked {
                ended = true
                lock.broadcast()
            }
        }

        var pictures: [Int: [UInt8]] { lock.locked { done } }

        /// Pictures the jobs until there are none and the queue has ended; on several threads at
        /// once, each with decoders of its own.
        func work() {
            var thumbnailers: [VideoCodec: Thumbnailer] = [:]
            while let job: Job = lock.locked({
                while jobs.isEmpty && !ended { lock.wait() }
                return jobs.isEmpty ? nil : jobs.removeFirst()
            }) {
                if thumbnailers[job.codec] == nil {
                    thumbnailers[job.codec] = try? Thumbnailer(decoderName: job.codec.decoderName, width: width)
                }
                let jpeg = job.keyframe.withUnsafeBytes { (try? thumbnailers[job.codec]?.jpeg(of: $0)) ?? nil }
                // Withdrawn while it was decoded: not kept.
                lock.locked { if wanted.contains(job.id) { done[job.id] = jpeg } }
            }
        }
    }
}
