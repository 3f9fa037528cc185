import Glibc

/// SIGHUPs received; written only by the handler.
nonisolated(unsafe) private var hangups: Int32 = 0

/// SIGHUP asks a live run to reopen its outputs, as log-rotation tools send it after moving them.
public enum HangupSignal {
    public static func install() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in hangups &+= 1 }
        action.sa_flags = 0
        sigemptyset(&action.sa_mask)
        guard sigaction(SIGHUP, &action, nil) == 0 else { throw SystemError("sigaction", "SIGHUP") }
    }

    /// How many have come; the loop compares it with the count it last saw.
    public static var count: Int32 { hangups }
}
