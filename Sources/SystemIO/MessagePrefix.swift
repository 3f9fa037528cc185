import Glibc

/// A thread's messages can say whose they are: in a process of many sources, each source's thread
/// begins every line it writes to standard error with its name.
extension Terminal {
    private final class Prefix {
        let text: String
        init(_ text: String) { self.text = text }
    }

    private static let prefixKey: pthread_key_t = {
        var key = pthread_key_t()
        // The thread's prefix goes with it.
        pthread_key_create(&key) { Unmanaged<AnyObject>.fromOpaque($0!).release() }
        return key
    }()

    /// The calling thread's lines begin with `prefix` from now on ("[door] "); set once a thread.
    /// A `WorkerThread` begins with the prefix of the thread that made it.
    public static func prefixMessages(_ prefix: String) {
        pthread_setspecific(prefixKey, Unmanaged.passRetained(Prefix(prefix)).toOpaque())
    }

    /// The calling thread's prefix, if it has one.
    public static var messagePrefix: String? {
        pthread_getspecific(prefixKey).map { Unmanaged<Prefix>.fromOpaque($0).takeUnretainedValue().text }
    }

    /// `text` with the calling thread's prefix at the start of each line.
    static func prefixed(_ text: String) -> String {
        guard let prefix = messagePrefix, !text.isEmpty else { return text }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let endsLine = lines.last == ""
        if endsLine { lines.removeLast() }
        return lines.map { prefix + $0 }.joined(separator: "\n") + (endsLine ? "\n" : "")
    }
}
