import RTPCore
import SystemIO

/// Writes access units, already in Annex-B form, to a file or standard output, up to `limit` of them.
final class AnnexBSink: AccessUnitSink {
    private let file: OutputFile?
    private let limit: Int
    private(set) var bytesWritten = 0
    private(set) var accessUnitsWritten = 0

    /// With no file, access units are counted and discarded.
    init(file: OutputFile?, limit: Int?) {
        self.file = file
        self.limit = limit ?? Int.max
    }

    var isFull: Bool { accessUnitsWritten >= limit }

    func write(_ accessUnit: AccessUnit) throws -> Bool {
        guard !isFull else { return false }
        try file?.write(accessUnit.bytes)
        bytesWritten += accessUnit.bytes.count
        accessUnitsWritten += 1
        return true
    }
}
