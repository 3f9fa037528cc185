import Glibc

/// The descriptors a process may hold open.
public enum OpenFileLimit {
    /// Raises the soft limit to the hard one: a recorder of many streams holds a socket a port and
    /// a file or three a stream, past the 1024 a shell gives by default. Returns the limit now.
    @discardableResult
    public static func raise() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(limit.rlim_cur)
    }
}
