/// One run's own stop, asked from another thread (a config's source removed or changed) while the
/// process and its other runs go on; unlike a signal, it says why.
public final class StopRequest: @unchecked Sendable {
    private let lock = ConditionLock()
    private var why: String?
    private var whyAtKeyframe: String?

    public init() {}

    public func request(_ why: String) { lock.locked { self.why = self.why ?? why } }

    /// Asked to stop before its next keyframe, so that its file ends with a whole group of pictures
    /// and the next writer's begins at that keyframe.
    public func requestAtKeyframe(_ why: String) { lock.locked { whyAtKeyframe = whyAtKeyframe ?? why } }

    /// Why the run is asked to stop; nil until it is.
    public var reason: String? { lock.locked { why } }

    /// Why the run is asked to stop at its next keyframe; nil until it is.
    public var reasonAtKeyframe: String? { lock.locked { whyAtKeyframe } }
}
