import Glibc

/// A directory's entries.
public enum Directory {
    /// The names in `path` (not "." and ".."), in the order the file system gives them.
    public static func entries(_ path: String) throws -> [String] {
        guard let handle = opendir(path) else { throw SystemError("opendir", path) }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// A regular file's size and last modification (Unix nanoseconds), or nil when `path` names none.
    public static func regularFile(_ path: String) -> (size: Int64, modified: Int64)? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return (Int64(status.st_size), Int64(status.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(status.st_mtim.tv_nsec))
    }

    /// Removes the file `path`.
    public static func remove(_ path: String) throws {
        guard unlink(path) == 0 else { throw SystemError("unlink", path) }
    }
}
