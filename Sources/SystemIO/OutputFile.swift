import CMappingGuard
import Glibc

/// A file, or standard output for "-", written with plain `write(2)`.
///
/// Pieces that lie in memory which outlives the writes (`gather(within:)`: a capture mapped whole)
/// may be gathered: they are written later, up to 1024 at a time, and the rest of a frame's bytes
/// (start codes, parameter sets) are copied aside meanwhile. A replay then makes a few hundred
/// writev calls instead of one a frame. Anything else written to the file flushes them first.
public final class OutputFile {
    public private(set) var path: String
    private var descriptor: Int32
    private let owned: Bool
    /// Made at its path by the first bytes written (`createdOnFirstWrite`); `descriptor` is -1 until then.
    private var awaitsCreation = false
    /// writev's limit on Linux (UIO_MAXIOV); Glibc does not export IOV_MAX to Swift.
    private static let maxVectors = 1024
    /// The vectors of the write being made, or, gathering, of the writes waiting.
    private let vectors = UnsafeMutablePointer<iovec>.allocate(capacity: maxVectors)
    private var vectorCount = 0
    /// Gathering: the memory whose bytes may wait, and the copies of those that may not.
    private var stable: UnsafeRawBufferPointer?
    private var staging: UnsafeMutableRawBufferPointer?
    private var stagingUsed = 0
    private static let stagingBytes = 256 << 10
    /// A pipe to a player holds 64 KiB by default, less than a 1080p keyframe, so each such write
    /// would wait on the reader; 1 MiB (fs.pipe-max-size's default) lets it take whole frames.
    private static let pipeBytes: Int32 = 1 << 20
    private static let F_SETPIPE_SZ: Int32 = 1031

    /// `appending`: what the file holds is kept, and writes go after it (a reopen after SIGHUP).
    /// `createdOnFirstWrite`: a regular file (or none yet) at `path` is made, or emptied, only when
    /// the first bytes are written, so that a process killed before leaves nothing there that no
    /// player opens; that it can be is tried now. A pipe or a device is opened now.
    public init(path: String, appending: Bool = false, createdOnFirstWrite: Bool = false) throws {
        self.path = path
        if path == "-" {
            descriptor = STDOUT_FILENO
            owned = false
        } else if createdOnFirstWrite && !appending, try Self.canBeMadeLater(path) {
            (descriptor, owned, awaitsCreation) = (-1, true, true)
            return
        } else {
            let mode = appending ? O_APPEND : O_TRUNC
            descriptor = try retryingOnEINTR("open", path) { open(path, O_WRONLY | O_CREAT | mode | O_CLOEXEC, 0o644) }
            owned = true
        }
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFIFO {
            _ = fcntl(descriptor, Self.F_SETPIPE_SZ, Self.pipeBytes)  // best effort: a smaller pipe still works
        }
    }

    deinit {
        // An output dropped without close (a run that failed) still gets what it was given.
        if vectorCount > 0 && !closed { try? flush() }
        if owned && !closed && !awaitsCreation { _ = Glibc.close(descriptor) }
        vectors.deallocate()
        staging?.deallocate()
    }

    public var displayName: String { path == "-" ? "standard output" : path }

    /// Whether `path` names a regular file or nothing, and a file can be written there: tried by
    /// opening it, without emptying it, or by making it and removing it again.
    private static func canBeMadeLater(_ path: String) throws -> Bool {
        var info = stat()
        let exists = stat(path, &info) == 0
        guard !exists || info.st_mode & S_IFMT == S_IFREG else { return false }
        let flags = O_WRONLY | O_CLOEXEC | (exists ? 0 : O_CREAT | O_EXCL)
        _ = Glibc.close(try retryingOnEINTR("open", path) { open(path, flags, 0o644) })
        if !exists { unlink(path) }
        return true
    }

    /// Makes the file of `createdOnFirstWrite`, as its first bytes are to be written.
    private func create() throws {
        guard awaitsCreation else { return }
        descriptor = try retryingOnEINTR("open", path) { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        awaitsCreation = false
    }

    /// From now on, pieces of `write(_:)` that lie in `memory` wait until 1024 have come, or
    /// until `flush()`: `memory` must stay as it is until then.
    public func gather(within memory: UnsafeRawBufferPointer) {
        stable = memory
        if staging == nil { staging = .allocate(byteCount: Self.stagingBytes, alignment: 16) }
    }

    /// Writes all of `bytes`, across short writes.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try flush()
        if !bytes.isEmpty { try create() }
        var offset = 0
        while offset < bytes.count {
            let n = try retryingOnEINTR("write", displayName) {
                Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            }
            offset += n
        }
    }

    /// Writes the pieces in order with `writev`, across short writes; gathering, later.
    public func write(_ pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>) throws {
        if let stable, let staging {
            try gather(pieces, stable: stable, staging: staging)
            return
        }
        for piece in pieces where piece.count > 0 {
            if vectorCount == Self.maxVectors { try flush() }
            vectors[vectorCount] = iovec(iov_base: UnsafeMutableRawPointer(mutating: piece.baseAddress!), iov_len: piece.count)
            vectorCount += 1
        }
        try flush()
    }

    private func gather(_ pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>, stable: UnsafeRawBufferPointer,
                        staging: UnsafeMutableRawBufferPointer) throws {
        let low = stable.baseAddress!, high = low + stable.count
        // The counts in locals, stored back before a flush and at the end: a few dozen pieces a frame.
        var n = vectorCount, used = stagingUsed
        for piece in pieces where piece.count > 0 {
            let base = piece.baseAddress!, length = piece.count
            let waits = base >= low && base + length <= high
            if n == Self.maxVectors || (!waits && used + length > staging.count) {
                (vectorCount, stagingUsed) = (n, used)
                try flush()
                (n, used) = (0, 0)
            }
            if waits {
                vectors[n] = iovec(iov_base: UnsafeMutableRawPointer(mutating: base), iov_len: length)
            } else if length <= staging.count {
                let copy = staging.baseAddress! + used
                copy.copyMemory(from: base, byteCount: length)
                used += length
                vectors[n] = iovec(iov_base: copy, iov_len: length)
            } else {
                // Larger than the staging buffer: written now, as it is.
                vectors[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: base), iov_len: length)
                vectorCount = 1
                try flush()
                continue
            }
            n += 1
        }
        (vectorCount, stagingUsed) = (n, used)
    }

    /// Writes what waits.
    public func flush() throws {
        var index = 0
        defer {
            vectorCount = 0
            stagingUsed = 0
        }
        var faultedIn = false
        if vectorCount > 0 { try create() }
        while index < vectorCount {
            var written: Int
            do {
                written = try retryingOnEINTR("write", displayName) {
                    writev(descriptor, vectors + index, Int32(vectorCount - index))
                }
            } catch let error as SystemError where error.errno == EFAULT && !faultedIn {
                // Bytes of a capture file that shrank under its mapping: the kernel's copy cannot take
                // the fault the guard turns into zero pages, so take it here (for what lies in such a
                // mapping; the rest is memory of rtprecv's own), and write again, once.
                for i in index..<vectorCount where mapping_guard_fault_in(vectors[i].iov_base, vectors[i].iov_len) != 0 {
                    faultedIn = true
                }
                guard faultedIn else { throw error }
                continue
            }
            faultedIn = false
            while index < vectorCount && written >= vectors[index].iov_len {
                written -= vectors[index].iov_len
                index += 1
            }
            if written > 0 {
                vectors[index].iov_base += written
                vectors[index].iov_len -= written
            }
        }
    }

    /// A regular file, which can be rewritten in place; not a pipe or a terminal.
    public var isSeekable: Bool {
        if awaitsCreation { return true }
        var info = stat()
        return fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Overwrites bytes at `offset` from the start, leaving the end of the file where it is.
    public func write(_ bytes: [UInt8], at offset: Int) throws {
        try flush()
        try create()
        try bytes.withUnsafeBytes { b in
            var done = 0
            while done < b.count {
                done += try retryingOnEINTR("pwrite", displayName) {
                    pwrite(descriptor, b.baseAddress! + done, b.count - done, off_t(offset + done))
                }
            }
        }
    }

    public func write(_ string: String) throws {
        var s = string
        try s.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }

    private var closed = false

    /// Whether the path still names this open file: false once it was moved away or removed (log
    /// rotation), or replaced by another file; true for one not made yet.
    public var isAtItsPath: Bool {
        guard owned, !awaitsCreation else { return true }
        var atPath = stat(), open = stat()
        guard stat(path, &atPath) == 0, fstat(descriptor, &open) == 0 else { return false }
        return atPath.st_dev == open.st_dev && atPath.st_ino == open.st_ino
    }

    /// Gives the open file another name (its writes go on): for a name known only once the stream is.
    public func rename(to newPath: String) throws {
        guard owned, newPath != path else { return }
        if awaitsCreation { return path = newPath }
        guard Glibc.rename(path, newPath) == 0 else { throw SystemError("rename", "\(path) to \(newPath)") }
        path = newPath
    }

    /// Makes what was written durable (fsync), and with `directory`, the file's name in its
    /// directory too, as a new file needs to survive a power cut. Not for standard output.
    public func synchronize(directory: Bool) throws {
        try flush()
        guard path != "-", !awaitsCreation else { return }
        guard fsync(descriptor) == 0 || errno == EINVAL else { throw SystemError("fsync", displayName) }
        if directory { try Directory.synchronize(Directory.parent(of: path)) }
    }

    /// Closes the file and reports what the kernel reports then: some file systems only say
    /// "disk full" at close.
    public func close() throws {
        try flush()
        guard owned, !closed else { return }
        closed = true
        if awaitsCreation { return }
        if Glibc.close(descriptor) != 0 && errno != EINTR { throw SystemError("close", displayName) }
    }
}

public enum Terminal {
    public static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// Writes `text` to standard error as it is, ignoring failure: there is nowhere left to report
    /// it. (Messages go through `printError`, which masks secrets first.)
    public static func writeError(_ text: String) {
        var s = prefixed(text)
        s.withUTF8 { buffer in _ = Glibc.write(STDERR_FILENO, buffer.baseAddress, buffer.count) }
    }

    public static func readFile(_ path: String) throws -> String {
        String(decoding: try readBytes(path), as: UTF8.self)
    }

    /// A file's bytes as they are (at most 16 MiB), for parsers that say where the text is not UTF-8.
    public static func readBytes(_ path: String) throws -> [UInt8] {
        let fd = try retryingOnEINTR("open", path) { open(path, O_RDONLY | O_CLOEXEC) }
        defer { _ = Glibc.close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try chunk.withUnsafeMutableBytes { b in
                try retryingOnEINTR("read", path) { read(fd, b.baseAddress, b.count) }
            }
            if n == 0 { break }
            result.append(contentsOf: chunk[0..<n])
            if result.count > 16 << 20 { throw SystemError("read", path, errno: EFBIG) }
        }
        return result
    }

    /// Monotonic clock, nanoseconds.
    public static func monotonicNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// An environment variable's value, if set.
    public static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// This machine's name, as gethostname(2) gives it.
    public static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Removes `path` if it is a regular file with nothing in it (an output nothing was written to).
    public static func removeIfEmpty(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size == 0 else { return }
        unlink(path)
    }

    /// Wall clock (Unix time), nanoseconds.
    public static func wallclockNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Sleeps for `nanoseconds`, through signals.
    public static func sleep(nanoseconds: Int64) {
        var remaining = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        while true {
            var left = timespec()
            guard nanosleep(&remaining, &left) != 0, errno == EINTR else { return }
            remaining = left
        }
    }

    /// Writing to a closed pipe should fail with EPIPE, not kill the process.
    public static func ignoreSIGPIPE() { signal(SIGPIPE, SIG_IGN) }
}
