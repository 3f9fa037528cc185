import Glibc

/// A mutex with one condition variable: state shared by two threads, changed under the lock, and
/// waited for.
public final class ConditionLock {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        pthread_cond_destroy(changed)
        mutex.deallocate()
        changed.deallocate()
    }

    /// `body` run under the lock.
    public func locked<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Under the lock: lets go of it until `broadcast`, then takes it again.
    public func wait() { pthread_cond_wait(changed, mutex) }

    /// Under the lock: as `wait`, for at most `nanoseconds` (≥ 0).
    public func wait(nanoseconds: Int64) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let end = now.tv_sec &* 1_000_000_000 &+ now.tv_nsec &+ Int(nanoseconds)  // 64-bit: time_t and Int are one
        var deadline = timespec(tv_sec: end / 1_000_000_000, tv_nsec: end % 1_000_000_000)
        pthread_cond_timedwait(changed, mutex, &deadline)
    }

    /// Under the lock: wakes every waiter.
    public func broadcast() { pthread_cond_broadcast(changed) }
}
