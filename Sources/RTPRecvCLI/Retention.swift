import SystemIO

/// `--retain-hours` and `--retain-size`: the oldest recording files go, oldest first by their last
/// write, while those of a directory are older than the age or larger together than the size.
/// Only files whose names a recording's template makes are counted and removed (a segment of this
/// run or an earlier one), never one open now, nor, at the end, the last ones written.
final class Retention {
    let maxAge: Int64?
    let maxBytes: Int64?
    private(set) var filesDeleted = 0
    private(set) var bytesDeleted: Int64 = 0

    /// `--retain-hours` and `--retain-size`; nil without either.
    init?(_ options: Options) {
        guard options.retainHours != nil || options.retainBytes != nil else { return nil }
        maxAge = options.retainHours.map { Int64($0 * 3600e9) }  // bounded: at most 87,600 hours, 3.2e17 ns
        maxBytes = options.retainBytes
    }

    /// Applies the limits to each directory of `templates` (segment paths with {n} and {start}
    /// unfilled), keeping the files of `open`.
    func enforce(_ templates: [String], keeping open: Set<String>, now: Int64,
                 deleted: (_ path: String, _ reason: String) throws -> Void) throws {
        let byDirectory = Dictionary(grouping: templates.map(Self.split), by: \.directory)
        for (directory, patterns) in byDirectory.sorted(by: { $0.key < $1.key }) {
            let path = { (name: String) in directory == "." ? name : directory + "/" + name }
            var files = try Directory.entries(directory)
                .filter { name in patterns.contains { Self.matches(name, $0.name) } && !open.contains(path(name)) }
                .compactMap { name in Directory.regularFile(path(name)).map { (path: path(name), size: $0.size, modified: $0.modified) } }
                .sorted { ($0.modified, $0.path) < ($1.modified, $1.path) }
            // The files open now count toward the size, but are never removed.
            var total = files.reduce(Int64(0)) { $0 + $1.size }
                + open.filter { Self.split($0).directory == directory }.compactMap { Directory.regularFile($0)?.size }.reduce(0, +)
            while let oldest = files.first {
                let overSize = maxBytes.map { total > $0 } ?? false, overAge = maxAge.map { now &- oldest.modified > $0 } ?? false
                guard overSize || overAge else { break }
                files.removeFirst()
                try Directory.remove(oldest.path)
                total -= oldest.size
                filesDeleted += 1
                bytesDeleted += oldest.size
                try deleted(oldest.path, overSize ? "retain-size" : "retain-hours")
            }
        }
    }

    /// A path's directory ("." for none) and name.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        return (slash == path.startIndex ? "/" : String(path[..<slash]), String(path[path.index(after: slash)...]))
    }

    /// Whether `name` is one `pattern` makes: its text as it is, {n} as digits, {start} as a basic
    /// UTC time (20261201T154200Z).
    static func matches(_ name: String, _ pattern: String) -> Bool { match(name, pattern) != nil }

    /// The segment number a file `pattern` makes has in its name (0 without {n}); nil when `name` is
    /// not one it makes.
    static func match(_ name: String, _ pattern: String) -> Int? {
        var name = Substring(name), pattern = Substring(pattern)
        var n = 0
        while !pattern.isEmpty {
            if pattern.hasPrefix("{n}") {
                pattern = pattern.dropFirst(3)
                let digits = name.prefix { $0.isASCII && $0.isNumber }
                guard !digits.isEmpty else { return nil }
                // Beyond a billion, no run of ours numbered it: counted as 0.
                n = digits.count <= 9 ? Int(digits) ?? 0 : 0
                name = name.dropFirst(digits.count)
            } else if pattern.hasPrefix("{start}") {
                pattern = pattern.dropFirst(7)
                let time = name.prefix(16)
                guard time.count == 16, time.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "T" || $0 == "Z") }) else { return nil }
                name = name.dropFirst(16)
            } else {
                guard name.first == pattern.first else { return nil }
                (name, pattern) = (name.dropFirst(), pattern.dropFirst())
            }
        }
        return name.isEmpty ? n : nil
    }

    /// The first segment number free in every one of `patterns` with {n}: one past the highest a
    /// file of an earlier run has, so that a run never writes over an earlier run's segments.
    static func firstFreeNumber(_ patterns: [String]) -> Int {
        patterns.filter { $0.contains("{n}") }.map { pattern -> Int in
            let (directory, name) = split(pattern)
            guard !directory.contains("{") else { return 0 }
            return ((try? Directory.entries(directory)) ?? []).compactMap { match($0, name).map { $0 + 1 } }.max() ?? 0
        }.max() ?? 0
    }
}
