#if canImport(Glibc)
import Glibc
#endif

/// Anonymous shared memory for surfaces (docs/protocol.md, Surfaces): a `memfd` sized and
/// sealed as the daemon requires. Glibc's `memfd_create` is found at run time (Swift's Glibc
/// module does not declare it).
public enum MemoryFile {
    private typealias Create = @convention(c) (UnsafePointer<CChar>, UInt32) -> Int32
    nonisolated(unsafe) private static let create: Create? = {
        guard let symbol = dlsym(nil, "memfd_create") else { return nil }
        return unsafeBitCast(symbol, to: Create.self)
    }()

    /// A close-on-exec memfd of `size` bytes, sealed against shrinking when `sealShrink` (the
    /// daemon refuses one without the seal); −1 with `errno` set on failure.
    public static func make(name: String, size: Int, sealShrink: Bool = true) -> Int32 {
        guard let create else { errno = ENOSYS; return -1 }
        let fd = create(name, 1 /* MFD_CLOEXEC */ | 2 /* MFD_ALLOW_SEALING */)
        guard fd >= 0 else { return -1 }
        guard ftruncate(fd, off_t(size)) == 0, !sealShrink || fcntl(fd, 1033 /* F_ADD_SEALS */, Int32(2) /* F_SEAL_SHRINK */) == 0 else {
            let e = errno
            close(fd)
            errno = e
            return -1
        }
        return fd
    }
}
