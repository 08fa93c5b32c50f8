import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Socket activation as systemd does it (sd_listen_fds(3)), without libsystemd: when
/// `LISTEN_PID` is this process's pid and `LISTEN_FDS` is at least 1, descriptor 3
/// (`SD_LISTEN_FDS_START`) is a socket that already listens, and the daemon serves it instead
/// of binding its own path. systemd owns that socket's path: the daemon never unlinks it.
public enum SocketActivation {
    /// `SD_LISTEN_FDS_START`: the first descriptor systemd passes.
    public static let firstFD: Int32 = 3

    /// A listening socket passed by systemd: its descriptor and the path it is bound to.
    public struct Listener: Sendable, Equatable {
        public var fd: Int32
        public var path: String
        public init(fd: Int32, path: String) { self.fd = fd; self.path = path }
    }

    /// Takes the socket systemd passed, if any. Reads `LISTEN_PID` and `LISTEN_FDS`, and
    /// unsets them and `LISTEN_FDNAMES` whenever `LISTEN_PID` is set (as sd_listen_fds(…, 1)
    /// does), so that no child inherits them. The descriptor is made close-on-exec and
    /// non-blocking, as the daemon's own socket is; descriptors after the first (the daemon
    /// serves one socket) are made close-on-exec and otherwise left alone.
    /// - Returns: nil when no socket was passed to this process (`LISTEN_PID` unset, or
    ///   another process's pid, or `LISTEN_FDS` 0).
    /// - Throws: a `SocketError` naming what is wrong when the variables are malformed or
    ///   descriptor 3 is not a listening Unix stream socket bound to a path.
    public static func take() throws -> Listener? {
        guard let pidText = getenv("LISTEN_PID").map({ String(cString: $0) }) else { return nil }
        let fdsText = getenv("LISTEN_FDS").map { String(cString: $0) }
        unsetenv("LISTEN_PID"); unsetenv("LISTEN_FDS"); unsetenv("LISTEN_FDNAMES")
        guard let pid = pid_t(pidText), pid > 0 else {
            throw SocketError("socket activation: LISTEN_PID is not a process id: '\(pidText)'")
        }
        guard pid == getpid() else { return nil }   // meant for another process
        guard let fdsText else { throw SocketError("socket activation: LISTEN_PID is set but LISTEN_FDS is not") }
        guard let count = Int32(fdsText), count >= 0 else {
            throw SocketError("socket activation: LISTEN_FDS is not a count: '\(fdsText)'")
        }
        guard count >= 1 else { return nil }
        // The others (there is no descriptor past the table's size, however large the count).
        let end = Int32(min(Int(firstFD) + Int(count), Int(getdtablesize())))
        if end > firstFD + 1 { for extra in (firstFD + 1)..<end { _ = fcntl(extra, F_SETFD, FD_CLOEXEC) } }
        let path = try listeningPath(firstFD)
        _ = fcntl(firstFD, F_SETFD, FD_CLOEXEC)
        UnixSocket.setNonBlocking(firstFD)
        return Listener(fd: firstFD, path: path)
    }

    /// The path `fd` is bound to, when it is a listening `AF_UNIX` `SOCK_STREAM` socket.
    /// - Throws: a `SocketError` saying which of these it is not.
    public static func listeningPath(_ fd: Int32) throws -> String {
        let what = "socket activation: descriptor \(fd)"
        var type: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 else {
            throw SocketError.errno("\(what) is not a socket (getsockopt SO_TYPE)")
        }
        guard type == Int32(SOCK_STREAM.rawValue) else { throw SocketError("\(what) is not a stream socket (SO_TYPE \(type))") }
        var accepting: Int32 = 0
        len = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &len) == 0 else {
            throw SocketError.errno("\(what): getsockopt SO_ACCEPTCONN")
        }
        guard accepting != 0 else { throw SocketError("\(what) is not listening (ListenStream= sockets are)") }
        var addr = sockaddr_un()
        len = socklen_t(MemoryLayout<sockaddr_un>.size)
        let rc = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard rc == 0 else { throw SocketError.errno("\(what): getsockname") }
        guard addr.sun_family == sa_family_t(AF_UNIX) else {
            throw SocketError("\(what) is not a Unix-domain socket (family \(addr.sun_family)); clients connect to a path")
        }
        let pathBytes = Int(len) - MemoryLayout<sa_family_t>.size
        let path: String = withUnsafeBytes(of: &addr.sun_path) { raw in
            let bytes = raw.prefix(max(0, pathBytes))
            guard let first = bytes.first, first != 0 else { return "" }
            return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        guard !path.isEmpty else {
            throw SocketError("\(what) is an unnamed or abstract Unix socket; clients connect to a path (ListenStream=%t/lamina-0)")
        }
        return path
    }
}
