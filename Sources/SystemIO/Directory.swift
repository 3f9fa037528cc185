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
}
