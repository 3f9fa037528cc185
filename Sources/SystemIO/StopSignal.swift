import Glibc

/// The signal that asked the process to stop; written only by the handler.
@usableFromInline nonisolated(unsafe) var receivedStopSignal: Int32 = 0

/// SIGINT and SIGTERM ask for a clean stop; a second one ends the process at once.
public enum StopSignal {
    public static func install() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            if receivedStopSignal != 0 { _exit(128 + signal) }
            receivedStopSignal = signal
        }
        // No SA_RESTART: a blocked recvmmsg(2) returns EINTR, so the loop notices at once.
        action.sa_flags = 0
        sigemptyset(&action.sa_mask)
        guard sigaction(SIGINT, &action, nil) == 0 else { throw SystemError("sigaction", "SIGINT") }
        guard sigaction(SIGTERM, &action, nil) == 0 else { throw SystemError("sigaction", "SIGTERM") }
    }

    /// The signal number received, or 0.
    /// Inlinable: a replay asks after every packet.
    @inlinable public static var received: Int32 { receivedStopSignal }

    public static var name: String { received == SIGTERM ? "SIGTERM" : "SIGINT" }
}
