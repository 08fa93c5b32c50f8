import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starts `argv` as a shell would, for the tests that run the real binaries: no signal
/// blocked, SIGINT and SIGTERM at their default action (a test runner's thread may block
/// them, and a child started from it would inherit that), standard input from /dev/null,
/// output to `stdout` and `stderr` (paths, created), the environment without any `LISTEN_*`
/// of this process, and no descriptor of this process but `listener`, put on descriptor 3
/// as systemd passes a socket (the other suites' descriptors — in-process daemons' sockets,
/// pipes — inherited, would stay open in the child after their tests close them).
func spawnLikeAShell(_ argv: [String], stdout: String = "/dev/null", stderr: String = "/dev/null",
                     listener: Int32? = nil) throws -> pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGINT)
    sigaddset(&defaults, SIGTERM)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    // Every descriptor above 2 close-on-exec; dup2 onto 3 clears the flag on the copy (the
    // listener must not be 3 itself: callers pass a copy above it).
    if let open = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
        for name in open { if let fd = Int32(name), fd > 2 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) } }
    }
    if let listener { posix_spawn_file_actions_adddup2(&actions, listener, 3) }
    var cArgs = argv.map { strdup($0) } + [nil]
    defer { for a in cArgs { free(a) } }
    var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LISTEN_") }
        .map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for e in env { free(e) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, argv[0], &actions, &attributes, &cArgs, &env)
    guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EINVAL) }
    return pid
}
