import Foundation
import Lamina
import LaminaServer
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 28, item 5 (README "Run as a service"): the real `laminad` (built beside the tests)
/// under socket activation as systemd starts it — a listening socket on descriptor 3,
/// `LISTEN_FDS=1` and `LISTEN_PID` set to its own pid — and `laminad --check-config`, and
/// `scripts/install` into a temporary prefix.
@Suite(.serialized) struct SystemServiceTests {
    static let binDir = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    static let laminad = binDir.appendingPathComponent("laminad").path
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A finished or running child with its output files.
    struct Child {
        var pid: pid_t
        var stdout: String
        var stderr: String
        func output() -> String { (try? String(contentsOfFile: stdout, encoding: .utf8)) ?? "" }
        func errors() -> String { (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? "" }
        /// The exit status, or nil when killed by a signal or still running after `seconds`.
        func wait(seconds: Double = 60) -> Int32? {
            var status: Int32 = 0
            let deadline = Date().addingTimeInterval(seconds)
            while waitpid(pid, &status, WNOHANG) != pid {
                guard Date() < deadline else { kill(pid, SIGKILL); _ = waitpid(pid, &status, 0); return nil }
                usleep(5000)
            }
            return status & 0x7f == 0 ? (status >> 8) & 0xff : nil
        }
        func remove() { unlink(stdout); unlink(stderr) }
    }

    /// Starts `argv` as a shell would (`spawnLikeAShell`), output to temporary files, with
    /// `listener` (when given) as descriptor 3 and no other descriptor of this process.
    static func spawn(_ argv: [String], listener: Int32? = nil) throws -> Child {
        let tag = "\(NSTemporaryDirectory())lamina-service-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var child = Child(pid: 0, stdout: tag + ".out", stderr: tag + ".err")
        child.pid = try spawnLikeAShell(argv, stdout: child.stdout, stderr: child.stderr, listener: listener)
        return child
    }

    /// systemd sets `LISTEN_PID` in the child it forks; posix_spawn cannot know that pid
    /// beforehand, so a shell sets it to its own (`$$`) and execs laminad, which keeps the pid.
    static func activated(_ arguments: [String], listener: Int32, fds: Int = 1) throws -> Child {
        try spawn(["/bin/sh", "-c", "LISTEN_PID=$$ LISTEN_FDS=\(fds) LISTEN_FDNAMES=lamina.socket exec \"$0\" \"$@\"",
                   laminad] + arguments, listener: listener)
    }

    /// A copy of `fd` above 50, close-on-exec; `fd` is closed.
    static func moveHigh(_ fd: Int32) -> Int32 {
        let high = fcntl(fd, F_DUPFD_CLOEXEC, 50)
        close(fd)
        return high
    }

    static func requireBuilt() throws {
        try #require(FileManager.default.isExecutableFile(atPath: laminad),
                     "\(laminad) is not built: swift build --build-tests builds it")
    }

    /// `fds`: `LISTEN_FDS` (only descriptor 3 is passed: laminad serves the first socket
    /// and marks the others, present or not, close-on-exec; Int32.max must not overflow).
    @Test(arguments: [1, 2, Int(Int32.max)])
    func laminadServesTheListeningSocketSystemdPassesAndLeavesItsFile(fds: Int) throws {
        try Self.requireBuilt()
        let path = NSTemporaryDirectory() + "lamina-activated-\(getpid())-\(fds).sock"
        let unused = NSTemporaryDirectory() + "lamina-activated-\(getpid())-\(fds)-unused.sock"
        unlink(path); unlink(unused)
        defer { unlink(path); unlink(unused) }
        // What systemd does for lamina.socket: bind and listen, then hand the socket over.
        let listener = Self.moveHigh(try UnixSocket.listen(path: path))
        // --socket names another path: the activated socket wins (and that path is never made).
        let child = try Self.activated(["--headless", "--size", "32x32", "--clock", "manual", "--socket", unused],
                                       listener: listener, fds: fds)
        defer { child.remove() }
        close(listener)   // laminad holds the only copy now
        var serving = false
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if child.output().contains("serving") { serving = true; break }
            var status: Int32 = 0
            if waitpid(child.pid, &status, WNOHANG) == child.pid { break }
            usleep(10_000)
        }
        guard serving else {
            kill(child.pid, SIGKILL)
            _ = child.wait()
            Issue.record("laminad did not serve: \(child.output()) \(child.errors())")
            return
        }
        #expect(child.output().contains("laminad: serving \(path) "))
        #expect(child.errors().contains("serving systemd's socket \(path), not \(unused)"))
        do {
            let connection = try Connection(socketPath: path, name: "activated")
            let rtt = try connection.ping()
            #expect(rtt >= 0)
            connection.close()
        } catch {
            Issue.record("no handshake and ping on the activated socket: \(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: unused), "laminad bound --socket instead")
        kill(child.pid, SIGTERM)
        #expect(child.wait() == 0, "\(child.errors())")
        // systemd owns the socket file: laminad leaves it.
        var st = stat()
        #expect(lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK, "laminad unlinked systemd's socket")
    }

    @Test func socketsPassedToAnotherProcessAreLeftAlone() throws {
        try Self.requireBuilt()
        let passed = NSTemporaryDirectory() + "lamina-passed-\(getpid()).sock"
        let own = NSTemporaryDirectory() + "lamina-own-\(getpid()).sock"
        unlink(passed); unlink(own)
        defer { unlink(passed); unlink(own) }
        let listener = Self.moveHigh(try UnixSocket.listen(path: passed))
        defer { close(listener) }
        // LISTEN_PID names another process (pid 1): not for laminad, which binds --socket.
        let child = try Self.spawn(["/bin/sh", "-c", "LISTEN_PID=1 LISTEN_FDS=1 exec \"$0\" \"$@\"", Self.laminad,
                                    "--headless", "--size", "32x32", "--clock", "manual", "--socket", own],
                                   listener: listener)
        defer { child.remove() }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && !child.output().contains("serving") { usleep(10_000) }
        #expect(child.output().contains("laminad: serving \(own) "), "\(child.output()) \(child.errors())")
        if let c = try? Connection(socketPath: own, name: "own") { #expect((try? c.ping()) != nil); c.close() }
        else { Issue.record("no connection on laminad's own socket") }
        kill(child.pid, SIGTERM)
        #expect(child.wait() == 0)
        #expect(!FileManager.default.fileExists(atPath: own), "laminad's own socket is removed at exit")
    }

    @Test func aDescriptorThatIsNotAListeningUnixSocketIsRefused() throws {
        try Self.requireBuilt()
        // A stream socket that does not listen (one end of a pair).
        var pair: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        let connected = Self.moveHigh(pair[0])
        defer { close(connected); close(pair[1]) }
        let notListening = try Self.activated(["--headless", "--socket", "/nonexistent/lamina-unused"], listener: connected)
        defer { notListening.remove() }
        #expect(notListening.wait() == 1)
        #expect(notListening.errors().contains("descriptor 3 is not listening"), "\(notListening.errors())")
        // Not a socket at all.
        let file = Self.moveHigh(open("/dev/null", O_RDONLY))
        defer { close(file) }
        let notSocket = try Self.activated(["--headless", "--socket", "/nonexistent/lamina-unused"], listener: file)
        defer { notSocket.remove() }
        #expect(notSocket.wait() == 1)
        #expect(notSocket.errors().contains("descriptor 3 is not a socket"), "\(notSocket.errors())")
        // A datagram socket.
        let datagram = Self.moveHigh(socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0))
        defer { close(datagram) }
        let notStream = try Self.activated(["--headless", "--socket", "/nonexistent/lamina-unused"], listener: datagram)
        defer { notStream.remove() }
        #expect(notStream.wait() == 1)
        #expect(notStream.errors().contains("descriptor 3 is not a stream socket"), "\(notStream.errors())")
        // Malformed variables.
        let badCount = try Self.spawn(["/bin/sh", "-c", "LISTEN_PID=$$ LISTEN_FDS=two exec \"$0\" --headless", Self.laminad],
                                      listener: datagram)
        defer { badCount.remove() }
        #expect(badCount.wait() == 1)
        #expect(badCount.errors().contains("LISTEN_FDS is not a count: 'two'"), "\(badCount.errors())")
        let noCount = try Self.spawn(["/bin/sh", "-c", "LISTEN_PID=$$ exec \"$0\" --headless", Self.laminad], listener: datagram)
        defer { noCount.remove() }
        #expect(noCount.wait() == 1)
        #expect(noCount.errors().contains("LISTEN_PID is set but LISTEN_FDS is not"), "\(noCount.errors())")
    }

    @Test func checkConfigAcceptsTheShippedConfigAndNamesTheBadField() throws {
        try Self.requireBuilt()
        let shipped = Self.repo.appendingPathComponent("config/laminad.json").path
        let ok = try Self.spawn([Self.laminad, "--check-config", shipped])
        defer { ok.remove() }
        #expect(ok.wait() == 0)
        #expect(ok.output() == "\(shipped): ok\n")

        let bad = NSTemporaryDirectory() + "laminad-bad-\(getpid()).json"
        defer { unlink(bad) }
        for (json, message) in [(#"{"fps": 0}"#, "\(bad): fps: must be in (0, 1000]"),
                                (#"{"size": "big"}"#, "\(bad): size: must be \"WxH\""),
                                (#"{"maxClients": true}"#, "\(bad): maxClients: must be a number"),
                                (##"{"colour": "#fff"}"##, "\(bad): unknown setting 'colour'"),
                                ("[1, 2]", "\(bad): not a JSON object")] {
            try json.write(toFile: bad, atomically: true, encoding: .utf8)
            let child = try Self.spawn([Self.laminad, "--check-config", bad])
            defer { child.remove() }
            #expect(child.wait() == 1, "\(json)")
            #expect(child.errors() == message + "\n", "\(json)")
            #expect(child.output().isEmpty)
        }
        let missing = try Self.spawn([Self.laminad, "--check-config", "/nonexistent/laminad.json"])
        defer { missing.remove() }
        #expect(missing.wait() == 1)
        #expect(missing.errors().contains("cannot read config file /nonexistent/laminad.json"))
    }

    @Test func installPutsBinariesUnitsAndConfigUnderThePrefix() throws {
        try Self.requireBuilt()
        let stage = NSTemporaryDirectory() + "lamina-install-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: stage) }
        try? FileManager.default.removeItem(atPath: stage)
        let prefix = "/opt/lamina-test"
        let child = try Self.spawn([Self.repo.appendingPathComponent("scripts/install").path, "--no-build",
                                    "--bin-dir", Self.binDir.path, "--prefix", prefix, "--destdir", stage])
        defer { child.remove() }
        #expect(child.wait(seconds: 60) == 0, "\(child.output()) \(child.errors())")
        let root = stage + prefix
        for binary in ["laminad", "lamina-viewer", "laminactl"] {
            #expect(FileManager.default.isExecutableFile(atPath: "\(root)/bin/\(binary)"), "\(binary)")
        }
        let service = try String(contentsOfFile: "\(root)/lib/systemd/user/lamina.service", encoding: .utf8)
        #expect(service.contains("ExecStart=\(prefix)/bin/laminad --headless --config \(prefix)/etc/lamina/laminad.json"))
        #expect(!service.contains("@PREFIX@"))
        let socket = try String(contentsOfFile: "\(root)/lib/systemd/user/lamina.socket", encoding: .utf8)
        #expect(socket.contains("ListenStream=%t/lamina-0"))
        #expect(!socket.contains("@PREFIX@"))
        let config = "\(root)/etc/lamina/laminad.json"
        #expect(FileManager.default.contents(atPath: config)
                == FileManager.default.contents(atPath: Self.repo.appendingPathComponent("config/laminad.json").path))
        // The installed laminad accepts the installed config.
        let check = try Self.spawn(["\(root)/bin/laminad", "--check-config", config])
        defer { check.remove() }
        #expect(check.wait() == 0)
        #expect(check.output() == "\(config): ok\n")
        // Installing again keeps a config the user changed.
        try Data("{\"fps\": 60}\n".utf8).write(to: URL(fileURLWithPath: config))
        let again = try Self.spawn([Self.repo.appendingPathComponent("scripts/install").path, "--no-build",
                                    "--bin-dir", Self.binDir.path, "--prefix", prefix, "--destdir", stage])
        defer { again.remove() }
        #expect(again.wait(seconds: 60) == 0, "\(again.errors())")
        #expect(again.output().contains("install: kept \(config)"))
        #expect(try String(contentsOfFile: config, encoding: .utf8) == "{\"fps\": 60}\n")
    }
}
