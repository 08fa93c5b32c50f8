import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A system call failure with its errno.
public struct SocketError: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    static func errno(_ what: String) -> SocketError { SocketError("\(what): \(String(cString: strerror(Glibc.errno)))") }
    public var description: String { message }
}

/// Thin helpers over the Unix-domain stream socket calls. Wraps `socket`, `bind`, `listen`,
/// `accept4`, `connect` and `getsockopt(SO_PEERCRED)`.
public enum UnixSocket {
    /// Builds a `sockaddr_un` for `path` and calls `body` with it.
    static func withAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) throws -> R {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard bytes.count < capacity else { throw SocketError("socket path is too long (\(bytes.count) bytes, limit \(capacity - 1)): \(path)") }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// Connects to a listening socket; returns the file descriptor.
    public static func connect(path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError.errno("socket") }
        let rc = try withAddress(path) { Glibc.connect(fd, $0, $1) }
        guard rc == 0 else {
            let e = SocketError.errno("cannot connect to \(path)")
            close(fd)
            throw e
        }
        return fd
    }

    /// True when a daemon is listening at `path`.
    public static func isLive(path: String) -> Bool {
        guard let fd = try? connect(path: path) else { return false }
        close(fd)
        return true
    }

    /// Creates the listening socket at `path`: the parent directory is made (0700) if missing,
    /// a stale socket from a dead daemon is replaced, a live one is refused; the socket file is
    /// the user's alone (0600).
    public static func listen(path: String, backlog: Int32 = 64) throws -> Int32 {
        let dir = (path as NSString).deletingLastPathComponent
        if !dir.isEmpty && !FileManager.default.fileExists(atPath: dir) {
            guard mkdir(dir, 0o700) == 0 || Glibc.errno == EEXIST else { throw SocketError.errno("cannot create \(dir)") }
        }
        var st = stat()
        if lstat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFSOCK else {
                throw SocketError("\(path) exists and is not a socket; refusing to replace it")
            }
            if isLive(path: path) {
                throw SocketError("another laminad is already serving \(path)")
            }
            unlink(path)   // stale: its daemon is gone
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError.errno("socket") }
        // The umask makes the socket 0600 from its creation, with no window where others could connect.
        let old = umask(0o177)
        let rc = try withAddress(path) { bind(fd, $0, $1) }
        umask(old)
        guard rc == 0 else { let e = SocketError.errno("cannot bind \(path)"); close(fd); throw e }
        chmod(path, 0o600)
        guard Glibc.listen(fd, backlog) == 0 else { let e = SocketError.errno("listen"); close(fd); throw e }
        setNonBlocking(fd)
        return fd
    }

    public static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    /// `struct ucred` of `<sys/socket.h>` (glibc declares it only under _GNU_SOURCE, which the
    /// Swift Glibc module does not set).
    private struct PeerCredentials { var pid: Int32 = 0; var uid: UInt32 = 0; var gid: UInt32 = 0 }
    /// `SO_PEERCRED` on Linux (asm-generic/socket.h).
    private static let peerCredentialsOption: Int32 = 17

    private static func peerCredentials(_ fd: Int32) -> PeerCredentials? {
        var cred = PeerCredentials()
        var len = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, peerCredentialsOption, &cred, &len) == 0 else { return nil }
        return cred
    }

    /// The uid of the process at the other end (`SO_PEERCRED`), or nil.
    public static func peerUID(_ fd: Int32) -> uid_t? { peerCredentials(fd)?.uid }

    /// The process at the other end as "NAME pid N" (`SO_PEERCRED`'s pid, `/proc/PID/comm`'s
    /// name; "pid N" alone when the name cannot be read), or nil.
    public static func peerProcess(_ fd: Int32) -> String? {
        guard let pid = peerCredentials(fd)?.pid, pid > 0 else { return nil }
        let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return comm.isEmpty ? "pid \(pid)" : "\(comm) pid \(pid)"
    }

    /// Accepts one pending connection as a non-blocking, close-on-exec descriptor, or nil.
    public static func accept(_ listenFD: Int32) -> Int32? {
        let fd = Glibc.accept(listenFD, nil, nil)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        setNonBlocking(fd)
        return fd
    }

    /// Most descriptors one read takes (SCM_RIGHTS); the kernel closes those past it.
    public static let maxDescriptorsPerRead = 8

    /// Reads bytes and the descriptors sent with them (SCM_RIGHTS, made close-on-exec):
    /// the count read (0 at the end, −1 with `errno` set), descriptors appended to `fds`.
    /// Control messages of another kind are ignored.
    public static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, fds: inout [Int32]) -> Int {
        // cmsghdr on Linux: size_t len, int level, int type, then the data, aligned to size_t.
        let header = MemoryLayout<Int>.size + 8
        let space = header + maxDescriptorsPerRead * 4
        var control = [UInt64](repeating: 0, count: (space + 7) / 8)
        var iov = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
        return control.withUnsafeMutableBytes { c -> Int in
            withUnsafeMutablePointer(to: &iov) { iovp -> Int in
                var msg = msghdr()
                msg.msg_iov = iovp
                msg.msg_iovlen = 1
                msg.msg_control = c.baseAddress
                msg.msg_controllen = c.count
                let n = recvmsg(fd, &msg, Int32(MSG_CMSG_CLOEXEC))
                guard n >= 0 else { return n }
                var offset = 0
                let length = Int(msg.msg_controllen)
                while offset + header <= length {
                    let len = c.load(fromByteOffset: offset, as: Int.self)
                    let level = c.load(fromByteOffset: offset + MemoryLayout<Int>.size, as: Int32.self)
                    let type = c.load(fromByteOffset: offset + MemoryLayout<Int>.size + 4, as: Int32.self)
                    guard len >= header, offset + len <= length else { break }
                    if level == SOL_SOCKET, type == Int32(SCM_RIGHTS) {
                        for k in 0..<((len - header) / 4) {
                            fds.append(c.load(fromByteOffset: offset + header + k * 4, as: Int32.self))
                        }
                    }
                    offset += (len + 7) & ~7
                }
                return n
            }
        }
    }

    /// Sends bytes on a socket without raising SIGPIPE when the peer is gone (`MSG_NOSIGNAL`):
    /// the count written, or −1 with `errno` set (EPIPE for a closed peer).
    public static func send(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Int {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return 0 }
            return Glibc.send(fd, base, raw.count, Int32(MSG_NOSIGNAL))
        }
    }

    /// Writes all bytes to a blocking descriptor.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = send(fd, bytes[offset...])
            if n < 0 {
                if Glibc.errno == EINTR { continue }
                throw SocketError.errno("write")
            }
            offset += n
        }
    }
}
