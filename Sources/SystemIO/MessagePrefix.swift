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
        pthread_key_create(&key, nil)
        return key
    }()

    /// The calling thread's lines begin with `prefix` from now on ("[door] "); set once a thread.
    public static func prefixMessages(_ prefix: String) {
        pthread_setspecific(prefixKey, Unmanaged.passRetained(Prefix(prefix)).toOpaque())
    }

    /// `text` with the calling thread's prefix at the start of each line.
    static func prefixed(_ text: String) -> String {
        guard let pointer = pthread_getspecific(prefixKey), !text.isEmpty else { return text }
        let prefix = Unmanaged<Prefix>.fromOpaque(pointer).takeUnretainedValue().text
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let endsLine = lines.last == ""
        if endsLine { lines.removeLast() }
        return lines.map { prefix + $0 }.joined(separator: "\n") + (endsLine ? "\n" : "")
    }
}
