/// One run's own stop, asked from another thread (a config's source removed or changed) while the
/// process and its other runs go on; unlike a signal, it says why.
public final class StopRequest: @unchecked Sendable {
    private let lock = ConditionLock()
    private var why: String?

    public init() {}

    public func request(_ why: String) { lock.locked { self.why = self.why ?? why } }

    /// Why the run is asked to stop; nil until it is.
    public var reason: String? { lock.locked { why } }
}
