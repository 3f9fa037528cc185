import Glibc

/// Which file a path names, to tell whether two paths are one file: its device and inode when it is
/// a regular file, else the absolute path it will have once made (its directory's symbolic links
/// resolved). Devices, pipes and sockets have none: many outputs may share /dev/null.
public enum FileIdentity: Hashable, Sendable {
    case file(device: UInt64, inode: UInt64)
    case path(String)

    public init?(_ path: String) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFREG else { return nil }
            self = .file(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
            return
        }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard let resolved = realpath(directory, nil) else {
            self = .path(path)
            return
        }
        defer { free(resolved) }
        let base = String(cString: resolved)
        self = .path((base.hasSuffix("/") ? base : base + "/") + name)
    }
}
