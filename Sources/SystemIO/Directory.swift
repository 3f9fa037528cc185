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

    /// The directory `path` is in: "." for a bare name, "/" for a name at the root.
    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Makes the names in directory `path` durable (fsync), as a new entry needs to survive a power cut.
    public static func synchronize(_ path: String) throws {
        let handle = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard handle >= 0 else { throw SystemError("open", path) }
        defer { close(handle) }
        guard fsync(handle) == 0 || errno == EINVAL else { throw SystemError("fsync", path) }
    }

    /// Makes the directories missing on the way to the one `path` is in, as `mkdir -p` would, each
    /// made durable in its parent: a recording's first file in a directory its name template names.
    public static func makeParents(of path: String) throws {
        var missing: [String] = []
        var directory = parent(of: path)
        var status = stat()
        while directory != "/" && directory != "." && stat(directory, &status) != 0 && errno == ENOENT {
            missing.append(directory)
            directory = parent(of: directory)
        }
        for directory in missing.reversed() {
            guard mkdir(directory, 0o755) == 0 || errno == EEXIST else { throw SystemError("mkdir", directory) }
            try synchronize(parent(of: directory))
        }
    }

    /// Removes the file `path`.
    public static func remove(_ path: String) throws {
        guard unlink(path) == 0 else { throw SystemError("unlink", path) }
    }
}
