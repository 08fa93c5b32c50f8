import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM for the servers (`laminad`, `lamina-viewer`), handled from the first
/// line of `main`: `install()` puts in a handler that only writes a byte to a pipe (safe in a
/// signal handler, on whichever thread the signal lands), and a watcher thread reads the pipe
/// and calls the stop handler. A signal that arrives before the daemon exists is remembered
/// and acted on as soon as `onSignal` names what to do — so a SIGTERM at any moment of the
/// daemon's life stops it cleanly (socket removed, exit status 0), never kills it with the
/// socket left behind.
public enum TerminationSignals {
    private struct State {
        var handler: (@Sendable () -> Void)?
        var received = 0
    }
    private static let state = Mutex(State())
    /// The pipe's write end, read by the signal handler (set once, before the handler is in).
    nonisolated(unsafe) private static var writeFD: Int32 = -1
    private static let installed = Atomic<Bool>(false)

    /// Installs the handlers and starts the watcher. Call it first in `main`; later calls do
    /// nothing.
    public static func install() {
        guard !installed.exchange(true, ordering: .sequentiallyConsistent) else { return }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        writeFD = fds[1]
        let readFD = fds[0]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            var b: UInt8 = 1
            _ = write(TerminationSignals.writeFD, &b, 1)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        // A parent may have started us with them blocked (a test runner's thread): unblock them
        // so that they are delivered at all (threads started later inherit this mask).
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        let watcher = Thread {
            var b: UInt8 = 0
            while true {
                let n = read(readFD, &b, 1)
                if n < 0 && errno == EINTR { continue }
                guard n == 1 else { return }
                let handler = state.withLock { s in
                    s.received += 1
                    return s.handler
                }
                handler?()
            }
        }
        watcher.name = "lamina-signals"
        watcher.start()
    }

    /// What a signal does from now on; if one came already, it is done at once (on this
    /// thread).
    public static func onSignal(_ handler: @escaping @Sendable () -> Void) {
        let pending = state.withLock { s in
            s.handler = handler
            return s.received > 0
        }
        if pending { handler() }
    }

    /// Signals received so far.
    public static var received: Int { state.withLock { $0.received } }
}
