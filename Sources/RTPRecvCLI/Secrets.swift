import RTPCore
import SystemIO

/// Passwords and keys never appear in output: every message and statistic is masked first.
extension Terminal {
    /// The secrets the run was given (passwords, keys), set once at the start, before any thread.
    nonisolated(unsafe) private static var secrets: [String] = []

    /// `secret` is never shown: every message and statistic is `masked`.
    static func keepSecret(_ secret: String) {
        if !secret.isEmpty && !secrets.contains(secret) { secrets.append(secret) }
    }

    /// `text` as it may be shown: the run's secrets and any URL's password and query values masked.
    static func masked(_ text: String) -> String { CredentialMask.masked(text, secrets: secrets) }

    /// Writes to standard error, masked, ignoring failure: there is nowhere left to report it.
    static func printError(_ text: String) { writeError(masked(text)) }
}
