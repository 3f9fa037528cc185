/// What walking a capture in place finds at a position of the window.
enum RecordStep {
    /// A record, and where the next block or record begins.
    case record(CaptureFile.Record, next: Int)
    /// The window ends inside the block or record at `at`, which needs `bytes`: read more, or the
    /// file is cut short (`message` says how).
    case needsMore(at: Int, bytes: Int, message: String)
    case failed(at: Int, message: String)
}
