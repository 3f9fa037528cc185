import RTPCore
import SystemIO

/// Writes access units, already in Annex-B form, to a file or standard output.
final class AnnexBSink: AccessUnitSink {
    private let file: OutputFile?
    private(set) var bytesWritten = 0

    /// With no file, access units are counted and discarded.
    init(file: OutputFile?) {
        self.file = file
    }

    func write(_ accessUnit: AccessUnit) throws {
        try file?.write(accessUnit.bytes)
        bytesWritten += accessUnit.bytes.count
    }
}
